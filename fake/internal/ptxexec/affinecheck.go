package ptxexec

// The checks of an affine run. With an Observer (the stream checks) or
// the in-kernel race checks on, a block program's affine ld or st
// (affineAccess) tells them what the full-warp paths would, warp by
// warp, each before the warp's bytes move (a store that meets an
// unordered earlier write is settled after its own store): each full
// warp's coalesced global access is checked against the launch's other
// threads (as warpSpan does), the warps of the run told to the Observer
// as one Access (Access.Lanes: the run's threads) where they read bytes
// the launch had all written or none, each full warp's shared load one
// run of the shared checks (sharedRun, as fullLoad does). What those paths do lane by lane goes back to them before
// anything is done: a run with a partial warp, a strong access, a shared
// store with the shared checks on (a store that meets a record it might
// race with is stored lane by lane, see fullStore).

// checked reports whether in's accesses are told to an observer or the
// race checks.
func (m *machine) checked(in *inst) bool {
	switch in.op {
	case opLdGlobal, opStGlobal:
		return m.obs != nil
	case opLdShared, opStShared:
		return m.races != nil
	}
	return false
}

// checkable reports whether the checked access of in (at index pc-1) by
// the threads of act can be told warp by warp (checkWarp): every warp
// with threads in act is full and all in, the access is not strong, and
// it is no shared store. False: nothing was done. locked: it holds the
// launch's atomics lock (a global store with parallel workers, as
// observedFull), for unlockStrong after the stores.
func (m *machine) checkable(in *inst, act *blockMask, pc int) (ok, locked bool) {
	if in.op == opStShared {
		return false, false
	}
	for w, a := range act[:len(m.warps)] {
		if a != 0 && (a != allLanes || len(m.tss[w]) < warpSize) {
			return false, false
		}
	}
	if m.tss[0][0].fn.sites[pc-1]&sfStrong != 0 {
		return false, false
	}
	if in.op == opStGlobal && m.gr != nil && m.gr.g.parallel && m.atomMu != nil {
		m.atomMu.Lock()
		locked = true
	}
	return true, locked
}

// checkWarp tells the observer and the race checks of warp w's access by
// in (at index pc-1), lane j at address addr + j*in.size (shared memory:
// offset off + j*in.size), as warpSpan and fullLoad do; a global access
// extends run, the Access of the run's warps so far, where it can (one
// Access for the whole warps of the run: flushRun tells it).
func (m *machine) checkWarp(run *Access, in *inst, w, pc int, addr, off uint64) {
	if in.op != opLdGlobal && in.op != opStGlobal {
		m.sharedRun(m.tss[w], pc-1, in, in.op, off, uint64(in.size))
		return
	}
	a, mixed := m.checkWarpAccess(m.tss[w], in, pc, addr)
	if mixed != 0 {
		m.flushRun(run)
		m.observeLanesOf(a, m.tss[w], mixed)
		return
	}
	if run.Lanes != 0 && run.Unwritten == a.Unwritten && run.Addr+uint64(run.Size) == a.Addr {
		run.Size += a.Size
		run.Lanes += a.Lanes
		return
	}
	m.flushRun(run)
	*run = a
}

// flushRun tells the observer of run, if any (Lanes 0: none).
func (m *machine) flushRun(run *Access) {
	if run.Lanes != 0 {
		m.obs.Global(*run)
		run.Lanes = 0
	}
}
