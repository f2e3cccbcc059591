package ptxexec

import (
	"math"
	"slices"

	"github.com/nocgo/cuda/fake/internal/fpu"
	"github.com/nocgo/cuda/fake/internal/ptxexec/lanes"
)

// Running a block program (compile.go). The block's threads run together,
// instruction after instruction, over all its warps at once: one dispatch
// of an instruction for the whole block, each warp's 32 lanes of it in
// the warp's register layout of lockstep.go (a full warp's common
// instructions through runFull, fullLoad and fullStore; other lanes
// through the same per-lane code as lockstep, so results and faults are
// the lockstep path's; the warps' registers lie side by side, m.file, so
// that runWarps and blockRun do the common instructions and coalesced
// accesses of a whole block of full warps in one call of package lanes).
// Lanes that diverge keep their own pc in a group
// that waits (blockGroup): the group with the lowest pc runs first and
// groups join where their pcs meet, as in lockstep, only block-wide. A
// bar.sync reached by every live thread of the block at once is a
// boundary between two regions of the code, not a pass of the scheduler;
// threads that reach one while others still run wait until no thread
// runs (the program's barriers are the one barrier number, without a
// thread count: all live threads take part), then go on.
//
// The warps run each instruction in turn, so a store follows the loads
// of every warp that precede it in the code: what a GPU's warps, leaving
// a barrier together, do (storepause.go gets the same from warp-by-warp
// runs). A fault is that of the first thread, in this order, that
// faults.

// blockMask holds one bit per thread of a block: warp w's lane j at bit j
// of word w.
type blockMask [maxWarps]uint32

// maxWarps is the most warps a block has (1024 threads).
const maxWarps = 1024 / warpSize

// blockGroup is a group of a block's threads at one pc.
type blockGroup struct {
	pc   int
	mask blockMask
}

// pushGroup adds the threads of mask, at pc, to the sorted groups gs,
// joining the group already at pc.
func pushGroup(gs []blockGroup, pc int, mask *blockMask, nw int) []blockGroup {
	i := 0
	for i < len(gs) && gs[i].pc < pc {
		i++
	}
	if i < len(gs) && gs[i].pc == pc {
		for w := range nw {
			gs[i].mask[w] |= mask[w]
		}
		return gs
	}
	gs = append(gs, blockGroup{})
	copy(gs[i+1:], gs[i:])
	gs[i] = blockGroup{pc: pc, mask: *mask}
	return gs
}

// hoist runs the program's block-invariant instructions for every thread
// (once per machine: their results stay in the warps' registers).
func (m *machine) hoist(live *blockMask) {
	code := m.k.fn.code
	all := true // every lane of every warp
	for w := range m.warps {
		all = all && live[w] == allLanes
	}
	for pc, h := range m.bp.hoisted {
		if !h {
			continue
		}
		in := &code[pc]
		if m.bp.uniform[pc] {
			m.ur[in.d] = scalar(in, m.ur)
		}
		for w := range m.warps {
			S, ts := m.warps[w].soa, m.warpThreads(w)
			if live[w] == allLanes && runFull(S, in) {
				continue
			}
			m.lanesPure(S, ts, in, live[w])
		}
		if m.aff && m.bp.affine[pc] && m.affineStep(in, live, all, true) {
			m.forms[m.bp.fidx[in.d]].mat = true // (the lanes hold it too)
		}
	}
}

// warpThreads returns the threads of warp w.
func (m *machine) warpThreads(w int) []thread {
	lo := w * warpSize
	return m.threads[lo:min(lo+warpSize, len(m.threads))]
}

