package ptxexec

import (
	"math"
	"math/bits"
	"slices"
)

// Values affine in the thread index. In a launch whose block is 1-D,
// %tid.x is thread t's index t, and much of a kernel's integer code (the
// global index, byte offsets, addresses) computes, for every thread,
// (base + stride*t) & mask with base and stride the same for the whole
// block. translate marks the instructions that keep that form
// (findAffine): runBlock then computes base and stride once for the
// block (affineStep) instead of 32 lanes a warp, and the consumers that
// know the form read it as is:
//   - ld and st of an affine address with stride == size: one coalesced
//     run for all the block's active threads, checked from the first and
//     last thread's address (affineAccess): no scan of the lanes'
//     addresses, and a partial warp (a prefix, as a reduction tree's
//     last steps have) is copied without lane-by-lane checks;
//   - setp of two affine values: the threads whose predicate is true
//     are one range of t (or all but one thread), a block mask from two
//     scalars (predRange); a guard or branch on it needs no look at lanes.
//
// Everything else reads the warps' registers: a slot whose form is
// known is materialised (its lanes written, base + stride*t) the first
// time such an instruction reads it (operandLanes). A form is kept only
// where it is exact: mul.wide, cvt and setp of a 32-bit value check, from
// base, stride and the block's thread count, that no thread's value
// wraps across the sign (or zero) boundary; when it would, or a source
// has no form for the running threads, the instruction runs on lanes
// as before. Faults are unchanged: an affine access that may leave its
// allocation (or misaligns) materialises its address and takes the lane
// path, which stops at the faulting lane. With an Observer or race
// checks on, an affine run tells them, warp by warp, what the full-warp
// paths would (affinecheck.go), or goes back to the lanes.

// affineProgram is findAffine's part of a blockProgram.
type affineProgram struct {
	// affine marks the instructions whose result keeps the affine form:
	// mov, add, sub, mul.lo, mad.lo, mul.wide, mad.wide, shl (by a
	// block-uniform amount), integer cvt, and setp (a predicate form), unguarded,
	// their destination written by no other instruction, their sources
	// uniform slots, %tid.x or affine results.
	affine []bool
	// readsAff marks the instructions that read a slot with a form (the
	// guard included): before they read lanes, runBlock materialises it.
	readsAff []bool
	// fidx is each slot's index in machine.forms, or -1 (no form).
	fidx []int32
	// okind is what operand finds for each slot, in one table: fidx
	// where it is >= 0, else okUniform (a uniform slot), okTidX (%tid.x)
	// or okNone.
	okind []int32
	// tidX marks %tid.x and the registers preloaded with it.
	tidX []bool
	// nforms counts the form slots; reset lists the forms written by
	// instructions that are not hoisted (forgotten at each block start).
	nforms int
	reset  []int32
	// laneBlock are the block's own slots (function.blockSlots) that
	// some instruction reads from the warps' registers; the others
	// (read only by uniform and affine instructions, from machine.ur)
	// get lanes only when the block falls back (blockSlotLanes).
	laneBlock []alias
	// local marks the form slots that a thread reads only right after it
	// has run their writer (straightReads): the values of the threads
	// that did not run it this time are never read, so a new form need
	// not write them to the lanes first.
	local []bool
	// uniformLanes marks the slots that some instruction reads from the
	// warps' registers while forms are kept (bp.lanes without
	// the reads of affine instructions, which read machine.ur); affScalarOnly
	// lists the other uniform slots that instructions write (bp.scalarOnly
	// while forms are kept). An affine instruction that falls back to
	// the lanes gets its uniform sources' lanes first (uniformSourceLanes).
	uniformLanes  []bool
	affScalarOnly []int32
}

// form is an affine value of a slot for the threads of dom: thread t's
// value (base + stride*t) & mask, or, for a predicate, whether t lies in
// lo..hi-1, inverted when flip is all ones (predRange's range: the
// threads' bits are made only where a guard or the lanes need them).
// mat: the warps' registers already hold it for dom; all: dom is every
// lane of every warp (no need to look at it).
type form struct {
	ok, mat, pred, all bool
	base, stride       uint64
	mask               uint64
	lo, hi             int32
	flip               uint32
	dom                blockMask
}

