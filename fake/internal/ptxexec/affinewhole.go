package ptxexec

import "math"

// wholeAffineAccess is affineAccess for a block of full warps side by
// side (m.file) whose every lane runs in (no guard took one off, no lane
// diverged), without an Observer or race checks on its space: a scalar 4-
// or 8-byte ld or st whose address slot has a form of stride size is one
// run of len(m.threads)*size bytes from thread 0's address, moved in one
// call of package lanes. It reports whether it did (false: nothing done,
// and affineAccess or the lane paths run).
//
// It is affineAccess's own whole-block branch with what the caller
// knows taken as given: the active threads are 0..n-1 (t0 = 0, t1 = n-1,
// every warp full), and checked is false, so affineAccess would find the
// same run, check the same first and last address against the same span
// and move the same bytes.
func (m *machine) wholeAffineAccess(in *inst, all *blockMask) bool {
	if m.file.N == 0 || len(m.threads) != warpSize*m.file.N || in.vec != 1 || in.size != 4 && in.size != 8 || in.v[0] == sSink || m.checked(in) {
		return false
	}
	base, stride, mask, ok := m.operand(in.a, all, true)
	size := uint64(in.size)
	if !ok || stride != size || mask != math.MaxUint64 {
		return false
	}
	n := uint64(len(m.threads))
	a0 := base
	a1 := a0 + stride*(n-1)
	data, start, lim, amask, ok := m.spanAt(in, a0)
	if !ok || a1 < a0 {
		return false
	}
	off0, off1 := a0-start, a1-start
	if off0 > off1 || off1 > lim || (a0+uint64(in.imm))&amask != 0 {
		return false
	}
	run := data[off0 : off0+n*size]
	switch {
	case in.op == opStGlobal || in.op == opStShared:
		m.materialise(in.v[0]) // (a no-op unless the value has a form)
		if size == 4 {
			m.file.Store32(run, in.v[0])
		} else {
			m.file.Store64(run, in.v[0])
		}
	case size == 4:
		m.file.Load32(in.v[0], run)
	default:
		m.file.Load64(in.v[0], run)
	}
	return true
}