// runBlock runs the machine's current block (started by startBlock) on
// the block program m.bp to its end. It returns nil or the fault.
func (m *machine) runBlock() error {
	code := m.k.fn.code
	hoisted := m.bp.hoisted
	nw := len(m.warps)
	var live blockMask
	if len(m.soas) != nw {
		m.soas, m.tss = make([][]uint64, nw), make([][]thread, nw)
		ns := m.k.fn.nslots
		m.file = lanes.Warps{S: m.soaFile, Slots: ns, N: nw}
		for w := range nw {
			m.tss[w], m.soas[w] = m.warpThreads(w), m.warps[w].soa
			if len(m.soaFile) < nw*ns*warpSize || len(m.soas[w]) == 0 || &m.soas[w][0] != &m.soaFile[w*ns*warpSize] {
				m.file.N = 0 // not side by side: one call per warp
			}
		}
	}
	soas, tss := m.soas, m.tss // each warp's registers and threads
	for w := range nw {
		live[w] = uint32(uint64(1)<<len(tss[w]) - 1)
		m.warps[w].fresh = false
	}
	bp := m.bp
	if !m.hoisted {
		m.ur = slices.Clone(m.tmpl)
		m.aff = m.affOn()
		if m.aff {
			m.forms, m.okind = make([]form, bp.nforms), bp.okind
		}
		m.hoist(&live)
		m.hoisted = true
	}
	aff := m.aff
	// ulanes: the uniform slots whose values go to the warps' registers
	// too; scalarOnly: the others, written to them when uniform values
	// leave machine.ur. With forms kept, the reads of affine
	// instructions need no lanes (uniformSourceLanes when one falls back).
	ulanes, scalarOnly := bp.lanes, bp.scalarOnly
	if aff {
		ulanes, scalarOnly = bp.uniformLanes, bp.affScalarOnly
	}
	if aff {
		for _, i := range bp.reset {
			m.forms[i].ok = false
		}
	}
	for _, a := range m.k.fn.blockSlots {
		m.ur[a.slot] = m.tmpl[a.special]
	}
	// uOK: every uniform instruction so far ran for all live threads at
	// once, so m.ur holds the value each of them has.
	uOK := true
	grp := live
	pc := 0
	// allFull: every lane of every warp is in grp.
	isFull := func() bool {
		for w := range nw {
			if grp[w] != allLanes {
				return false
			}
		}
		return true
	}
	allFull := isFull()
	pend := m.pend[:0]    // groups of running threads at other pcs
	waiting := m.wait[:0] // groups of threads waiting at a barrier
	// done keeps the groups' arrays for the next block and returns err
	// (no defer: runBlock has too many returns for an open-coded one,
	// and a deferred call costs a block more than this).
	done := func(err error) error {
		m.pend, m.wait = pend[:0], waiting[:0]
		return err
	}
	// next makes the lowest pending group the running one, after the
	// barrier completes when none runs; false: every thread exited.
	next := func() bool {
		if len(pend) == 0 {
			if len(waiting) == 0 {
				return false
			}
			pend, waiting = waiting, pend[:0]
			m.barrierDone()
		}
		grp, pc = pend[0].mask, pend[0].pc
		pend = pend[:copy(pend, pend[1:])]
		allFull = isFull()
		return true
	}
	var act blockMask
	for {
		if len(pend) > 0 && pend[0].pc == pc {
			for w := range nw {
				grp[w] |= pend[0].mask[w]
			}
			pend = pend[:copy(pend, pend[1:])]
			allFull = isFull()
		}
		split := false // runWhole set act to the threads in's guard lets run: some, not all
		if allFull && uOK {
			// Every thread at pc, none pending or waiting: runWhole's
			// state, up to what it leaves to the loop below.
			next, wait, end, s, err := m.runWhole(pc, ulanes, &act)
			if end {
				return done(err)
			}
			if wait >= 0 {
				// act's threads wait at wait, the others run on from next.
				for w := range nw {
					grp[w] &^= act[w]
				}
				allFull = false
				pend = pushGroup(pend, wait, &act, nw)
				pc = next
				continue
			}
			pc, split = next, s
		} else {
			// A group of the block, or uniform values in the lanes: the
			// straight-line code that runGroup knows, then the loop below.
			stop := -1
			if len(pend) > 0 {
				stop = pend[0].pc
			}
			next, end, err := m.runGroup(pc, &grp, allFull, uOK, stop)
			if end {
				return done(err)
			}
			if next != pc {
				pc = next
				continue // (a pending group may join here)
			}
		}
		in := &code[pc]
		pc++
		some, whole := false, true
		full := allFull // every lane of every warp runs in
		if split {
			some, whole, full = true, false, false
			goto guarded
		}
		if hoisted[pc-1] {
			continue
		}
		if uOK && bp.uniform[pc-1] {
			if grp == live {
				v := scalar(in, m.ur)
				m.ur[in.d] = v
				if ulanes[in.d] {
					b := broadcast(v) // once, not once a warp
					for w := range nw {
						*lane32(soas[w], in.d) = b
					}
				}
				continue
			}
			// Some threads run it without the others: from here on the
			// block's uniform values live in the warps' registers.
			uOK = false
			m.blockSlotLanes()
			for _, s := range scalarOnly {
				b := broadcast(m.ur[s])
				for w := range nw {
					*lane32(soas[w], s) = b
				}
			}
		}
		if aff && bp.affine[pc-1] {
			if m.affineStep(in, &grp, allFull, uOK) {
				continue
			}
			m.dropForm(in.d) // it runs on lanes
			if uOK {
				m.blockSlotLanes()
				m.uniformSourceLanes(in)
			}
		}
		if g := in.guard; g >= 0 && aff && bp.fidx[g] >= 0 && m.guardMask(g, in.flags&fGuardNeg != 0, &grp, &act) {
			// A guard with a predicate form: a block mask, no lanes read.
			for w := range nw {
				some = some || act[w] != 0
				whole = whole && act[w] == grp[w]
			}
			if !some {
				continue
			}
			full = full && whole
		} else if g := in.guard; g >= 0 && in.op == opBra && uOK && bp.uslot[g] {
			// A branch on a uniform predicate: all of the group or none.
			if (m.ur[g] != 0) == (in.flags&fGuardNeg != 0) {
				continue
			}
			act = grp
		} else if g >= 0 {
			if aff && bp.fidx[g] >= 0 {
				m.materialise(g)
			}
			neg := in.flags&fGuardNeg != 0
			for w := range nw {
				a := grp[w]
				if a != 0 {
					a &= fullGuard(lane32(soas[w], g), neg)
				}
				act[w] = a
				some = some || a != 0
				whole = whole && a == grp[w]
			}
			if !some {
				continue
			}
			full = full && whole
		} else {
			act = grp
		}
	guarded:
		if aff && bp.readsAff[pc-1] {
			switch in.op {
			case opLdGlobal, opLdParam, opLdShared, opStGlobal, opStShared:
				if m.affineLdSt(in, &act, full, pc) {
					continue
				}
			}
			m.operandLanes(in)
		}
		switch in.op {
		case opNop:
		case opFence:
			for w := range nw {
				m.fenceLanes(tss[w], act[w], pc)
			}
		case opBra:
			target := int(in.imm)
			if whole {
				pc = target
				if len(pend) > 0 && pc > pend[0].pc {
					pend = pushGroup(pend, pc, &grp, nw)
					next()
				}
				continue
			}
			for w := range nw {
				grp[w] &^= act[w]
			}
			allFull = false
			pend = pushGroup(pend, target, &act, nw)
			if pend[0].pc < pc {
				pend = pushGroup(pend, pc, &grp, nw)
				next()
			}
		case opRet, opExit:
			empty := true
			for w := range nw {
				live[w] &^= act[w]
				grp[w] &^= act[w]
				empty = empty && grp[w] == 0
			}
			allFull = false
			if empty && !next() {
				return done(nil)
			}
		case opBar:
			if whole && len(pend) == 0 && len(waiting) == 0 && grp == live {
				m.barrierDone() // every live thread is here: the barrier completes
				continue
			}
			empty := true
			for w := range nw {
				grp[w] &^= act[w]
				empty = empty && grp[w] == 0
			}
			allFull = false
			waiting = pushGroup(waiting, pc, &act, nw)
			if empty && !next() {
				return done(nil)
			}
		case opLdGlobal, opLdParam, opLdShared, opLdLocal, opLdGeneric:
			if full && m.file.N > 0 {
				if run, ok := m.blockRun(in); ok {
					m.moveRun(m.file, in, true, run)
					continue
				}
			}
			for w := range nw {
				if a := act[w]; a != 0 {
					S, ts := soas[w], tss[w]
					if a == allLanes && m.fullLoad(S, in, ts, pc-1) {
						continue
					}
					if !m.loadLanes(ts, S, a, in, pc) {
						return done(m.fault)
					}
				}
			}
		case opStGlobal, opStShared, opStLocal, opStGeneric:
			if full && m.file.N > 0 {
				if run, ok := m.blockRun(in); ok {
					m.moveRun(m.file, in, false, run)
					continue
				}
			}
			for w := range nw {
				if a := act[w]; a != 0 {
					S, ts := soas[w], tss[w]
					if a == allLanes && m.fullStore(S, in, ts, pc-1) {
						continue
					}
					if !m.storeLanes(ts, S, a, in, pc) {
						return done(m.fault)
					}
				}
			}
		default:
			if full && (m.file.N > 0 && runWarps(m.file, in) || runFullWarps(soas, in)) {
				continue
			}
			for w := range nw {
				a := act[w]
				if a == 0 {
					continue
				}
				S, ts := soas[w], tss[w]
				if a == allLanes && runFull(S, in) || m.lanesPure(S, ts, in, a) {
					continue
				}
				if !m.slowLanes(S, ts, in, a, pc) {
					return done(m.fault)
				}
			}
		}
	}
}