// findAffine sets bp.affineProgram (after findUniform: uniform slots
// are affine sources of stride 0); only is straightReads'.
func (bp *blockProgram) findAffine(f *function, writes []int, only []bool) {
	code := f.code
	a := &bp.affineProgram
	a.affine, a.readsAff = make([]bool, len(code)), make([]bool, len(code))
	a.tidX = make([]bool, f.nslots)
	a.tidX[sTidX] = true
	for _, al := range f.aliases {
		if al.special == sTidX {
			a.tidX[al.slot] = true
		}
	}
	aslot := make([]bool, f.nslots)
	src := func(s int32) bool { return s >= 0 && int(s) < len(aslot) && (bp.uslot[s] || aslot[s] || a.tidX[s]) }
	for changed := true; changed; {
		changed = false
		for i := range code {
			in := &code[i]
			if a.affine[i] || bp.uniform[i] || !affineOp(in) || in.guard >= 0 || in.d < nSpecial || in.d == sSink || writes[in.d] != 1 || bp.uslot[in.d] {
				continue
			}
			ok := true
			for _, s := range affineSources(in) {
				ok = ok && (s < 0 || src(s))
			}
			if ok {
				a.affine[i], aslot[in.d], changed = true, true, true
			}
		}
	}
	a.fidx = make([]int32, f.nslots)
	a.okind = make([]int32, f.nslots)
	for s := range a.fidx {
		a.fidx[s] = -1
		if aslot[s] {
			a.fidx[s] = int32(a.nforms)
			a.nforms++
		}
		switch {
		case a.fidx[s] >= 0:
			a.okind[s] = a.fidx[s]
		case bp.uslot[s]:
			a.okind[s] = okUniform
		case a.tidX[s]:
			a.okind[s] = okTidX
		default:
			a.okind[s] = okNone
		}
	}
	readsLanes := make([]bool, f.nslots)
	for i := range code {
		in := &code[i]
		if bp.uniform[i] || a.affine[i] || in.op == opBra && (in.guard < 0 || bp.uslot[in.guard]) {
			continue
		}
		ops := operands(in)
		for _, s := range append(ops[:], in.guard) {
			if s >= 0 && int(s) < len(readsLanes) {
				readsLanes[s] = true
			}
		}
	}
	for _, al := range f.blockSlots {
		if readsLanes[al.slot] {
			a.laneBlock = append(a.laneBlock, al)
		}
	}
	a.uniformLanes = readsLanes // (a uniform instruction's result need not be a uniform slot: the affine instructions read no other)
	for s := range readsLanes {
		if bp.uslot[s] && writes[s] > 0 && !readsLanes[s] {
			a.affScalarOnly = append(a.affScalarOnly, int32(s))
		}
	}
	a.local = slices.Clone(aslot)
	for s := range a.local {
		a.local[s] = a.local[s] && only[s]
	}
	for i := range code {
		in := &code[i]
		if a.affine[i] && !bp.hoisted[i] {
			a.reset = append(a.reset, a.fidx[in.d])
		}
		ops := operands(in)
		for _, s := range append(ops[:], in.guard) {
			if s >= 0 && int(s) < len(aslot) && aslot[s] {
				a.readsAff[i] = true
			}
		}
	}
}

// affineOp reports whether in is one of the instructions an affine
// form goes through (see affineProgram.affine).
func affineOp(in *inst) bool {
	switch in.op {
	case opMov, opAddImm, opAddI, opSubI, opMulLo, opMadLo, opShl:
		return true
	case opMulWideS, opMulWideU, opMadWideS, opMadWideU:
		return in.bits <= 32
	case opSetpI:
		return in.k2 == 0 && in.v[0] < 0 && in.bits <= 32 && in.mode <= cmpGE
	case opCvt: // integer to integer
		return (in.kind == kU || in.kind == kS) && (in.k2 == kU || in.k2 == kS) && in.flags == 0 && in.vec == 1
	}
	return false
}

// affineSourceSlots is affineSources as three results (-1: none); the
// first is always a source.
func affineSourceSlots(in *inst) (a, b, c int32) {
	switch in.op {
	case opMov, opAddImm, opCvt:
		return in.a, -1, -1
	case opMadLo, opMadWideU, opMadWideS:
		return in.a, in.b, in.c
	}
	return in.a, in.b, -1
}

