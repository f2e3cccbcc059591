package ptxexec

// The checks of an affine run. With an Observer (the stream checks) or
// the in-kernel race checks on, a block program's affine ld or st
// (affineAccess) tells them exactly what the full-warp paths would, warp
// by warp, each before the warp's bytes move (a store that meets an
// unordered earlier write is settled after its own store): each full
// warp's coalesced global access is one Access, checked against the
// launch's other threads (observeWarp, as warpSpan does), each full
// warp's shared load one run of the shared checks (sharedRun, as fullLoad
// does). What those paths do lane by lane goes back to them before
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
// offset off + j*in.size), as warpSpan and fullLoad do.
func (m *machine) checkWarp(in *inst, w, pc int, addr, off uint64) {
	if in.op == opLdGlobal || in.op == opStGlobal {
		m.observeWarp(m.tss[w], in, pc, addr)
		return
	}
	m.sharedRun(m.tss[w], pc-1, in, in.op, off, uint64(in.size))
}
