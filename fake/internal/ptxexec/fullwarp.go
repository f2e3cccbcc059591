package ptxexec

import (
	"encoding/binary"
	"math"

	"github.com/nocgo/cuda/fake/internal/fpu"
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
// loop per instruction.
func (m *machine) runFullSeq(S []uint64, code []inst, pc int) int {
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
			ok = m.fullLoad(S, in)
		case opStGlobal, opStShared:
			ok = !(in.op == opStShared && m.pauseDue(m.cur)) && m.fullStore(S, in)
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
		rd, rx := lane32(S, in.d), lane32(S, in.a)
		msk := in.mask
		for j := range rd {
			rd[j] = rx[j] & msk
		}
	case opAddImm:
		rd, rx := lane32(S, in.d), lane32(S, in.a)
		msk, imm := in.mask, uint64(in.imm)
		for j := range rd {
			rd[j] = (rx[j] + imm) & msk
		}
	case opAddI:
		rd, rx, ry := lane32(S, in.d), lane32(S, in.a), lane32(S, in.b)
		msk := in.mask
		for j := range rd {
			rd[j] = (rx[j] + ry[j]) & msk
		}
	case opSubI:
		rd, rx, ry := lane32(S, in.d), lane32(S, in.a), lane32(S, in.b)
		msk := in.mask
		for j := range rd {
			rd[j] = (rx[j] - ry[j]) & msk
		}
	case opMulLo, opMulWideU:
		rd, rx, ry := lane32(S, in.d), lane32(S, in.a), lane32(S, in.b)
		msk := in.mask
		for j := range rd {
			rd[j] = (rx[j] * ry[j]) & msk
		}
	case opMadLo, opMadWideU:
		rd, rx, ry, rz := lane32(S, in.d), lane32(S, in.a), lane32(S, in.b), lane32(S, in.c)
		msk := in.mask
		for j := range rd {
			rd[j] = (rx[j]*ry[j] + rz[j]) & msk
		}
	case opMulWideS:
		rd, rx, ry := lane32(S, in.d), lane32(S, in.a), lane32(S, in.b)
		msk := in.mask
		if in.bits == 32 {
			for j := range rd {
				rd[j] = uint64(int64(int32(rx[j]))*int64(int32(ry[j]))) & msk
			}
			break
		}
		sh := 64 - uint(in.bits)
		for j := range rd {
			rd[j] = uint64((int64(rx[j]<<sh)>>sh)*(int64(ry[j]<<sh)>>sh)) & msk
		}
	case opMadWideS:
		rd, rx, ry, rz := lane32(S, in.d), lane32(S, in.a), lane32(S, in.b), lane32(S, in.c)
		msk := in.mask
		sh := 64 - uint(in.bits)
		for j := range rd {
			rd[j] = (uint64((int64(rx[j]<<sh)>>sh)*(int64(ry[j]<<sh)>>sh)) + rz[j]) & msk
		}
	case opAnd:
		rd, rx, ry := lane32(S, in.d), lane32(S, in.a), lane32(S, in.b)
		for j := range rd {
			rd[j] = rx[j] & ry[j]
		}
	case opOr:
		rd, rx, ry := lane32(S, in.d), lane32(S, in.a), lane32(S, in.b)
		for j := range rd {
			rd[j] = rx[j] | ry[j]
		}
	case opXor:
		rd, rx, ry := lane32(S, in.d), lane32(S, in.a), lane32(S, in.b)
		for j := range rd {
			rd[j] = rx[j] ^ ry[j]
		}
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
	case opAddF32, opMulF32:
		if in.flags&(fFTZ|fSat) != 0 || fpu.Rounding(in.mode) != fpu.Nearest {
			return false
		}
		rd, rx, ry := lane32(S, in.d), lane32(S, in.a), lane32(S, in.b)
		if in.op == opAddF32 {
			for j := range rd {
				rd[j] = u32f(fpu.AddF32(f32(rx[j]), f32(ry[j]), fpu.Nearest))
			}
		} else {
			for j := range rd {
				rd[j] = u32f(fpu.MulF32(f32(rx[j]), f32(ry[j]), fpu.Nearest))
			}
		}
	case opFmaF32:
		if in.flags&(fFTZ|fSat) != 0 || fpu.Rounding(in.mode) != fpu.Nearest {
			return false
		}
		rd, rx, ry, rz := lane32(S, in.d), lane32(S, in.a), lane32(S, in.b), lane32(S, in.c)
		for j := range rd {
			x, y, z := f32(rx[j]), f32(ry[j]), f32(rz[j])
			s := math.FMA(float64(x), float64(y), float64(z))
			b := math.Float64bits(s)
			// float32(s) rounds once when s is in float32's normal range
			// and off a float32 midpoint, or on one that is exact. The
			// tests are combined without branches: whether s is on a
			// midpoint depends on the data, and a branch on it would be
			// mispredicted for some lanes of most warps.
			normal := b2u(b&(0x7ff<<52)-0x381<<52 < (0x7ff-0x381)<<52)
			offMid := b2u(b&(1<<29-1) != 1<<28)
			exact := b2u(sumExact(float64(x)*float64(y), float64(z)))
			if normal&(offMid|exact) != 0 {
				rd[j] = u32f(float32(s))
			} else {
				rd[j] = u32f(fpu.FmaF32(x, y, z, fpu.Nearest))
			}
		}
	case opSelp:
		rd, rx, ry, rz := lane32(S, in.d), lane32(S, in.a), lane32(S, in.b), lane32(S, in.c)
		for j := range rd {
			v := ry[j]
			if rz[j] != 0 {
				v = rx[j]
			}
			rd[j] = v
		}
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
	var act uint32
	for j := range rg {
		act |= uint32(b2u(rg[j] != 0)) << j
	}
	if neg {
		act = ^act
	}
	return act
}

// fullSetpI runs an integer setp with no combining predicate and no
// second result for 32 lanes, and reports whether it knew the
// comparison.
func fullSetpI(rd, rx, ry *[warpSize]uint64, in *inst) bool {
	if in.kind == kS && in.bits == 32 {
		switch int(in.mode) {
		case cmpLT, cmpGE:
			ge := b2u(int(in.mode) == cmpGE)
			for j := range rd {
				rd[j] = b2u(int32(rx[j]) < int32(ry[j])) ^ ge
			}
			return true
		case cmpGT, cmpLE:
			le := b2u(int(in.mode) == cmpLE)
			for j := range rd {
				rd[j] = b2u(int32(rx[j]) > int32(ry[j])) ^ le
			}
			return true
		}
	} else if in.kind == kS {
		sh := 64 - uint(in.bits)
		switch int(in.mode) {
		case cmpLT, cmpGE:
			ge := b2u(int(in.mode) == cmpGE)
			for j := range rd {
				rd[j] = b2u(int64(rx[j]<<sh) < int64(ry[j]<<sh)) ^ ge
			}
			return true
		case cmpGT, cmpLE:
			le := b2u(int(in.mode) == cmpLE)
			for j := range rd {
				rd[j] = b2u(int64(rx[j]<<sh) > int64(ry[j]<<sh)) ^ le
			}
			return true
		}
	} else {
		switch int(in.mode) {
		case cmpLT, cmpGE:
			ge := b2u(int(in.mode) == cmpGE)
			for j := range rd {
				rd[j] = b2u(rx[j] < ry[j]) ^ ge
			}
			return true
		case cmpGT, cmpLE:
			le := b2u(int(in.mode) == cmpLE)
			for j := range rd {
				rd[j] = b2u(rx[j] > ry[j]) ^ le
			}
			return true
		}
	}
	if int(in.mode) != cmpEQ && int(in.mode) != cmpNE {
		return false
	}
	// Equality of signed values: their low bits of the width.
	msk := uint64(math.MaxUint64)
	if in.kind == kS {
		msk = widthMask(in.bits)
	}
	ne := b2u(int(in.mode) == cmpNE)
	for j := range rd {
		rd[j] = b2u((rx[j]^ry[j])&msk == 0) ^ ne
	}
	return true
}

// sumExact reports whether float64 p + z is exact (Knuth's TwoSum error
// is zero).
func sumExact(p, z float64) bool {
	s := float64(p + z)
	bb := float64(s - p)
	return float64(p-float64(s-bb))+float64(z-bb) == 0
}

// fullSpan returns the span a full warp's scalar ld or st of in reads or
// writes when it is one known allocation (the parameters, the block's
// shared memory without race checks, or the cached global allocation of
// the first lane's address, without an Observer): its bytes, start (a
// lane's offset in data is its address register minus start), lim (the
// highest offset an access may start at) and amask (an address with any
// of these bits set is misaligned). ok is false otherwise; the lanes then
// go one by one.
func (m *machine) fullSpan(S []uint64, in *inst) (data []byte, start, lim, amask uint64, ok bool) {
	if in.vec != 1 {
		return nil, 0, 0, 0, false
	}
	imm := uint64(in.imm)
	n := uint64(in.size)
	amask = n - 1
	var c span
	switch in.op {
	case opLdParam:
		c = span{0, m.l.Params}
		amask = 0 // parameters are read unaligned, as lane by lane
	case opLdShared, opStShared:
		if m.races != nil {
			return nil, 0, 0, 0, false
		}
		c = span{0, m.shared}
	case opLdGlobal, opStGlobal:
		if m.obs != nil {
			return nil, 0, 0, 0, false
		}
		c = m.lastSpan(S[int(in.a)*warpSize] + imm)
	default:
		return nil, 0, 0, 0, false
	}
	size := uint64(len(c.data))
	if size < n {
		return nil, 0, 0, 0, false
	}
	return c.data, c.base - imm, size - n, amask, true
}

// inSpan reports whether every lane's access of fullSpan's span is in
// it and aligned: each offset at most lim (unsigned: an address below
// the span's start wraps far above it) and no address with a bit of
// amask.
func inSpan(ra *[warpSize]uint64, start, lim, amask, imm uint64) bool {
	var over, addrs uint64
	for j := range ra {
		over |= b2u(ra[j]-start > lim)
		addrs |= ra[j] + imm
	}
	return over == 0 && addrs&amask == 0
}

// fullLoad runs a scalar ld for all 32 lanes when fullSpan allows it, and
// reports whether it did (false: it changed nothing). Each lane's address
// is checked as it loads, unless the loaded register is the address
// register: then all are checked first.
func (m *machine) fullLoad(S []uint64, in *inst) bool {
	data, start, lim, amask, ok := m.fullSpan(S, in)
	if !ok {
		return false
	}
	imm := uint64(in.imm)
	ra, rv := lane32(S, in.a), lane32(S, in.v[0])
	if in.v[0] == in.a {
		if !inSpan(ra, start, lim, amask, imm) {
			return false
		}
		lim, amask = math.MaxUint64, 0 // checked
	}
	var v [warpSize]uint64
	switch {
	case in.size == 4 && !(in.kind == kS && in.bits < 32):
		for j := range v {
			off := ra[j] - start
			if off > lim || (ra[j]+imm)&amask != 0 {
				return false
			}
			v[j] = uint64(binary.LittleEndian.Uint32(data[off:]))
		}
	case in.size == 8:
		for j := range v {
			off := ra[j] - start
			if off > lim || (ra[j]+imm)&amask != 0 {
				return false
			}
			v[j] = binary.LittleEndian.Uint64(data[off:])
		}
	default:
		for j := range v {
			off := ra[j] - start
			if off > lim || (ra[j]+imm)&amask != 0 {
				return false
			}
			v[j] = extend(loadLE(data[off:], in.size), in)
		}
	}
	*rv = v
	if in.v[0] == sSink {
		*rv = [warpSize]uint64{} // a load into _ leaves the sink 0
	}
	return true
}

// fullStore runs a scalar st for all 32 lanes, in lane order, when
// fullSpan allows it, and reports whether it did. A lane whose address
// is out of the span or misaligned stops it with the lanes before it
// stored: the lane-by-lane path that then runs stores them again, the
// same values in the same order, and faults at that lane, so what
// memory holds is the same.
func (m *machine) fullStore(S []uint64, in *inst) bool {
	data, start, lim, amask, ok := m.fullSpan(S, in)
	if !ok {
		return false
	}
	imm := uint64(in.imm)
	ra, rv := lane32(S, in.a), lane32(S, in.v[0])
	switch in.size {
	case 4:
		for j := range rv {
			off := ra[j] - start
			if off > lim || (ra[j]+imm)&amask != 0 {
				return false
			}
			binary.LittleEndian.PutUint32(data[off:], uint32(rv[j]))
		}
	case 8:
		for j := range rv {
			off := ra[j] - start
			if off > lim || (ra[j]+imm)&amask != 0 {
				return false
			}
			binary.LittleEndian.PutUint64(data[off:], rv[j])
		}
	default:
		for j := range rv {
			off := ra[j] - start
			if off > lim || (ra[j]+imm)&amask != 0 {
				return false
			}
			store(data[off:], in.size, rv[j])
		}
	}
	return true
}