// narrower reports whether source i of the affine instruction in, whose
// form has mask k, is narrower than in's result where that matters: its
// wrap is not the result's (a setp, mul.wide's and cvt's first two
// sources read only their width's bits).
func narrower(in *inst, i int, k uint64) bool {
	switch in.op {
	case opSetpI, opMulWideS, opMulWideU, opCvt:
		return false
	case opMadWideS, opMadWideU:
		if i < 2 {
			return false
		}
	}
	return k&in.mask != in.mask
}

// affineSources is sources without an allocation: the slots an affine
// instruction reads, -1 after the last.
func affineSources(in *inst) [3]int32 {
	switch in.op {
	case opMov, opAddImm, opCvt:
		return [3]int32{in.a, -1, -1}
	case opMadLo, opMadWideU, opMadWideS:
		return [3]int32{in.a, in.b, in.c}
	}
	return [3]int32{in.a, in.b, -1}
}

// affOn reports whether the machine keeps affine forms: a 1-D block
// (%tid.x is the thread's index). With an Observer or the race checks,
// an affine run tells them what the full-warp paths would (affinecheck.go).
func (m *machine) affOn() bool {
	return m.bp != nil && m.bp.nforms > 0 && m.l.Block[1] == 1 && m.l.Block[2] == 1
}

// subset reports whether every thread of a is in b.
func subset(a, b *blockMask, nw int) bool {
	for w := range nw {
		if a[w]&^b[w] != 0 {
			return false
		}
	}
	return true
}

// operand returns slot s as a form for the threads of act: a uniform
// slot (stride 0, while uOK), %tid.x, or a slot whose form holds for
// act.
func (m *machine) operand(s int32, act *blockMask, uOK bool) (base, stride, mask uint64, ok bool) {
	switch i := m.okind[s]; i {
	case okUniform:
		return m.ur[s], 0, math.MaxUint64, uOK
	case okTidX:
		return 0, 1, math.MaxUint32, true
	case okNone:
		return 0, 0, 0, false
	default:
		f := &m.forms[i]
		if !f.ok || f.pred || !f.all && !subset(act, &f.dom, len(m.warps)) {
			return 0, 0, 0, false
		}
		return f.base, f.stride, f.mask, true
	}
}

// The kinds of affineProgram.okind that are not a form's index.
const (
	okNone    = -1 - iota // no form
	okUniform             // a uniform slot: stride 0 (while uOK)
	okTidX                // %tid.x
)

// exactInt returns an operand's values as the integers an instruction
// of width w (w <= 32, signed or not) reads: thread t's is first +
// step*t, exactly, for every thread of the block; ok false when they
// wrap across the type's range within the block.
func (m *machine) exactInt(base, stride, mask uint64, w uint8, signed bool) (first, step int64, ok bool) {
	if w > 32 {
		return 0, 0, false
	}
	wm := widthMask(w)
	if stride == 0 {
		if signed {
			return sx(base, w), 0, true
		}
		return int64(base), 0, base <= wm
	}
	if mask != wm {
		return 0, 0, false
	}
	v0 := base & wm
	step = sx(stride&wm, w)
	lo, hi := int64(0), int64(wm)
	if signed {
		first = sx(v0, w)
		lo, hi = -int64(1)<<(w-1), int64(1)<<(w-1)-1
	} else {
		first = int64(v0)
	}
	last := first + step*int64(m.nt-1)
	return first, step, lo <= last && last <= hi
}