// barrierDone completes the block's barrier: a new phase for the race
// checks, as releaseBarriers does.
func (m *machine) barrierDone() {
	m.phase++
	if m.races != nil {
		m.races.phase++
	}
	if m.gr != nil {
		m.gr.barrier()
	}
}

// blockRun returns the bytes a scalar 4- or 8-byte ld or st of in reads
// or writes for every lane of the block's warps (m.file, all full) when
// their addresses are one coalesced run (lanes.Warps.Consecutive) inside
// fullSpan's span, aligned: warp w's lanes are run[32*w*in.size:]. One
// span and bounds check for the block instead of one a warp; ok false
// (nothing done) otherwise, or with an Observer or the shared checks on,
// and the warps go one by one as fullLoad and fullStore do, to the lane
// that faults.
func (m *machine) blockRun(in *inst) (run []byte, ok bool) {
	if in.size != 4 && in.size != 8 || m.obs != nil || m.races != nil {
		return nil, false // (the warps go one by one, telling them)
	}
	data, start, lim, amask, ok := m.fullSpan(m.soas[0], in)
	if !ok || !m.file.Consecutive(in.a, uint64(in.size)) {
		return nil, false
	}
	step, n := uint64(in.size), uint64(m.file.N)*warpSize
	a0 := m.soas[0][int(in.a)*warpSize]
	off := a0 - start
	last := off + (n-1)*step // the last lane's offset
	if off > last || last > lim || (a0+uint64(in.imm))&amask != 0 {
		return nil, false
	}
	return data[off : off+n*step], true
}

