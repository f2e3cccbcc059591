package ptxexec

import (
	"encoding/binary"
	"math"

	"github.com/nocgo/cuda/fake/internal/fpu"
	"github.com/nocgo/cuda/fake/internal/ptxexec/lanes"
)

// Full warps. Most instructions of elementwise code run for all 32 lanes
// of a warp at once (no lane diverged, none guarded off). For those,
// runFull executes the common pure instructions in plain loops over the
// 32 lanes (no per-lane mask, no bounds checks: the compiler sees arrays
// of 32), and fullLoad and fullStore check the addresses of the whole
// warp against one allocation once (the lowest and highest address, the
// alignment of all) and then move the lanes' values without further
// checks. Anything else, and any warp whose addresses are not all in one
// cached allocation, goes the lane-by-lane way of runLockstep, so faults
// stay exact: the same thread, address and line.

// allLanes is the active mask of a full warp.
const allLanes = 1<<warpSize - 1

// runFullSeq runs the instructions of code from pc on for a full warp
// (all 32 lanes at pc, none elsewhere) as long as runFull, fullLoad or
// fullStore can run them and their guards let every lane or none run,
// and returns the pc of the first instruction it did not run: one call
// for a run of straight-line code instead of a dispatch of the group
// loop per instruction. A shared store at which warp w is due to pause
// (storepause.go) is left to the caller.
func (m *machine) runFullSeq(w *warpRegs, ts []thread, code []inst, pc int) int {
	S := w.soa
	for pc < len(code) {
		in := &code[pc]
		if g := in.guard; g >= 0 {
			switch fullGuard(lane32(S, g), in.flags&fGuardNeg != 0) {
			case 0:
				pc++
				continue
			case allLanes:
			default:
				return pc
			}
		}
		var ok bool
		switch in.op {
		case opLdGlobal, opLdParam, opLdShared:
			ok = m.fullLoad(S, in, ts, pc) || m.observedFull(ts, S, in, pc+1)
		case opStGlobal, opStShared:
			ok = !(in.op == opStShared && m.pauseDue(w)) && (m.fullStore(S, in, ts, pc) || m.observedFull(ts, S, in, pc+1))
		default:
			ok = runFull(S, in)
		}
		if !ok {
			return pc
		}
		pc++
	}
	return pc
}

