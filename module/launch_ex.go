package module

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/stream"
)

// Results of launches with clusters or cooperative grids, for errors.Is.
var (
	// ErrCooperativeLaunchTooLarge is CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE:
	// a cooperative grid with more blocks than the device holds at once.
	ErrCooperativeLaunchTooLarge error = backend.ErrCooperativeLaunchTooLarge
	// ErrInvalidClusterSize is CUDA_ERROR_INVALID_CLUSTER_SIZE: a cluster
	// shape the kernel or the device cannot run.
	ErrInvalidClusterSize error = backend.ErrInvalidClusterSize
)

// launchConfig converts a checked cfg for a launch on stream handle s.
func launchConfig(cfg *Config, s uintptr) backend.LaunchConfig {
	g, b, c := cfg.Grid, cfg.Block, cfg.Cluster
	return backend.LaunchConfig{
		Grid:        [3]uint32{uint32(g.X), uint32(g.Y), uint32(g.Z)},
		Block:       [3]uint32{uint32(b.X), uint32(b.Y), uint32(b.Z)},
		SharedMem:   uint32(cfg.SharedMem),
		Stream:      s,
		Cluster:     [3]uint32{uint32(c.X), uint32(c.Y), uint32(c.Z)},
		Cooperative: cfg.Cooperative,
	}
}

// launchEx is launch's cuLaunchKernelEx, for a Config with clusters or a
// cooperative grid; the stream is checked and bound by the caller.
func (f *Function) launchEx(s *stream.Stream, cfg *Config, params unsafe.Pointer) error {
	ex, ok := f.m.api().(backend.KernelLauncherEx)
	if !ok {
		return fmt.Errorf("%s: clusters and cooperative launches need cuLaunchKernelEx, which the backend lacks: %w", f, errors.ErrUnsupported)
	}
	lc := launchConfig(cfg, s.Handle())
	if err := ex.LaunchKernelEx(f.h, &lc, params); err != nil {
		return fmt.Errorf("%s on %s: cuLaunchKernelEx: %w", f, s, core.Unusable(err))
	}
	return nil
}

// MaxActiveBlocksPerMultiprocessor returns how many blocks of blockSize
// threads, each with dynamicSmem bytes of dynamic shared memory, can be
// resident on one multiprocessor at once
// (cuOccupancyMaxActiveBlocksPerMultiprocessor). Times the device's
// multiprocessor count, it is the largest grid a cooperative launch takes.
func (f *Function) MaxActiveBlocksPerMultiprocessor(blockSize, dynamicSmem int) (int, error) {
	const op = "module.Function.MaxActiveBlocksPerMultiprocessor"
	if err := f.check(); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	if blockSize <= 0 || blockSize > maxBlockThreads || dynamicSmem < 0 {
		return 0, fmt.Errorf("%s: %s: block size %d (want 1 to %d), dynamic shared memory %d: %w: %w",
			op, f, blockSize, maxBlockThreads, dynamicSmem, ErrConfig, driver.ErrInvalidInput)
	}
	occ, ok := f.m.api().(backend.Occupancy)
	if !ok {
		return 0, fmt.Errorf("%s: %s: the backend has no cuOccupancyMaxActiveBlocksPerMultiprocessor: %w", op, f, errors.ErrUnsupported)
	}
	b, err := f.m.hold.Bind()
	if err != nil {
		return 0, fmt.Errorf("%s: %s: %w", op, f, err)
	}
	n, err := occ.OccupancyMaxActiveBlocksPerMultiprocessor(f.h, blockSize, uintptr(dynamicSmem))
	if err != nil {
		err = fmt.Errorf("%s: cuOccupancyMaxActiveBlocksPerMultiprocessor: %w", f, err)
	}
	if err = f.unbind(b, err); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	return n, nil
}

// MaxActiveClusters returns how many clusters of cfg.Cluster's shape, of
// blocks of cfg.Block threads with cfg.SharedMem bytes of dynamic shared
// memory, can be resident on the device at once
// (cuOccupancyMaxActiveClusters). cfg.Cluster must be set; cfg.Grid, when
// set, must be a whole number of clusters, and when zero is taken as one
// cluster.
func (f *Function) MaxActiveClusters(cfg Config) (int, error) {
	const op = "module.Function.MaxActiveClusters"
	if err := f.check(); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	if cfg.Cluster == (Dim3{}) {
		return 0, fmt.Errorf("%s: %s: no cluster shape: %w: %w", op, f, ErrConfig, driver.ErrInvalidInput)
	}
	if cfg.Grid == (Dim3{}) {
		cfg.Grid = cfg.Cluster
	}
	if err := cfg.check(f); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	occ, ok := f.m.api().(backend.Occupancy)
	if !ok {
		return 0, fmt.Errorf("%s: %s: the backend has no cuOccupancyMaxActiveClusters: %w", op, f, errors.ErrUnsupported)
	}
	b, err := f.m.hold.Bind()
	if err != nil {
		return 0, fmt.Errorf("%s: %s: %w", op, f, err)
	}
	lc := launchConfig(&cfg, 0)
	n, err := occ.OccupancyMaxActiveClusters(f.h, &lc)
	if err != nil {
		err = fmt.Errorf("%s: cuOccupancyMaxActiveClusters: %w", f, err)
	}
	if err = f.unbind(b, err); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	return n, nil
}