// runFullWarps runs in for every lane of the warps whose registers are
// soas when runFull knows it, and reports whether it did: one dispatch
// for the block, the most frequent instructions straight to package
// lanes.
func runFullWarps(soas [][]uint64, in *inst) bool {
	d, a, b, c := in.d, in.a, in.b, in.c
	switch {
	case in.op == opMov || in.op == opAddImm:
		imm := uint64(0)
		if in.op == opAddImm {
			imm = uint64(in.imm)
		}
		for _, S := range soas {
			lanes.AddImm(lane32(S, d), lane32(S, a), imm, in.mask)
		}
	case in.op == opAddI:
		for _, S := range soas {
			lanes.Add(lane32(S, d), lane32(S, a), lane32(S, b), in.mask)
		}
	case in.op == opMulWideS && in.bits == 32:
		for _, S := range soas {
			lanes.MulWideS32(lane32(S, d), lane32(S, a), lane32(S, b))
		}
	case (in.op == opMadLo || in.op == opMadWideU) && in.bits <= 32:
		for _, S := range soas {
			lanes.MadLo32(lane32(S, d), lane32(S, a), lane32(S, b), lane32(S, c), in.mask)
		}
	default:
		if !runFull(soas[0], in) {
			return false
		}
		for _, S := range soas[1:] {
			runFull(S, in)
		}
	}
	return true
}

