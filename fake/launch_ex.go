package fake

import (
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
)

// maxPortableCluster is the most blocks a thread-block cluster may have
// without the kernel opting in to non-portable sizes (which the fake's
// kernels never do): 8, as CUDA documents for compute capability 9.0.
const maxPortableCluster = 8

// LaunchKernelEx is cuLaunchKernelEx. Before the launch, which then goes
// exactly as LaunchKernel (and counts as one), it checks the attributes as
// the driver does:
//
//   - a cluster shape (not all zero) needs compute capability 9.0 or newer
//     (ErrNotSupported), no zero dimension (ErrInvalidValue), at most 8
//     blocks, and grid dimensions that are multiples of it
//     (ErrInvalidClusterSize);
//   - a cooperative grid must fit on the device at once: at most
//     OccupancyMaxActiveBlocksPerMultiprocessor times the multiprocessor
//     count blocks (ErrCooperativeLaunchTooLarge).
//
// The blocks of a cooperative grid are co-resident (they take turns, a
// spinning block letting the others run) and the grid workspace is there,
// so cooperative_groups' grid.sync works; clusters run as any launch does
// on the fake: the blocks of a cluster share nothing more than other
// blocks do.
func (b *fakeBackend) LaunchKernelEx(fh uintptr, cfg *backend.LaunchConfig, params unsafe.Pointer) error {
	if err := b.enter(abi.CuLaunchKernelEx); err != nil {
		return err
	}
	if cfg == nil {
		return driver.ErrInvalidValue
	}
	if err := b.checkLaunchEx(fh, cfg); err != nil {
		return err
	}
	if err := b.enter(abi.CuLaunchKernel); err != nil {
		return err
	}
	return b.launchKernel(fh, cfg.Grid, cfg.Block, cfg.SharedMem, cfg.Stream, params, cfg.Cooperative)
}

// checkLaunchEx checks cfg's attributes for function fh.
func (b *fakeBackend) checkLaunchEx(fh uintptr, cfg *backend.LaunchConfig) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	f, err := b.funcLocked(fh)
	if err != nil {
		return err
	}
	a := f.mod.ctx.dev.attrs
	if err := checkCluster(a, cfg); err != nil {
		return err
	}
	if cfg.Cooperative {
		bs := int(cfg.Block[0]) * int(cfg.Block[1]) * int(cfg.Block[2])
		perSM := blocksPerSM(a, bs, uintptr(cfg.SharedMem))
		grid := uint64(cfg.Grid[0]) * uint64(cfg.Grid[1]) * uint64(cfg.Grid[2])
		if grid > uint64(perSM)*uint64(a[driver.AttrMultiprocessorCount]) {
			return backend.ErrCooperativeLaunchTooLarge
		}
	}
	return nil
}

// checkCluster checks the cluster shape of cfg on a device with attributes a.
func checkCluster(a map[driver.DeviceAttribute]int, cfg *backend.LaunchConfig) error {
	c := cfg.Cluster
	if c == [3]uint32{} {
		return nil
	}
	if a[driver.AttrComputeCapabilityMajor] < 9 {
		return driver.ErrNotSupported
	}
	if c[0] == 0 || c[1] == 0 || c[2] == 0 {
		return driver.ErrInvalidValue
	}
	if uint64(c[0])*uint64(c[1])*uint64(c[2]) > maxPortableCluster {
		return backend.ErrInvalidClusterSize
	}
	for i := range 3 {
		if cfg.Grid[i]%c[i] != 0 {
			return backend.ErrInvalidClusterSize
		}
	}
	return nil
}

// blocksPerSM is the fake's occupancy rule for one multiprocessor: blocks
// of bs threads (rounded up to whole warps) fit by threads, at most 32, and
// by shared memory when they use some (each block also takes 1 KiB the
// driver reserves). It is 0 for a block size the device cannot run.
func blocksPerSM(a map[driver.DeviceAttribute]int, bs int, dynamicShared uintptr) int {
	if bs <= 0 || bs > a[driver.AttrMaxThreadsPerBlock] {
		return 0
	}
	warp := a[driver.AttrWarpSize]
	rounded := (bs + warp - 1) / warp * warp
	n := min(a[driver.AttrMaxThreadsPerMultiprocessor]/rounded, 32)
	if dynamicShared > 0 {
		if dynamicShared > uintptr(a[driver.AttrMaxSharedMemoryPerBlockOptin]) {
			return 0
		}
		n = min(n, int(uintptr(a[driver.AttrMaxSharedMemoryPerMultiproc])/(dynamicShared+1024)))
	}
	return n
}

// OccupancyMaxActiveBlocksPerMultiprocessor is
// cuOccupancyMaxActiveBlocksPerMultiprocessor with the fake's rule (see
// blocksPerSM). It needs a current context, as on the H200; a block size
// below 1 is ErrInvalidValue.
func (b *fakeBackend) OccupancyMaxActiveBlocksPerMultiprocessor(fh uintptr, blockSize int, dynamicSharedMem uintptr) (int, error) {
	if err := b.enter(abi.CuOccupancyMaxActiveBlocksPerMultiprocessor); err != nil {
		return 0, err
	}
	if _, err := b.current(); err != nil {
		return 0, err
	}
	if blockSize <= 0 {
		return 0, driver.ErrInvalidValue
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	f, err := b.funcLocked(fh)
	if err != nil {
		return 0, err
	}
	return blocksPerSM(f.mod.ctx.dev.attrs, blockSize, dynamicSharedMem), nil
}

// OccupancyMaxActiveClusters is cuOccupancyMaxActiveClusters with the
// fake's rule: as many clusters as the blocks that fit on all the
// multiprocessors at once make up (the real answer also depends on how
// the device groups its multiprocessors, and may be lower). The cluster
// shape is checked as for LaunchKernelEx; none is ErrInvalidClusterSize.
func (b *fakeBackend) OccupancyMaxActiveClusters(fh uintptr, cfg *backend.LaunchConfig) (int, error) {
	if err := b.enter(abi.CuOccupancyMaxActiveClusters); err != nil {
		return 0, err
	}
	if _, err := b.current(); err != nil {
		return 0, err
	}
	if cfg == nil {
		return 0, driver.ErrInvalidValue
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	f, err := b.funcLocked(fh)
	if err != nil {
		return 0, err
	}
	a := f.mod.ctx.dev.attrs
	if cfg.Cluster == [3]uint32{} {
		return 0, backend.ErrInvalidClusterSize
	}
	shape := *cfg
	shape.Grid = cfg.Cluster // the query's grid is not checked against the cluster
	if err := checkCluster(a, &shape); err != nil {
		return 0, err
	}
	bs := int(cfg.Block[0]) * int(cfg.Block[1]) * int(cfg.Block[2])
	size := int(cfg.Cluster[0] * cfg.Cluster[1] * cfg.Cluster[2])
	return blocksPerSM(a, bs, uintptr(cfg.SharedMem)) * a[driver.AttrMultiprocessorCount] / size, nil
}

var (
	_ backend.KernelLauncherEx = (*fakeBackend)(nil)
	_ backend.Occupancy        = (*fakeBackend)(nil)
)
