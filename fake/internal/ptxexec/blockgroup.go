package ptxexec

import "github.com/nocgo/cuda/fake/internal/ptxexec/lanes"

// runGroup is runWhole's counterpart for a group that is not the whole
// block (some threads diverged, exited or wait), or while the uniform
// values have left machine.ur: the straight-line instructions of the
// group at pc (grp; full: every lane of every warp is in it) up to the
// first one that needs more of runBlock's general loop than the group's
// own threads running it. It returns the index of that instruction (not
// run: nothing of it is done), or end true where the general loop would
// end the block (slowLanes stopped at a fault: err is it).
//
// What it runs is what the general loop does for an unguarded
// instruction in this state, the same calls with act = grp: a hoisted
// instruction is skipped, an affine one is affineStep (nothing done when
// it declines), an affine ld or st is plainAffineAccess (affineAccess
// with checks),
// the other pure instructions are runWarps, runFullWarps or per warp
// runFull, lanesPure or slowLanes (which faults as there). It stops at
// stop (the pc of the lowest pending group, where the general loop
// merges it: -1 when none), at a guard, at a uniform instruction while
// uOK (the general loop decides whether the group is the block), at a
// branch, barrier, ret, exit, fence, and at any other ld or st.
func (m *machine) runGroup(pc int, grp *blockMask, full, uOK bool, stop int) (next int, end bool, err error) {
	bp, code, aff := m.bp, m.k.fn.code, m.aff
	for ; pc != stop; pc++ {
		in, mk := &code[pc], bp.marks[pc]
		switch {
		case aff && mk&markFused != 0 && (stop <= pc || bp.fused[pc].end <= stop) && m.runFused(pc, grp, full, uOK):
			pc = bp.fused[pc].end - 1
			continue
		case mk&markHoisted != 0:
			continue
		case uOK && mk&markUniform != 0, in.guard >= 0:
			return pc, false, nil
		case aff && mk&markAffine != 0:
			if !m.affineStep(in, grp, full, uOK) {
				return pc, false, nil
			}
			continue
		}
		if aff && mk&markReadsAff != 0 {
			switch in.op {
			case opLdGlobal, opLdParam, opLdShared, opStGlobal, opStShared:
				if !m.affineLdSt(in, grp, full, pc+1) {
					return pc, false, nil
				}
				continue
			}
			m.operandLanes(in)
		}
		switch in.op {
		case opNop:
		case opBra, opRet, opExit, opBar, opFence, opLdGlobal, opLdParam, opLdShared, opLdLocal, opLdGeneric,
			opStGlobal, opStShared, opStLocal, opStGeneric:
			return pc, false, nil
		default:
			if full && (m.file.N > 0 && runWarps(m.file, in) || runFullWarps(m.soas, in)) {
				continue
			}
			if bp.localDst[pc] && m.spanLanes(in, grp) {
				continue
			}
			for w, a := range grp[:len(m.soas)] {
				if a == 0 {
					continue
				}
				S, ts := m.soas[w], m.tss[w]
				if a == allLanes && runFull(S, in) || m.lanesPure(S, ts, in, a) {
					continue
				}
				if !m.slowLanes(S, ts, in, a, pc+1) {
					return pc, true, m.fault
				}
			}
		}
	}
	return pc, false, nil
}

// spanLanes runs the pure instruction in, whose destination is read
// only right after it is written (blockProgram.localDst), for every lane
// of the warps from the first to the last with threads in grp, through
// runWarps over them (side by side) or runFull warp by warp, and reports
// whether it did (false: in is not one of theirs, nothing done). The
// lanes of grp get what runFull gives them, which is lanesPure's value
// (the per-warp path's); the others get values nothing reads.
func (m *machine) spanLanes(in *inst, grp *blockMask) bool {
	w0, w1, some := activeWarps(grp, len(m.soas))
	if !some {
		return true
	}
	if f := m.file; f.N > 0 {
		sub := lanes.Warps{S: f.S[w0*f.Slots*warpSize:], Slots: f.Slots, N: w1 - w0 + 1}
		if runWarps(sub, in) {
			return true
		}
	}
	if !runFull(m.soas[w0], in) {
		return false // (so it knows no warp's)
	}
	for _, S := range m.soas[w0+1 : w1+1] {
		runFull(S, in)
	}
	return true
}
