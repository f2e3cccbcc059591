package module

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
)

// Dim3 is a grid or block shape: X*Y*Z blocks or threads.
type Dim3 struct {
	X, Y, Z int
}

// Dim returns the shape x, x×y or x×y×z: missing dimensions are 1.
// Dim(256) is 256×1×1; Dim(16, 16) is 16×16×1.
func Dim(x int, yz ...int) Dim3 {
	d := Dim3{x, 1, 1}
	if len(yz) > 0 {
		d.Y = yz[0]
	}
	if len(yz) > 1 {
		d.Z = yz[1]
	}
	return d
}

// Cover returns the one-dimensional grid of blocks of block threads that
// covers n elements: ceil(n/block) blocks. The kernel must still skip the
// indices past n in the last block. For n <= 0 or block <= 0 it returns
// the empty grid (0, 1, 1), which Launch takes as a launch of nothing (see
// [Config]): an empty buffer needs no special case, as an empty Go slice
// needs none in a loop.
func Cover(n, block int) Dim3 {
	if n <= 0 || block <= 0 {
		return Dim3{0, 1, 1}
	}
	return Dim3{n/block + min(n%block, 1), 1, 1}
}

// ElemsBlock is the block size of [ForElems]: 256 threads, a multiple of
// every device's warp that keeps most kernels at full occupancy.
const ElemsBlock = 256

// ForElems returns the one-dimensional shape that gives each of n elements
// a thread: blocks of [ElemsBlock] threads, Cover(n, ElemsBlock) of them
// (cudarc's LaunchConfig::for_num_elems). The kernel must still skip the
// indices past n in the last block. ForElems(0) is the empty launch, which
// launches nothing.
func ForElems(n int) Config {
	return Config{Grid: Cover(n, ElemsBlock), Block: Dim(ElemsBlock)}
}

// Count returns X*Y*Z.
func (d Dim3) Count() int { return d.X * d.Y * d.Z }

// String returns "(x, y, z)".
func (d Dim3) String() string { return fmt.Sprintf("(%d, %d, %d)", d.X, d.Y, d.Z) }

// Config is the shape of a launch: Grid blocks of Block threads, each block
// with SharedMem bytes of dynamic shared memory; optionally grouped in
// thread-block clusters, or launched cooperatively. A Config with Cluster
// or Cooperative set launches with cuLaunchKernelEx (CUDA 11.8+).
//
// A Grid with a dimension of 0 (and none negative), such as Cover(0, 256),
// is the empty launch: Launch checks the rest of the Config and the
// arguments as for any launch, and then launches nothing and returns nil,
// on the fake and on the GPU alike (the driver itself would refuse the
// grid). A graph node (AddToGraph) still needs a grid of at least one block.
type Config struct {
	Grid, Block Dim3
	// SharedMem is the dynamic shared memory per block, in bytes. Above
	// 48 KiB the kernel's MaxDynamicSharedSize attribute must allow it:
	// Launch raises it as needed (see Function.SetMaxDynamicSharedMemory).
	SharedMem int
	// Cluster, when not zero, groups the grid's blocks into thread-block
	// clusters of this shape (compute capability 9.0+, such as the H200):
	// the blocks of a cluster run at once on neighbouring multiprocessors
	// and share their shared memory. Grid still counts blocks, not
	// clusters (as in the driver API): each grid dimension must be a
	// multiple of the cluster's; at most 8 blocks a cluster is portable (larger
	// ones fail with ErrInvalidClusterSize).
	Cluster Dim3
	// Cooperative launches the grid cooperatively: every block is resident
	// at once, so that blocks can synchronise across the grid. A grid
	// larger than fits (see Function.MaxActiveBlocksPerMultiprocessor) is
	// refused with ErrCooperativeLaunchTooLarge.
	Cooperative bool
}

// extended reports whether the launch needs cuLaunchKernelEx.
func (c *Config) extended() bool { return c.Cooperative || c.Cluster != Dim3{} }

// Limits of every CUDA device of compute capability 5.0 and later.
const (
	maxBlockThreads = 1024
	maxBlockX       = 1024
	maxBlockY       = 1024
	maxBlockZ       = 64
	maxGridX        = 1<<31 - 1
	maxGridYZ       = 65535
)

// empty reports whether the grid has no block: a dimension is 0, none is
// negative.
func (c *Config) empty() bool {
	g := c.Grid
	return g.X >= 0 && g.Y >= 0 && g.Z >= 0 && g.X*g.Y*g.Z == 0
}

// checkLaunch is check for a launch, which takes the empty grid (see
// Config): the rest of the configuration is checked as for one block (or
// one cluster).
func (c *Config) checkLaunch(f *Function) error {
	if !c.empty() {
		return c.check(f)
	}
	one := *c
	one.Grid = Dim(1)
	if c.Cluster != (Dim3{}) {
		one.Grid = c.Cluster
	}
	return one.check(f)
}

// check refuses a configuration the driver would refuse, saying why. It
// allocates only when it fails.
func (c *Config) check(f *Function) error {
	g, b := c.Grid, c.Block
	switch {
	case g.X <= 0 || g.Y <= 0 || g.Z <= 0:
		return f.configErr("grid %v has a dimension below 1", g)
	case b.X <= 0 || b.Y <= 0 || b.Z <= 0:
		return f.configErr("block %v has a dimension below 1", b)
	case b.X > maxBlockX || b.Y > maxBlockY || b.Z > maxBlockZ:
		return f.configErr("block %v is over the limits (1024, 1024, 64)", b)
	case b.X*b.Y*b.Z > maxBlockThreads:
		return f.configErr("block %v has %d threads, over 1024", b, b.X*b.Y*b.Z)
	case g.X > maxGridX || g.Y > maxGridYZ || g.Z > maxGridYZ:
		return f.configErr("grid %v is over the limits (2147483647, 65535, 65535)", g)
	case c.SharedMem < 0 || c.SharedMem > 1<<31-1:
		return f.configErr("shared memory %d bytes is out of range", c.SharedMem)
	}
	if cl := c.Cluster; cl != (Dim3{}) {
		switch {
		case cl.X <= 0 || cl.Y <= 0 || cl.Z <= 0:
			return f.configErr("cluster %v has a dimension below 1", cl)
		case cl.X > maxBlockThreads || cl.Y > maxBlockThreads || cl.Z > maxBlockThreads:
			return f.configErr("cluster %v is over the limits", cl)
		case g.X%cl.X != 0 || g.Y%cl.Y != 0 || g.Z%cl.Z != 0:
			return f.configErr("grid %v is not a whole number of clusters %v", g, cl)
		}
	}
	return nil
}

func (f *Function) configErr(format string, args ...any) error {
	return fmt.Errorf("%s: %s: %w: %w", f, fmt.Sprintf(format, args...), ErrConfig, driver.ErrInvalidInput)
}
