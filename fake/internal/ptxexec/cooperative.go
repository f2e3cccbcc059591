package ptxexec

// Cooperative launches. All blocks are resident at once, as the driver
// guarantees for cuLaunchCooperativeKernel: each block has its own
// machine, and the blocks take turns on one goroutine (resident.go). A block's turn
// ends when its threads have all exited, or when those that have not wait
// (at barriers or warp collectives) for threads that spin: a thread that
// has taken spinLimit backward branches since the last yield yields
// (tYield), so that a block polling memory that another block will write
// (grid.sync's counter, or a kernel's own flag) lets that block run. A
// kernel whose blocks wait for each other forever fails as a deadlock
// (resident.go).
//
// grid.sync, as cooperative_groups (CUDA 11.8) compiles it: every thread
// reads %envreg1 and %envreg2, the high and low halves of the grid
// workspace's address (a launch that is not cooperative has 0 there, and
// the code traps: CUDA_ERROR_LAUNCH_FAILED, as on the GPU); the block's
// first thread adds to the u32 at workspace+4 (block 0 adds 0x80000001
// minus the number of blocks, the others 1) and spins until the top bit
// flips, between two bar.sync.

// spinLimit is how many backward branches a block's threads take before
// the thread taking the next one yields: it runs again once the block's
// other threads have waited or exited (and, in a cooperative launch, the
// other blocks have had their turn). So a thread spinning on a lock or a
// flag that another thread of the block (or grid) will release lets that
// thread run, as independent thread scheduling does on the GPU.
const spinLimit = 1024

// gridWorkspace is the bytes of a cooperative launch's grid workspace.
const gridWorkspace = 256

// spin counts a backward branch and reports whether the thread should
// yield now.
func (m *machine) spin() bool {
	m.spins++
	if m.spins < m.quantum {
		return false
	}
	m.spins, m.spun = 0, true
	return true
}

// runCooperative runs the blocks of a cooperative launch: every block
// resident from the start (resident.go), with the grid workspace.
func (s *resident) runCooperative() error {
	s.grid = make([]byte, gridWorkspace)
	s.limit = int(s.blocks)
	for ; s.next < s.blocks; s.next++ {
		s.res = append(s.res, s.start(s.next))
	}
	return s.run()
}
