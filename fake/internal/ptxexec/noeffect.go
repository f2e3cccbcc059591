package ptxexec

import "fmt"

// Launches the interpreter runs in bounded time. A kernel whose entry only
// computes in registers and returns (no memory access, call, barrier, warp
// collective, trap or backward branch: an empty __global__ function
// compiles to a lone ret) can do nothing a user could observe, on any
// block: no memory changes, nothing faults, nothing waits, every thread
// ends. Such a launch runs no block at all, so the largest grid (2^31-1 x
// 65535 x 65535 blocks) takes no time, as an empty kernel's launch takes
// well under a second on the H200. Any other kernel runs every block, at
// some tens of nanoseconds a block and a few a thread at best, so a launch
// of more than MaxBlocks blocks or MaxThreads threads, which would run for
// minutes to years, is refused (Runnable) instead of hanging the test.

// The most blocks and threads of a launch of a kernel that has an effect.
const (
	MaxBlocks  = 1 << 27
	MaxThreads = 1 << 33
)

// noEffect reports whether the kernel's entry is such a kernel.
func (k *Kernel) noEffect() bool {
	for pc, in := range k.fn.code {
		switch {
		case in.op < opLdGlobal: // arithmetic, moves, compares, cvt
		case in.op == opRet || in.op == opExit:
		case in.op == opBra && int(in.imm) > pc:
		default:
			return false
		}
	}
	return true
}

// Runnable reports, as an error saying why, a launch of the kernel on grid
// blocks of block threads that the interpreter refuses: more than
// MaxBlocks blocks or MaxThreads threads of a kernel that has an effect.
func (k *Kernel) Runnable(grid, block [3]uint32) error {
	blocks := uint64(grid[0]) * uint64(grid[1]) * uint64(grid[2])
	threads := blocks * uint64(block[0]) * uint64(block[1]) * uint64(block[2])
	if blocks <= MaxBlocks && threads <= MaxThreads || k.noEffect() {
		return nil
	}
	return fmt.Errorf("%s on %d blocks (%d threads): the fake's interpreter runs at most %d blocks and %d threads of a kernel that does anything (it would run for minutes or more); launch fewer blocks, each looping over more elements", k.Name, blocks, threads, uint64(MaxBlocks), uint64(MaxThreads))
}