// affineStep computes the affine instruction in for the threads of act
// (all that run it; all: every lane of every warp) as a form, and reports
// whether it did; false: it changed nothing, and in runs on lanes.
func (m *machine) affineStep(in *inst, act *blockMask, all, uOK bool) bool {
	// The sources' forms and the result in scalars, not arrays or a
	// struct (which the compiler keeps in memory): this runs for every
	// affine instruction of every block.
	var b0, s0, k0, b1, s1, k1, b2, s2 uint64
	var ok bool
	o0, o1, o2 := affineSourceSlots(in)
	if b0, s0, k0, ok = m.operand(o0, act, uOK); !ok || narrower(in, 0, k0) {
		return false
	}
	if o1 >= 0 {
		if b1, s1, k1, ok = m.operand(o1, act, uOK); !ok || narrower(in, 1, k1) {
			return false
		}
	}
	if o2 >= 0 {
		var k2 uint64
		if b2, s2, k2, ok = m.operand(o2, act, uOK); !ok || narrower(in, 2, k2) {
			return false
		}
	}
	var base, stride uint64
	var d0, dt int64 // a setp's difference of its operands: d0 + dt*t
	mask, pred := in.mask, false
	switch in.op {
	case opMov:
		base, stride = b0, s0
	case opAddImm:
		base, stride = b0+uint64(in.imm), s0
	case opAddI:
		base, stride = b0+b1, s0+s1
	case opSubI:
		base, stride = b0-b1, s0-s1
	case opMulLo, opMadLo:
		if s0*s1&in.mask != 0 {
			return false // quadratic in t
		}
		base, stride = b0*b1, s0*b1+s1*b0
		if in.op == opMadLo {
			base, stride = base+b2, stride+s2
		}
	case opShl:
		if s1 != 0 {
			return false
		}
		if sh := uint32(b1); sh < uint32(in.bits) {
			base, stride = b0<<sh, s0<<sh
		}
	case opMulWideS, opMulWideU, opMadWideS, opMadWideU:
		signed := in.op == opMulWideS || in.op == opMadWideS
		f0, t0, ok0 := m.exactInt(b0, s0, k0, in.bits, signed)
		f1, t1, ok1 := m.exactInt(b1, s1, k1, in.bits, signed)
		if !ok0 || !ok1 || t0 != 0 && t1 != 0 {
			return false
		}
		base, stride = uint64(f0*f1), uint64(f0*t1+t0*f1)
		if in.op == opMadWideS || in.op == opMadWideU {
			base, stride = base+b2, stride+s2
		}
	case opCvt:
		if in.bits <= in.b2 { // the low bits
			if k0&in.mask != in.mask {
				return false
			}
			base, stride = b0, s0
			break
		}
		f0, t0, ok := m.exactInt(b0, s0, k0, in.b2, in.k2 == kS)
		if !ok {
			return false // the source wraps within the block: its widening is not affine
		}
		base, stride = uint64(f0), uint64(t0)
	case opSetpI:
		signed := in.kind == kS
		f0, t0, ok0 := m.exactInt(b0, s0, k0, in.bits, signed)
		f1, t1, ok1 := m.exactInt(b1, s1, k1, in.bits, signed)
		if !ok0 || !ok1 {
			return false
		}
		pred, mask = true, 1
		d0, dt = f0-f1, t0-t1
	default:
		return false
	}
	f := &m.forms[m.bp.fidx[in.d]]
	if f.ok && !f.mat && !all && !m.bp.local[in.d] && (f.all || !subset(&f.dom, act, len(m.warps))) {
		m.materialiseFor(in.d, act) // the threads that keep the old value (local: none reads it)
	}
	f.ok, f.mat, f.pred, f.all = true, false, pred, all
	f.base, f.stride, f.mask = base&mask, stride&mask, mask
	if !all {
		f.dom = *act
	}
	if pred {
		lo, hi, flip := predRange(m.nt, int(in.mode), d0, dt)
		f.lo, f.hi, f.flip = int32(lo), int32(hi), flip
	}
	return true
}

// predRange returns the threads t of a block of n for which d0 + dt*t
// compares (mode, against 0) true: those in lo..hi-1, or (flip all
// ones) those not: a range of t for an order, one thread or all but one
// for equality (rangeMask's arguments).
func predRange(n, mode int, d0, dt int64) (lo, hi int, flip uint32) {
	p0 := cmpSigned(mode, d0, 0)
	switch {
	case dt == 0:
		if p0 {
			hi = n
		}
	case mode == cmpEQ || mode == cmpNE:
		if mode == cmpNE {
			flip = ^flip
		}
		if dt == 1 || dt == -1 { // (no division)
			if t := -d0 * dt; t >= 0 && t < int64(n) {
				lo, hi = int(t), int(t)+1
			}
		} else if -d0%dt == 0 {
			if t := -d0 / dt; t >= 0 && t < int64(n) {
				lo, hi = int(t), int(t)+1
			}
		}
	case p0 == cmpSigned(mode, d0+dt*int64(n-1), 0):
		if p0 {
			hi = n
		}
	case p0:
		hi = firstChange(n, mode, d0, dt)
	default:
		lo, hi = firstChange(n, mode, d0, dt), n
	}
	return lo, hi, flip
}

// allThreads has every thread of a block of the most warps.
var allThreads = func() (b blockMask) {
	for w := range b {
		b[w] = allLanes
	}
	return b
}()

