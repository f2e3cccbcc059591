package ptxexec

import "math/bits"

// The checks of an affine run. With an Observer (the stream checks) or
// the in-kernel race checks on, a block program's affine ld or st
// (affineAccess) tells them what the full-warp paths would, warp by warp,
// each before the warp's bytes move (a store that meets an unordered
// earlier write is settled after its own store): each full warp's
// coalesced global access is checked against the launch's other threads
// (as warpSpan does), the warps of the run told to the Observer as one
// Access (Access.Lanes: the run's threads) where they read bytes the
// launch had all written or none; each warp's run of lanes in shared
// memory is one run of the shared checks (sharedRun, as fullLoad and
// fullStore do), a store that meets a record it might race with checked
// and stored lane by lane. What the lane paths do otherwise goes back to
// them before anything is done: a global run with a partial warp, a
// shared one whose lanes in a warp are not one run, a strong access.

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
// the threads of act can be told warp by warp (checkWarp): for a global
// access every warp with threads in act is full and all in, for a shared
// one each warp's threads in act are consecutive lanes; and the access
// is not strong. False: nothing was done. locked: it holds the launch's
// atomics lock (lockStore), for unlockStrong after the stores.
func (m *machine) checkable(in *inst, act *blockMask, pc int) (ok, locked bool) {
	global := in.op == opLdGlobal || in.op == opStGlobal
	for w, a := range act[:len(m.warps)] {
		switch {
		case a == 0:
		case global && (a != allLanes || len(m.tss[w]) < warpSize):
			return false, false
		case !global && a>>bits.TrailingZeros32(a)&(a>>bits.TrailingZeros32(a)+1) != 0:
			return false, false // not one run of lanes
		}
	}
	if m.tss[0][0].fn.sites[pc-1]&sfStrong != 0 {
		return false, false
	}
	return true, m.lockStore(in)
}

// checkWarp tells the observer and the race checks of warp w's access by
// in (at index pc-1), lane j at address addr + j*in.size (shared memory:
// offset off + j*in.size in data), as warpSpan, fullLoad and fullStore
// do; a global access extends run, the Access of the run's warps so far,
// where it can (one Access for the whole warps of the run: flushRun tells
// it). stored: a shared store met a record it might race with and was
// checked and stored lane by lane, as storeLanes does.
func (m *machine) checkWarp(run *Access, in *inst, w int, a uint32, pc int, addr, off uint64, data []byte) (stored bool) {
	ts := m.tss[w]
	if in.op == opLdShared || in.op == opStShared {
		lo, hi := bits.TrailingZeros32(a), 32-bits.LeadingZeros32(a)
		size := uint64(in.size)
		if m.sharedRun(ts[lo:hi], pc-1, in, in.op, off+size*uint64(lo), size) || in.op == opLdShared {
			return false
		}
		rv := lane32(m.soas[w], in.v[0])
		for j := lo; j < hi; j++ {
			t := &ts[j]
			t.pc = pc
			o := off + size*uint64(j)
			m.sharedAccess(t, in, in.op, o, size)
			store(data[o:], in.size, rv[j])
		}
		return true
	}
	acc, mixed := m.checkWarpAccess(ts, in, pc, addr)
	if mixed != 0 {
		m.flushRun(run)
		m.observeLanesOf(acc, ts, mixed)
		return false
	}
	if run.Lanes != 0 && run.Unwritten == acc.Unwritten && run.Addr+uint64(run.Size) == acc.Addr {
		run.Size += acc.Size
		run.Lanes += acc.Lanes
		return false
	}
	m.flushRun(run)
	*run = acc
	return false
}

// flushRun tells the observer of run, if any (Lanes 0: none).
func (m *machine) flushRun(run *Access) {
	if run.Lanes != 0 {
		m.obs.Global(*run)
		run.Lanes = 0
	}
}