// runFull runs in for all 32 lanes of a full warp when it is one of the
// common pure instructions, and reports whether it did (false: it did
// nothing; the caller runs in its general way).
func runFull(S []uint64, in *inst) bool {
	switch in.op {
	case opMov:
		lanes.AddImm(lane32(S, in.d), lane32(S, in.a), 0, in.mask)
	case opAddImm:
		lanes.AddImm(lane32(S, in.d), lane32(S, in.a), uint64(in.imm), in.mask)
	case opAddI:
		lanes.Add(lane32(S, in.d), lane32(S, in.a), lane32(S, in.b), in.mask)
	case opSubI:
		lanes.Sub(lane32(S, in.d), lane32(S, in.a), lane32(S, in.b), in.mask)
	case opMulLo, opMulWideU:
		rd, rx, ry := lane32(S, in.d), lane32(S, in.a), lane32(S, in.b)
		if in.bits <= 32 {
			// The low 32 bits of the operands make the product (a
			// 32-bit mul.wide's operands are 32-bit values).
			lanes.MulLo32(rd, rx, ry, in.mask)
			break
		}
		msk := in.mask
		for j := range rd {
			rd[j] = (rx[j] * ry[j]) & msk
		}
	case opMadLo, opMadWideU:
		rd, rx, ry, rz := lane32(S, in.d), lane32(S, in.a), lane32(S, in.b), lane32(S, in.c)
		if in.bits <= 32 {
			lanes.MadLo32(rd, rx, ry, rz, in.mask)
			break
		}
		msk := in.mask
		for j := range rd {
			rd[j] = (rx[j]*ry[j] + rz[j]) & msk
		}
	case opMulWideS:
		rd, rx, ry := lane32(S, in.d), lane32(S, in.a), lane32(S, in.b)
		msk := in.mask
		if in.bits == 32 {
			lanes.MulWideS32(rd, rx, ry)
			break
		}
		sh := 64 - uint(in.bits)
		for j := range rd {
			rd[j] = uint64((int64(rx[j]<<sh)>>sh)*(int64(ry[j]<<sh)>>sh)) & msk
		}
	case opMadWideS:
		rd, rx, ry, rz := lane32(S, in.d), lane32(S, in.a), lane32(S, in.b), lane32(S, in.c)
		msk := in.mask
		if in.bits == 32 && msk == math.MaxUint64 {
			lanes.MadWideS32(rd, rx, ry, rz)
			break
		}
		sh := 64 - uint(in.bits)
		for j := range rd {
			rd[j] = (uint64((int64(rx[j]<<sh)>>sh)*(int64(ry[j]<<sh)>>sh)) + rz[j]) & msk
		}
	case opAnd:
		lanes.And(lane32(S, in.d), lane32(S, in.a), lane32(S, in.b))
	case opOr:
		lanes.Or(lane32(S, in.d), lane32(S, in.a), lane32(S, in.b))
	case opXor:
		lanes.Xor(lane32(S, in.d), lane32(S, in.a), lane32(S, in.b))
	case opShl:
		rd, rx, ry := lane32(S, in.d), lane32(S, in.a), lane32(S, in.b)
		msk, w := in.mask, uint32(in.bits)
		for j := range rd {
			v := rx[j] << (uint32(ry[j]) & 63) & msk
			if uint32(ry[j]) >= w {
				v = 0
			}
			rd[j] = v
		}
	case opShrU:
		rd, rx, ry := lane32(S, in.d), lane32(S, in.a), lane32(S, in.b)
		for j := range rd {
			v := rx[j] >> (uint32(ry[j]) & 63)
			if uint32(ry[j]) >= 64 {
				v = 0
			}
			rd[j] = v
		}
	case opShrS:
		rd, rx, ry := lane32(S, in.d), lane32(S, in.a), lane32(S, in.b)
		msk, sh := in.mask, 64-uint(in.bits)
		for j := range rd {
			rd[j] = uint64(int64(rx[j]<<sh)>>sh>>min(uint32(ry[j]), 63)) & msk
		}
	case opNot:
		rd, rx := lane32(S, in.d), lane32(S, in.a)
		msk := in.mask
		for j := range rd {
			rd[j] = ^rx[j] & msk
		}
	case opAddF32, opMulF32:
		if in.flags&(fFTZ|fSat) != 0 || fpu.Rounding(in.mode) != fpu.Nearest {
			return false
		}
		if in.op == opAddF32 {
			lanes.AddF32(lane32(S, in.d), lane32(S, in.a), lane32(S, in.b))
		} else {
			lanes.MulF32(lane32(S, in.d), lane32(S, in.a), lane32(S, in.b))
		}
	case opFmaF32:
		if in.flags&(fFTZ|fSat) != 0 || fpu.Rounding(in.mode) != fpu.Nearest {
			return false
		}
		lanes.FmaF32(lane32(S, in.d), lane32(S, in.a), lane32(S, in.b), lane32(S, in.c))
	case opSelp:
		lanes.Select(lane32(S, in.d), lane32(S, in.a), lane32(S, in.b), lane32(S, in.c))
	case opSetpI:
		if in.k2 != 0 || in.v[0] >= 0 {
			return false
		}
		return fullSetpI(lane32(S, in.d), lane32(S, in.a), lane32(S, in.b), in)
	default:
		return false
	}
	return true
}

// fullGuard returns the lanes of a full warp whose guard predicate rg
// lets them run (its negation with neg).
func fullGuard(rg *[warpSize]uint64, neg bool) uint32 {
	act := lanes.Nonzero(rg)
	if neg {
		act = ^act
	}
	return act
}

