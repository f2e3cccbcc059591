package ptxexec

// Stores after a barrier. On a GPU the warps of a block leave a barrier
// together and run side by side, so a load that follows the barrier
// closely happens, in practice, before any warp gets far enough to store
// to shared memory again. Kernels lean on that: llm.c's blockReduce, called
// in a loop without its final __syncthreads (the attention backward of
// train_gpt2), and softmax kernels that keep their maximum and their sum in
// one shared slot, read a slot after a barrier that another warp will
// overwrite before the next one. That is a race (the race checks report
// it), but the H200 computes the intended result; run warp after warp,
// the first warp would store before the others had loaded.
//
// So, once a barrier has completed in a block, each warp (of a block of
// more than one) stops at its first store to shared memory of the barrier
// phase and yields (tYield): it goes on when the block's other threads
// have waited, exited or stopped as well, that is after every other warp
// has done the loads that precede its own first store. Any such order is
// one the CUDA memory model allows; a correct kernel cannot tell.

// mustPause reports whether warp w stops at the shared store it is about
// to run (once per warp and barrier phase; see above), marking it paused.
func (m *machine) mustPause(w *warpRegs) bool {
	if !m.pauseDue(w) {
		return false
	}
	w.paused = m.phase
	return true
}

// pauseDue reports whether warp w has yet to stop at a shared store in
// this barrier phase (runFullSeq leaves such a store to its caller).
func (m *machine) pauseDue(w *warpRegs) bool {
	return w != nil && m.phase != m.blockPhase && w.paused != m.phase && len(m.warps) > 1
}
