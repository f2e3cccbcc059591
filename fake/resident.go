package fake

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
)

// residentBlocks is how many blocks of a launch of k with this block and
// dynamic shared memory the device keeps resident at once: the blocks one
// SM holds (threads, blocks and shared memory per SM, blocksPerSM's rule,
// with the kernel's static shared memory counted) times the SMs. The
// interpreter runs blocks that wait for each other as that many resident
// blocks (ptxexec.Launch.Resident); it is at least 1.
func (k *kernel) residentBlocks(a map[driver.DeviceAttribute]int, block [3]uint32, sharedMem uint32) int {
	shared := uintptr(sharedMem)
	if k.interp != nil {
		shared += uintptr(k.interp.StaticShared)
	}
	bs := int(block[0]) * int(block[1]) * int(block[2])
	return max(blocksPerSM(a, bs, shared), 1) * max(a[driver.AttrMultiprocessorCount], 1)
}

// checkRunnable refuses, with CUDA_ERROR_NOT_SUPPORTED and the reason, a
// launch of an interpreted kernel that the interpreter could not run in
// bounded time (ptxexec.Kernel.Runnable: a grid far beyond what a test
// needs, of a kernel that does something). The H200 runs it; the fake
// says so instead of hanging. A Go body passes.
func (k *kernel) checkRunnable(grid, block [3]uint32) error {
	if k.interp == nil {
		return nil
	}
	if err := k.interp.Runnable(grid, block); err != nil {
		return fmt.Errorf("%w: %v", driver.ErrNotSupported, err)
	}
	return nil
}