// fullSetpI runs an integer setp with no combining predicate and no
// second result for 32 lanes, and reports whether it knew the
// comparison.
func fullSetpI(rd, rx, ry *[warpSize]uint64, in *inst) bool {
	mode := int(in.mode)
	switch {
	case mode == cmpEQ || mode == cmpNE:
		// Equality of signed values: their low bits of the width.
		msk := uint64(math.MaxUint64)
		if in.kind == kS {
			msk = widthMask(in.bits)
		}
		lanes.Equal(rd, rx, ry, msk, b2u(mode == cmpNE))
		return true
	case mode != cmpLT && mode != cmpGE && mode != cmpGT && mode != cmpLE:
		return false
	}
	// x < y, or (GT, LE) y < x; GE and LE negate.
	flip := b2u(mode == cmpGE || mode == cmpLE)
	if mode == cmpGT || mode == cmpLE {
		rx, ry = ry, rx
	}
	switch {
	case in.kind == kS && in.bits == 32:
		lanes.LessS32(rd, rx, ry, flip)
	case in.kind == kS && in.bits == 64:
		lanes.LessS64(rd, rx, ry, flip)
	case in.kind == kS:
		sh := 64 - uint(in.bits)
		for j := range rd {
			rd[j] = b2u(int64(rx[j]<<sh) < int64(ry[j]<<sh)) ^ flip
		}
	default:
		lanes.LessU64(rd, rx, ry, flip)
	}
	return true
}

// fullSpan returns the span a full warp's scalar ld or st of in reads or
// writes when it is one known allocation (the parameters, the block's
// shared memory, or the cached global allocation of the first lane's
// address, without the in-kernel global checks; an Observer is told of
// the access by fullLoad and fullStore, see observewarp.go, and the
// shared-memory race checks by sharedRun): its bytes, start (a
// lane's offset in data is its address register minus start), lim (the
// highest offset an access may start at) and amask (an address with any
// of these bits set is misaligned). ok is false otherwise; the lanes then
// go one by one.
func (m *machine) fullSpan(S []uint64, in *inst) (data []byte, start, lim, amask uint64, ok bool) {
	if in.vec != 1 || m.gr != nil && (in.op == opLdGlobal || in.op == opStGlobal) {
		return nil, 0, 0, 0, false
	}
	return m.spanAt(in, S[int(in.a)*warpSize])
}

// spanAt is fullSpan for the access of in whose first lane's address
// register holds a0: the span of ld.param, shared memory, or the cached
// global allocation of a0's address.
func (m *machine) spanAt(in *inst, a0 uint64) (data []byte, start, lim, amask uint64, ok bool) {
	imm := uint64(in.imm)
	n := uint64(in.size)
	amask = n - 1
	var c span
	switch in.op {
	case opLdParam:
		c = span{0, m.l.Params}
		amask = 0
	case opLdShared, opStShared:
		c = span{0, m.shared}
	case opLdGlobal, opStGlobal:
		c = m.lastSpan(a0 + imm)
	default:
		return nil, 0, 0, 0, false
	}
	size := uint64(len(c.data))
	if size < n {
		return nil, 0, 0, 0, false
	}
	return c.data, c.base - imm, size - n, amask, true
}

// coalesced reports whether the lanes' addresses ra are consecutive (in
// steps of in.size) and all in fullSpan's span and aligned, and returns
// the first lane's offset: then the 32 lanes' bytes are data[off:] up to
// off+32*in.size, which fits in data. The first and last lanes tell: the
// others lie between them, aligned as the first is.
func coalesced(ra *[warpSize]uint64, start, lim, amask uint64, in *inst) (off uint64, ok bool) {
	if !lanes.Consecutive(ra, uint64(in.size)) {
		return 0, false
	}
	off, last := ra[0]-start, ra[warpSize-1]-start
	return off, off <= last && last <= lim && (ra[0]+uint64(in.imm))&amask == 0
}

