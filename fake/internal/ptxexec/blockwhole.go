package ptxexec

// The whole block at once. Most of a block program's instructions run
// while every lane of every warp is at one pc (no thread diverged, none
// exited, none waits) and the block's uniform values are in machine.ur:
// runBlock's general loop then takes the same branch of each of its
// checks every time (the group is the block, no group is pending or
// waiting, every guard lets all threads or none run). runWhole is that
// loop for that state alone: a small function with few live values, each
// instruction going straight to what the general loop would do for it,
// and anything else handed back to the general loop before it has done
// any of it.

// runWhole runs the block program from pc while every lane of every warp
// runs in (runBlock's allFull) and the uniform values are in machine.ur
// (uOK); ulanes are the slots whose uniform values go to the lanes too
// (runBlock's). It returns the index of the first instruction it leaves
// to the general loop (which then runs it: nothing of it is done here
// but, with split true, its guard: act is then the threads it lets run,
// some but not all, as the general loop's guard code would have set
// it), or end true when every thread has run a ret or exit (the block
// is done; err is then the fault of a ld or st that went warp by warp,
// if one faulted).
//
// Each case is the general loop's for this state, which is why the two
// are equal: a hoisted instruction is skipped; a uniform one computed
// once (grp is live); an affine one is affineStep with all (nothing done
// when it declines); a guard that lets every thread or none run is that
// (a predicate form's block mask, a uniform branch's scalar, the lanes'
// predicates); an affine ld or st is plainAffineAccess (act is every
// thread, full), or with checks affineAccess (the general loop's call); a
// branch taken by all jumps (no group is pending); a
// bar.sync completes (every live thread is at it, none waits elsewhere);
// a coalesced ld or st is blockRun's one run, another one goes warp by
// warp through fullLoad or loadLanes (fullStore, storeLanes), to the
// lane that faults; the common arithmetic is runWarps' or runFullWarps'
// call, other pure instructions go warp by warp through lanesPure or
// slowLanes.
func (m *machine) runWhole(pc int, ulanes []bool, act *blockMask) (next, wait int, end, split bool, err error) {
	bp, code, aff := m.bp, m.k.fn.code, m.aff
	soas := m.soas
	all := &allThreads // (every reader of it looks at the block's warps only)
	for ; ; pc++ {
		in, mk := &code[pc], bp.marks[pc]
		switch {
		case aff && mk&markFused != 0 && m.runFused(pc, all, true, true):
			pc = bp.fused[pc].end - 1
			continue
		case mk&markHoisted != 0:
			continue
		case mk&markUniform != 0:
			v := scalar(in, m.ur)
			m.ur[in.d] = v
			if ulanes[in.d] {
				b := broadcast(v)
				for _, S := range soas {
					*lane32(S, in.d) = b
				}
			}
			continue
		case aff && mk&markAffine != 0:
			if !m.affineStep(in, all, true, true) {
				return pc, -1, false, false, nil
			}
			continue
		}
		if in.guard >= 0 {
			run, ok := m.wholeGuard(in, all, act)
			if !ok && in.op == opBra && int(in.imm) > pc+1 {
				// An if without an else: act's threads skip to the
				// target, where the others join them after the code
				// between (as runBlock would run it: runGroup, its
				// group the block's other threads, up to the target).
				t := int(in.imm)
				rest := &m.ifRest
				for w := range soas {
					rest[w] = allLanes &^ act[w]
				}
				next, end, err := m.runGroup(pc+1, rest, false, true, t)
				if end || next != t {
					return next, t, end, false, err // (runBlock goes on from there)
				}
				pc = t - 1
				continue
			}
			if !ok {
				return pc, -1, false, true, nil // some threads run it, some do not
			}
			if !run {
				continue
			}
		}
		if aff && mk&markReadsAff != 0 {
			switch in.op {
			case opLdGlobal, opLdParam, opLdShared, opStGlobal, opStShared:
				if !m.affineLdSt(in, all, true, pc+1) {
					return pc, -1, false, false, nil // (affineAccess, or the lanes)
				}
				continue
			}
			m.operandLanes(in)
		}
		switch in.op {
		case opNop:
		case opBra:
			pc = int(in.imm) - 1
		case opRet, opExit:
			return pc, -1, true, false, nil
		case opBar:
			m.barrierDone()
		case opLdGlobal, opLdParam, opLdShared, opLdLocal, opLdGeneric:
			if run, ok := m.wholeRun(in); ok {
				m.moveRun(m.file, in, true, run)
				continue
			}
			// Warp by warp, as the general loop goes on (not back to
			// it: it would try blockRun again).
			for w, S := range soas {
				if !m.fullLoad(S, in, m.tss[w], pc) && !m.loadLanes(m.tss[w], S, allLanes, in, pc+1) {
					return pc, -1, true, false, m.fault
				}
			}
		case opStGlobal, opStShared, opStLocal, opStGeneric:
			if run, ok := m.wholeRun(in); ok {
				m.moveRun(m.file, in, false, run)
				continue
			}
			for w, S := range soas {
				if !m.fullStore(S, in, m.tss[w], pc) && !m.storeLanes(m.tss[w], S, allLanes, in, pc+1) {
					return pc, -1, true, false, m.fault
				}
			}
		case opFence:
			return pc, -1, false, false, nil
		default:
			if m.file.N > 0 && runWarps(m.file, in) || runFullWarps(soas, in) {
				continue
			}
			for w, S := range soas { // (as the general loop goes on)
				if runFull(S, in) || m.lanesPure(S, m.tss[w], in, allLanes) {
					continue
				}
				if !m.slowLanes(S, m.tss[w], in, allLanes, pc+1) {
					return pc, -1, true, false, m.fault
				}
			}
		}
	}
}

// wholeGuard evaluates in's guard for every thread of the block as
// runBlock's general loop does (a predicate form's block mask, a uniform
// predicate of a branch, or the lanes' predicates, materialised first
// when the guard has a form) into act, the threads it lets run: run
// tells whether every thread runs in (true) or none does (false); ok is
// false when only some do (act is theirs; with ok true, act may be left
// as it was).
func (m *machine) wholeGuard(in *inst, all, act *blockMask) (run, ok bool) {
	g, neg := in.guard, in.flags&fGuardNeg != 0
	aff := m.aff
	if aff && m.bp.fidx[g] >= 0 && m.guardMask(g, neg, all, act) {
		return wholeOrNone(act, len(m.soas))
	}
	if in.op == opBra && m.bp.uslot[g] {
		return (m.ur[g] != 0) != neg, true // (all or none: act is not read)
	}
	if aff && m.bp.fidx[g] >= 0 {
		m.materialise(g)
	}
	for w, S := range m.soas {
		act[w] = fullGuard(lane32(S, g), neg)
	}
	return wholeOrNone(act, len(m.soas))
}

// wholeOrNone reports whether act's first nw warps are all full (run
// true) or all empty (run false); ok false: neither.
func wholeOrNone(act *blockMask, nw int) (run, ok bool) {
	var or uint32
	and := uint32(allLanes)
	for w := range nw {
		or |= act[w]
		and &= act[w]
	}
	switch {
	case and == allLanes:
		return true, true
	case or == 0:
		return false, true
	}
	return false, false
}

// wholeRun is blockRun where the warps' registers lie side by side
// (m.file; ok false otherwise), as the general loop calls it.
func (m *machine) wholeRun(in *inst) (run []byte, ok bool) {
	if m.file.N == 0 {
		return nil, false
	}
	return m.blockRun(in)
}
