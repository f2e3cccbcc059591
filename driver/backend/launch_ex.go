package backend

import "unsafe"

// LaunchConfig is a launch with attributes (a CUlaunchConfig and its
// CUlaunchAttribute list): Grid blocks of Block threads with SharedMem
// bytes of dynamic shared memory on Stream; Cluster, when not all zero,
// groups blocks into thread-block clusters of that shape
// (CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, compute capability 9.0 and up);
// Cooperative asks for a cooperative launch
// (CU_LAUNCH_ATTRIBUTE_COOPERATIVE): every block resident at once, so that
// the grid can synchronise.
type LaunchConfig struct {
	Grid, Block [3]uint32
	SharedMem   uint32
	Stream      uintptr
	Cluster     [3]uint32
	Cooperative bool
}

// KernelLauncherEx is implemented by backends that launch with attributes:
// LaunchKernelEx is cuLaunchKernelEx (CUDA 12.0+); params is the
// kernelParams array as for API.LaunchKernel. A cooperative grid larger
// than can be resident at once is ErrCooperativeLaunchTooLarge.
type KernelLauncherEx interface {
	LaunchKernelEx(f uintptr, cfg *LaunchConfig, params unsafe.Pointer) error
}

// Occupancy is implemented by backends that answer the occupancy
// calculator's questions beyond API.OccupancyMaxPotentialBlockSize:
// OccupancyMaxActiveBlocksPerMultiprocessor is
// cuOccupancyMaxActiveBlocksPerMultiprocessor (blocks of blockSize threads
// with dynamicSharedMem bytes each that fit on one multiprocessor), and
// OccupancyMaxActiveClusters is cuOccupancyMaxActiveClusters (clusters of
// cfg's shape that can be resident at once on the device; cfg.Stream and
// cfg.Cooperative are ignored). Both need a current context.
type Occupancy interface {
	OccupancyMaxActiveBlocksPerMultiprocessor(f uintptr, blockSize int, dynamicSharedMem uintptr) (int, error)
	OccupancyMaxActiveClusters(f uintptr, cfg *LaunchConfig) (int, error)
}

// Results of launches with attributes.
const (
	// ErrCooperativeLaunchTooLarge is CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE
	// (720): a cooperative grid with more blocks than can be resident at once.
	ErrCooperativeLaunchTooLarge Result = 720
	// ErrInvalidClusterSize is CUDA_ERROR_INVALID_CLUSTER_SIZE (912): a
	// cluster shape the kernel or device cannot run.
	ErrInvalidClusterSize Result = 912
)