// rangeMask sets out's first nw words to the threads of and that lie in
// lo..hi-1, or (flip all ones) that do not: whole words between the
// first and the last of the range, no per-word arithmetic.
func rangeMask(out *blockMask, nw, lo, hi int, flip uint32, and *blockMask) {
	o, a := out[:nw], and[:nw]
	for w := range o {
		o[w] = flip & a[w]
	}
	if lo >= hi {
		return
	}
	wl, wh := lo>>5, (hi-1)>>5
	ml := ^uint32(0) << (uint(lo) & 31)
	mh := ^uint32(0) >> (31 - uint(hi-1)&31)
	if wl == wh {
		o[wl] = (ml&mh ^ flip) & a[wl]
		return
	}
	o[wl] = (ml ^ flip) & a[wl]
	for w := wl + 1; w < wh; w++ {
		o[w] = ^flip & a[w]
	}
	o[wh] = (mh ^ flip) & a[wh]
}

// firstChange returns the least t in 1..n-1 at which p(t), the
// comparison mode of d0 + dt*t with 0 (dt != 0, so p is monotone in t),
// differs from p(0), where p(n-1) does: what sort.Search would find,
// from the crossing -d0/dt (off by at most one, as division truncates)
// and a step or two to the exact boundary.
func firstChange(n, mode int, d0, dt int64) int {
	p := func(t int) bool { return cmpSigned(mode, d0+dt*int64(t), 0) }
	p0 := p(0)
	c := -d0 * dt // the crossing when dt is 1 or -1 (%tid.x against a value): no division
	if dt != 1 && dt != -1 {
		c = -d0 / dt
	}
	c = max(min(c, int64(n-1)), 1)
	t := int(c)
	for t > 1 && p(t-1) != p0 {
		t--
	}
	for p(t) == p0 {
		t++
	}
	return t
}

// materialise writes slot s's form into the warps' registers for the
// threads of its domain.
func (m *machine) materialise(s int32) {
	m.materialiseFor(s, nil)
}

// materialiseFor is materialise but for the threads of but (nil: none),
// which are about to get another value.
func (m *machine) materialiseFor(s int32, but *blockMask) {
	if s < 0 || int(s) >= len(m.bp.fidx) || m.bp.fidx[s] < 0 {
		return
	}
	f := &m.forms[m.bp.fidx[s]]
	if !f.ok || f.mat {
		return
	}
	f.mat = true
	var p blockMask // a predicate's threads
	if f.pred {
		rangeMask(&p, len(m.warps), int(f.lo), int(f.hi), f.flip, &allThreads)
	}
	for w := range m.warps {
		a := f.dom[w]
		if f.all {
			a = allLanes
		}
		if but != nil {
			a &^= but[w]
		}
		if a == 0 {
			continue
		}
		r := lane32(m.soas[w], s)
		if f.pred {
			for ; a != 0; a &= a - 1 {
				j := bits.TrailingZeros32(a)
				r[j] = uint64(p[w] >> j & 1)
			}
			continue
		}
		v := f.base + f.stride*uint64(32*w)
		if a == allLanes {
			for j := range r {
				r[j] = (v + f.stride*uint64(j)) & f.mask
			}
			continue
		}
		for ; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a)
			r[j] = (v + f.stride*uint64(j)) & f.mask
		}
	}
}

// blockSlotLanes writes the block's own slots that a block keeping
// affine forms leaves out of the warps' registers (laneBlock's others)
// into them: when an affine instruction or a uniform one runs on lanes.
func (m *machine) blockSlotLanes() {
	if !m.aff || len(m.bp.laneBlock) == len(m.k.fn.blockSlots) {
		return
	}
	for _, a := range m.k.fn.blockSlots {
		b := broadcast(m.ur[a.slot])
		for w := range m.warps {
			*lane32(m.soas[w], a.slot) = b
		}
	}
}

// uniformSourceLanes writes the uniform sources of the affine
// instruction in that a block keeping forms leaves out of the warps'
// registers (not uniformLanes) into them, from machine.ur: in is about
// to run on the lanes while every uniform value is still in machine.ur.
func (m *machine) uniformSourceLanes(in *inst) {
	for _, s := range affineSources(in) {
		if s >= 0 && m.bp.uslot[s] && !m.bp.uniformLanes[s] {
			b := broadcast(m.ur[s])
			for w := range m.warps {
				*lane32(m.soas[w], s) = b
			}
		}
	}
}