// fullLoad runs a scalar ld for all 32 lanes when fullSpan allows it and
// every lane's address is in its span and aligned, and reports whether it
// did (false: it changed nothing). Consecutive addresses (a coalesced
// access) are one block copy, and one Access to an Observer. ts is the
// warp's threads, pc the index of in.
func (m *machine) fullLoad(S []uint64, in *inst, ts []thread, pc int) bool {
	data, start, lim, amask, ok := m.fullSpan(S, in)
	if !ok {
		return false
	}
	obs := m.obs != nil && in.op == opLdGlobal
	races := m.races != nil && in.op == opLdShared
	ra, rv := lane32(S, in.a), lane32(S, in.v[0])
	if off, ok := coalesced(ra, start, lim, amask, in); ok && (in.size == 4 || in.size == 8) {
		if obs {
			m.observeRun(pc, in, &ts[0], ra[0]+uint64(in.imm), warpSize*uint64(in.size), warpSize)
		}
		if races {
			m.sharedRun(ts, pc, in, in.op, off, uint64(in.size))
		}
		if in.size == 4 {
			lanes.Load32(rv, (*[128]byte)(data[off:]))
		} else {
			lanes.Load64(rv, (*[256]byte)(data[off:]))
		}
		return true
	}
	if inSpan, _ := lanes.Check(ra, start, lim, amask, uint64(in.imm), 0); !inSpan {
		return false
	}
	if obs {
		m.observeLanes(ts, pc, in, ra)
	}
	if races {
		m.sharedLanes(ts, pc, in, ra, start)
	}
	var v [warpSize]uint64 // rv may be ra
	switch {
	case in.size == 4:
		for j := range v {
			v[j] = uint64(binary.LittleEndian.Uint32(data[ra[j]-start:]))
		}
	case in.size == 8:
		for j := range v {
			v[j] = binary.LittleEndian.Uint64(data[ra[j]-start:])
		}
	default:
		for j := range v {
			v[j] = extend(loadLE(data[ra[j]-start:], in.size), in)
		}
	}
	*rv = v
	if in.v[0] == sSink {
		*rv = [warpSize]uint64{} // a load into _ leaves the sink 0
	}
	return true
}

// fullStore runs a scalar st for all 32 lanes, in lane order, when
// fullSpan allows it and every lane's address is in its span and
// aligned, and reports whether it did (false: it stored nothing; the
// lane-by-lane path then stores up to the lane that faults). An Observer
// is told as by fullLoad.
func (m *machine) fullStore(S []uint64, in *inst, ts []thread, pc int) bool {
	data, start, lim, amask, ok := m.fullSpan(S, in)
	if !ok {
		return false
	}
	obs := m.obs != nil && in.op == opStGlobal
	races := m.races != nil && in.op == opStShared
	ra, rv := lane32(S, in.a), lane32(S, in.v[0])
	if off, ok := coalesced(ra, start, lim, amask, in); ok && (in.size == 4 || in.size == 8) {
		if races && !m.sharedRun(ts, pc, in, in.op, off, uint64(in.size)) {
			return false // stored nothing: the lanes go one by one
		}
		if obs {
			m.observeRun(pc, in, &ts[0], ra[0]+uint64(in.imm), warpSize*uint64(in.size), warpSize)
		}
		if in.size == 4 {
			lanes.Store32((*[128]byte)(data[off:]), rv)
		} else {
			lanes.Store64((*[256]byte)(data[off:]), rv)
		}
		return true
	}
	if races {
		return false // lanes that may overlap: checked and stored one by one
	}
	if inSpan, _ := lanes.Check(ra, start, lim, amask, uint64(in.imm), 0); !inSpan {
		return false
	}
	if obs {
		m.observeLanes(ts, pc, in, ra)
	}
	switch in.size {
	case 4:
		for j := range rv {
			binary.LittleEndian.PutUint32(data[ra[j]-start:], uint32(rv[j]))
		}
	case 8:
		for j := range rv {
			binary.LittleEndian.PutUint64(data[ra[j]-start:], rv[j])
		}
	default:
		for j := range rv {
			store(data[ra[j]-start:], in.size, rv[j])
		}
	}
	return true
}