// runWarps runs in for every lane of the warps of f, in one call of
// package lanes, when it is one of runFull's instructions that lanes.Warps
// knows, and reports whether it did (false: it changed nothing). Its
// results are runFull's for each warp.
func runWarps(f lanes.Warps, in *inst) bool {
	d, a, b, c := in.d, in.a, in.b, in.c
	switch in.op {
	case opAddI:
		f.Add(d, a, b, in.mask)
	case opSubI:
		f.Sub(d, a, b, in.mask)
	case opAnd:
		f.And(d, a, b)
	case opOr:
		f.Or(d, a, b)
	case opXor:
		f.Xor(d, a, b)
	case opMulLo, opMulWideU:
		if in.bits > 32 {
			return false
		}
		f.MulLo32(d, a, b, in.mask)
	case opMadLo, opMadWideU:
		if in.bits > 32 {
			return false
		}
		f.MadLo32(d, a, b, c, in.mask)
	case opMulWideS:
		if in.bits != 32 {
			return false
		}
		f.MulWideS32(d, a, b)
	case opMadWideS:
		if in.bits != 32 || in.mask != math.MaxUint64 {
			return false
		}
		f.MadWideS32(d, a, b, c)
	case opAddF32, opMulF32, opFmaF32:
		if in.flags&(fFTZ|fSat) != 0 || fpu.Rounding(in.mode) != fpu.Nearest {
			return false
		}
		switch in.op {
		case opAddF32:
			f.AddF32(d, a, b)
		case opMulF32:
			f.MulF32(d, a, b)
		default:
			f.FmaF32(d, a, b, c)
		}
	case opSetpI:
		return warpsLess(f, in)
	default:
		return false
	}
	return true
}

// warpsLess runs an integer setp's ordered comparison (as fullSetpI does)
// over the warps of f, and reports whether it did.
func warpsLess(f lanes.Warps, in *inst) bool {
	mode := int(in.mode)
	if in.k2 != 0 || in.v[0] >= 0 || mode != cmpLT && mode != cmpGE && mode != cmpGT && mode != cmpLE {
		return false
	}
	flip := b2u(mode == cmpGE || mode == cmpLE)
	x, y := in.a, in.b
	if mode == cmpGT || mode == cmpLE {
		x, y = y, x
	}
	switch {
	case in.kind == kS && in.bits == 32:
		f.LessS32(in.d, x, y, flip)
	case in.kind == kS && in.bits == 64:
		f.LessS64(in.d, x, y, flip)
	case in.kind == kS:
		return false
	default:
		f.LessU64(in.d, x, y, flip)
	}
	return true
}

// broadcast returns 32 lanes of v.
func broadcast(v uint64) (b [warpSize]uint64) {
	for j := range b {
		b[j] = v
	}
	return b
}

// scalar computes a uniform instruction (a hoistable one: see
// hoistable) of the scalar registers r, as run does for one thread.
func scalar(in *inst, r []uint64) uint64 {
	a, b, c := r[in.a], r[in.b], r[in.c]
	switch in.op {
	case opMov:
		return a & in.mask
	case opAddImm:
		return (a + uint64(in.imm)) & in.mask
	case opAddI:
		return (a + b) & in.mask
	case opSubI:
		return (a - b) & in.mask
	case opMulLo, opMulWideU:
		return a * b & in.mask
	case opMadLo, opMadWideU:
		return (a*b + c) & in.mask
	case opMulWideS:
		return uint64(sx(a, in.bits)*sx(b, in.bits)) & in.mask
	case opMadWideS:
		return (uint64(sx(a, in.bits)*sx(b, in.bits)) + c) & in.mask
	case opAnd:
		return a & b
	case opOr:
		return a | b
	case opXor:
		return a ^ b
	case opNot:
		return ^a & in.mask
	case opShl:
		if s := uint32(b); s < uint32(in.bits) {
			return a << s & in.mask
		}
		return 0
	case opShrU:
		if s := uint32(b); s < 64 {
			return a >> s
		}
		return 0
	case opShrS:
		return uint64(sx(a, in.bits)>>min(uint32(b), 63)) & in.mask
	case opSelp:
		if c != 0 {
			return a
		}
		return b
	case opSetpI:
		if in.kind == kS {
			return b2u(cmpSigned(int(in.mode), sx(a, in.bits), sx(b, in.bits)))
		}
		return b2u(cmpUnsigned(int(in.mode), a, b))
	}
	panic("ptxexec: scalar of an instruction that is not uniform")
}