// operandLanes materialises the slots with a form that in reads (but
// its guard: runBlock materialises it when it reads the guard's lanes).
func (m *machine) operandLanes(in *inst) {
	if in.op == opBra {
		return // (it reads only its guard)
	}
	for _, s := range operands(in) {
		m.materialise(s)
	}
}

// dropForm forgets slot s's form (in runs on lanes and writes it),
// materialising it first for the threads that keep it.
func (m *machine) dropForm(s int32) {
	m.materialise(s)
	m.forms[m.bp.fidx[s]].ok = false
}

// guardMask sets act to the threads of grp that a guard g with a
// predicate form lets run (neg: its negation), and reports whether g's
// form holds for grp.
func (m *machine) guardMask(g int32, neg bool, grp, act *blockMask) bool {
	i := m.bp.fidx[g]
	if i < 0 {
		return false
	}
	f := &m.forms[i]
	nw := len(m.warps)
	if !f.ok || !f.pred || !f.all && !subset(grp, &f.dom, nw) {
		return false
	}
	flip := f.flip
	if neg {
		flip = ^flip
	}
	rangeMask(act, nw, int(f.lo), int(f.hi), flip, grp)
	return true
}

// affineAccess runs a scalar 4- or 8-byte ld or st for the threads of
// act when its address slot has a form of stride size for them, and all
// their addresses lie in one known allocation (fullSpan's), aligned: the
// first and last thread's address tell. It reports whether it did
// (false: nothing done; the lane paths run, to the lane that faults).
func (m *machine) affineAccess(in *inst, act *blockMask, pc int) bool {
	if in.vec != 1 || in.size != 4 && in.size != 8 || in.v[0] == sSink {
		return false
	}
	base, stride, mask, ok := m.operand(in.a, act, true)
	size := uint64(in.size)
	if !ok || stride != size || mask != math.MaxUint64 {
		return false
	}
	nw := len(m.warps)
	t0, t1 := -1, 0
	for w := range nw {
		if a := act[w]; a != 0 {
			if t0 < 0 {
				t0 = 32*w + bits.TrailingZeros32(a)
			}
			t1 = 32*w + 31 - bits.LeadingZeros32(a)
		}
	}
	if t0 < 0 {
		return true
	}
	a0 := base + stride*uint64(t0)
	a1 := a0 + stride*uint64(t1-t0)
	data, start, lim, amask, ok := m.spanAt(in, a0)
	if !ok || a1 < a0 {
		return false
	}
	off0, off1 := a0-start, a1-start
	if off0 > off1 || off1 > lim || (a0+uint64(in.imm))&amask != 0 {
		return false
	}
	// thread t's bytes are data[off(t):], off(t) = off0 + size*(t-t0).
	checks := m.checked(in)
	if checks {
		ok, locked := m.checkable(in, act, pc)
		if !ok {
			return false
		}
		defer m.unlockStrong(locked)
		if in.op == opLdGlobal || in.op == opStGlobal {
			// Told and checked for the whole run before its bytes
			// move (checkGlobalRun): the bytes then move as unchecked.
			m.checkGlobalRun(in, act, pc, a0+uint64(in.imm)-size*uint64(t0))
			checks = false
		}
	}
	load := in.op != opStGlobal && in.op != opStShared
	if !load {
		m.materialise(in.v[0]) // (a no-op unless the value has a form)
	}
	wf := m.file.N > 0 && len(m.threads) == 32*nw && !checks
	if wf && t0 == 0 && t1 == len(m.threads)-1 {
		full := true
		for w := range nw {
			full = full && act[w] == allLanes
		}
		if full {
			m.moveRun(m.file, in, load, data[off0:off0+uint64(t1+1)*size])
			return true
		}
	}
	for w := range nw {
		a := act[w]
		if a == 0 {
			continue
		}
		rv := lane32(m.soas[w], in.v[0])
		o := off0 + size*uint64(32*w-t0) // lane 0's offset (it may lie below data: only set lanes are used)
		// (the checks before the warp's bytes move: a store's check holds
		// what a write it meets wrote, settled after the store)
		if checks && m.checkShared(in, w, a, pc, o, data) {
			continue // stored lane by lane
		}
		if a == allLanes {
			moveWarp(rv, data, o, size, load)
			continue
		}
		moveLanes(rv, a, data, o, size, load)
	}
	return true
}
