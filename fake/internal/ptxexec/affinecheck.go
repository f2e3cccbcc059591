package ptxexec

import "math/bits"

// The checks of an affine run. With an Observer (the stream checks) or
// the in-kernel race checks on, a block program's affine ld or st
// (affineAccess) tells them what the full-warp paths would, warp by warp,
// each before the warp's bytes move (a store that meets an unordered
// earlier write is settled after its own store): each full warp's
// coalesced global access is checked against the launch's other threads
// (as warpSpan does; all the run's warps under one lock before any of its
// bytes move, checkGlobalRun), the warps of the run told to the Observer as one
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
// the threads of act can be told warp by warp (checkGlobalRun,
// checkShared): for a global
// access every warp with threads in act is full and all in, for a shared
// one each warp's threads in act are consecutive lanes; and the access
// is not strong. False: nothing was done. locked: it holds the launch's
// atomics lock (lockStore), for unlockStrong after the stores.
func (m *machine) checkable(in *inst, act *blockMask, pc int) (ok, locked bool) {
	if !m.checkableRun(in, act, pc) {
		return false, false
	}
	return true, m.lockStore(in)
}

// checkableRun is checkable without its lock: whether the access can be
// told warp by warp (nothing is taken).
func (m *machine) checkableRun(in *inst, act *blockMask, pc int) bool {
	global := in.op == opLdGlobal || in.op == opStGlobal
	for w, a := range act[:len(m.warps)] {
		switch {
		case a == 0:
		case global && (a != allLanes || len(m.tss[w]) < warpSize):
			return false
		case !global && a>>bits.TrailingZeros32(a)&(a>>bits.TrailingZeros32(a)+1) != 0:
			return false // not one run of lanes
		}
	}
	return m.tss[0][0].fn.sites[pc-1]&sfStrong == 0
}

// checkShared tells the shared-memory checks of warp w's lanes a of the
// shared access by in (at index pc-1), lane j at offset off + j*in.size
// in data, as fullLoad and fullStore do: one sharedRun. stored: a store
// met a record it might race with and was checked and stored lane by
// lane, as storeLanes does.
func (m *machine) checkShared(in *inst, w int, a uint32, pc int, off uint64, data []byte) (stored bool) {
	ts := m.tss[w]
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

// checkGlobalRun tells the observer and the global checks of the affine
// global run of in (the instruction before pc) by the threads of act,
// every warp with threads in it full (checkable), thread t's bytes at
// addr + t*in.size: what checkWarpAccess of each warp in turn, before
// its bytes move, tells (as warpSpan does), with the instruction's
// Access made once and the warps checked under one lock
// (globalWarpLocked) before any of the run's bytes move. That is the
// same: the run's threads touch bytes of their own, so no warp's check
// meets another's bytes of this run, and a store's held writes settle at
// the next access, after the store, as they do after a warp's. The
// observer is told after the lock is released, as checkWarpAccess's
// caller tells it.
func (m *machine) checkGlobalRun(in *inst, act *blockMask, pc int, addr uint64) {
	size := uint64(in.size)
	var unw [maxWarps]uint32
	if m.gr != nil {
		if len(m.gr.held) != 0 {
			m.settleGlobal()
		}
		g := m.gr.g
		g.lock()
		var done [maxWarps]bool
		if m.tss[0][0].fn.sites[pc-1]&sfRelease == 0 && !m.gr.fenced && addr/4%segWords == 0 {
			m.segRuns(in, pc, addr, size, act, &done, &unw) // (nothing released: whole segments)
		}
		for w, a := range act[:len(m.warps)] {
			if a != 0 && !done[w] {
				unw[w] = m.globalWarpLocked(m.tss[w], in, pc, addr+size*uint64(warpSize*w), size)
			}
		}
		g.unlock()
	}
	// The run of whole warps so far: n warps from warp first, their
	// Unwritten u; acc, the instruction's Access, is made once.
	var acc Access
	first, n, u := 0, 0, false
	flush := func() {
		if n > 0 {
			a := acc
			a.Addr, a.Thread = addr+size*uint64(warpSize*first), m.tss[first][0].idx
			a.Size, a.Lanes, a.Unwritten = a.Size*uint32(n), a.Lanes*uint32(n), u
			m.obs.Global(a)
			n = 0
		}
	}
	for w, a := range act[:len(m.warps)] {
		if a == 0 {
			continue
		}
		if acc.Lanes == 0 {
			acc = m.warpAccess(m.tss[w], in, pc, addr+size*uint64(warpSize*w))
		}
		mixed := uint32(0)
		if m.gr != nil && acc.Kind != Write { // a write reads nothing
			mixed = unw[w]
		}
		switch {
		case mixed != 0 && mixed != allLanes:
			flush()
			a := acc
			a.Addr, a.Thread = addr+size*uint64(warpSize*w), m.tss[w][0].idx
			m.observeLanesOf(a, m.tss[w], mixed)
		case n > 0 && first+n == w && u == (mixed != 0):
			n++
		default:
			flush()
			first, n, u = w, 1, mixed != 0
		}
	}
	flush()
}
