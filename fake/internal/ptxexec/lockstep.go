package ptxexec

import (
	"math/bits"

	"github.com/nocgo/cuda/fake/internal/fpu"
)

// Lockstep execution: while the running lanes of a warp are converged
// (the same instruction of the kernel's entry, no call frames), runLockstep
// executes each instruction once for all of them, lane after lane, instead
// of running each thread on its own. One dispatch then serves up to 32
// threads, and a warp's registers are touched together. A branch that
// divides the lanes, a call, or a barrier or collective that only some
// lanes reach ends lockstep: every lane keeps its own pc and the
// scheduler runs them one by one (run) until they wait, as before; lanes
// released together at a barrier or collective are converged again.
//
// What a kernel can observe is what one-by-one execution allows: the
// threads of a block interleave between barriers as the CUDA memory
// model lets them, and a correct kernel cannot tell the difference.

// convergedLanes returns the running lanes of warp ts when they can run
// in lockstep: at least two, all at the same pc of the entry with no call
// frames. Otherwise it returns 0.
func (m *machine) convergedLanes(ts []thread) uint32 {
	var mask uint32
	pc := -1
	entry := m.k.fn
	for j := range ts {
		t := &ts[j]
		if t.state != tRunning {
			continue
		}
		if t.fn != entry || len(t.frames) != 0 || pc >= 0 && t.pc != pc {
			return 0
		}
		pc = t.pc
		mask |= 1 << j
	}
	if bits.OnesCount32(mask) < 2 {
		return 0
	}
	return mask
}

// runLockstep runs the lanes of mask (converged, see convergedLanes) of
// warp ts together until they all wait or exit, the lanes diverge, or a
// fault is recorded. On return every lane of mask that still runs has its
// own pc set.
func (m *machine) runLockstep(ts []thread, mask uint32) {
	code := m.k.fn.code
	var lanes [32][]uint64
	pc := 0
	for a := mask; a != 0; a &= a - 1 {
		j := bits.TrailingZeros32(a)
		lanes[j] = ts[j].regs
		pc = ts[j].pc
	}
	// desync leaves every lane at instruction at, to run one by one.
	desync := func(at int) {
		for a := mask; a != 0; a &= a - 1 {
			ts[bits.TrailingZeros32(a)].pc = at
		}
	}
	for {
		in := &code[pc]
		pc++
		act := mask
		if g := in.guard; g >= 0 {
			neg := in.flags&fGuardNeg != 0
			act = 0
			for a := mask; a != 0; a &= a - 1 {
				j := bits.TrailingZeros32(a)
				if (lanes[j][g] != 0) != neg {
					act |= 1 << j
				}
			}
			if act == 0 {
				continue
			}
		}
		d, x, y, z, msk := in.d, in.a, in.b, in.c, in.mask
		switch in.op {
		case opNop:
		case opMov:
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				r[d] = r[x] & msk
			}
		case opAddImm:
			imm := uint64(in.imm)
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				r[d] = (r[x] + imm) & msk
			}
		case opAddI:
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				r[d] = (r[x] + r[y]) & msk
			}
		case opSubI:
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				r[d] = (r[x] - r[y]) & msk
			}
		case opMulLo, opMulWideU:
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				r[d] = (r[x] * r[y]) & msk
			}
		case opMadLo, opMadWideU:
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				r[d] = (r[x]*r[y] + r[z]) & msk
			}
		case opMulWideS:
			w := in.bits
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				r[d] = uint64(sx(r[x], w)*sx(r[y], w)) & msk
			}
		case opMadWideS:
			w := in.bits
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				r[d] = (uint64(sx(r[x], w)*sx(r[y], w)) + r[z]) & msk
			}
		case opAnd:
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				r[d] = r[x] & r[y]
			}
		case opOr:
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				r[d] = r[x] | r[y]
			}
		case opXor:
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				r[d] = r[x] ^ r[y]
			}
		case opNot:
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				r[d] = ^r[x] & msk
			}
		case opShl:
			w := uint32(in.bits)
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				if s := uint32(r[y]); s < w {
					r[d] = r[x] << s & msk
				} else {
					r[d] = 0
				}
			}
		case opShrU:
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				if s := uint32(r[y]); s < 64 {
					r[d] = r[x] >> s
				} else {
					r[d] = 0
				}
			}
		case opShrS:
			w := in.bits
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				r[d] = uint64(sx(r[x], w)>>min(uint32(r[y]), 63)) & msk
			}
		case opAddF32:
			rnd := fpu.Rounding(in.mode)
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				r[d] = u32f(m.f32Result(in, fpu.AddF32(m.in32(in, r[x]), m.in32(in, r[y]), rnd)))
			}
		case opSubF32:
			rnd := fpu.Rounding(in.mode)
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				r[d] = u32f(m.f32Result(in, fpu.SubF32(m.in32(in, r[x]), m.in32(in, r[y]), rnd)))
			}
		case opMulF32:
			rnd := fpu.Rounding(in.mode)
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				r[d] = u32f(m.f32Result(in, fpu.MulF32(m.in32(in, r[x]), m.in32(in, r[y]), rnd)))
			}
		case opFmaF32:
			rnd := fpu.Rounding(in.mode)
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				r[d] = u32f(m.f32Result(in, fpu.FmaF32(m.in32(in, r[x]), m.in32(in, r[y]), m.in32(in, r[z]), rnd)))
			}
		case opAddF64:
			rnd := fpu.Rounding(in.mode)
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				r[d] = u64f(fpu.AddF64(f64(r[x]), f64(r[y]), rnd))
			}
		case opSubF64:
			rnd := fpu.Rounding(in.mode)
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				r[d] = u64f(fpu.SubF64(f64(r[x]), f64(r[y]), rnd))
			}
		case opMulF64:
			rnd := fpu.Rounding(in.mode)
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				r[d] = u64f(fpu.MulF64(f64(r[x]), f64(r[y]), rnd))
			}
		case opFmaF64:
			rnd := fpu.Rounding(in.mode)
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				r[d] = u64f(fpu.FmaF64(f64(r[x]), f64(r[y]), f64(r[z]), rnd))
			}
		case opSetpI, opSetpF:
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				m.setp(in, r)
			}
		case opSelp:
			for a := act; a != 0; a &= a - 1 {
				r := lanes[bits.TrailingZeros32(a)]
				if r[z] != 0 {
					r[d] = r[x]
				} else {
					r[d] = r[y]
				}
			}
		case opLdGlobal:
			// The lanes of one load usually read one allocation: look it
			// up once.
			if in.vec != 1 || m.obs != nil {
				if !m.loadLanes(ts, &lanes, act, in, pc) {
					return
				}
				continue
			}
			{
				n, size, v0, imm := uint64(in.size), in.size, in.v[0], uint64(in.imm)
				signed := in.kind == kS && in.bits < 32
				var c span
				for a := act; a != 0; a &= a - 1 {
					j := bits.TrailingZeros32(a)
					r := lanes[j]
					addr := r[x] + imm
					off := addr - c.base
					if off >= uint64(len(c.data)) || uint64(len(c.data))-off < n || addr&(n-1) != 0 {
						if !m.load(&ts[j], in, r, pc) {
							return
						}
						c = m.lastSpan(addr)
						continue
					}
					v := loadLE(c.data[off:off+n], size)
					if signed {
						v = extend(v, in)
					}
					r[v0] = v
				}
			}
		case opStGlobal:
			if in.vec != 1 || m.obs != nil {
				if !m.storeLanes(ts, &lanes, act, in, pc) {
					return
				}
				continue
			}
			{
				n, size, v0, imm := uint64(in.size), in.size, in.v[0], uint64(in.imm)
				var c span
				for a := act; a != 0; a &= a - 1 {
					j := bits.TrailingZeros32(a)
					r := lanes[j]
					addr := r[x] + imm
					off := addr - c.base
					if off >= uint64(len(c.data)) || uint64(len(c.data))-off < n || addr&(n-1) != 0 {
						if !m.storeOp(&ts[j], in, r, pc) {
							return
						}
						c = m.lastSpan(addr)
						continue
					}
					store(c.data[off:off+n], size, r[v0])
				}
			}
		case opLdParam, opLdShared, opLdLocal, opLdGeneric:
			if !m.loadLanes(ts, &lanes, act, in, pc) {
				return
			}
		case opStShared, opStLocal, opStGeneric:
			if !m.storeLanes(ts, &lanes, act, in, pc) {
				return
			}
		case opBra:
			if act == mask {
				pc = int(in.imm)
				continue
			}
			for a := mask; a != 0; a &= a - 1 {
				j := bits.TrailingZeros32(a)
				if act&(1<<j) != 0 {
					ts[j].pc = int(in.imm)
				} else {
					ts[j].pc = pc
				}
			}
			return
		case opRet, opExit:
			// No frames in lockstep: ret leaves the kernel.
			for a := act; a != 0; a &= a - 1 {
				t := &ts[bits.TrailingZeros32(a)]
				t.state = tExited
				t.pc = pc
			}
			mask &^= act
			if mask == 0 {
				return
			}
		case opBar, opBarRed:
			if act != mask {
				desync(pc - 1)
				return
			}
			for a := act; a != 0; a &= a - 1 {
				t := &ts[bits.TrailingZeros32(a)]
				t.pc = pc
				if !m.arrive(t, in) {
					return
				}
				t.state = tBarrier
			}
			return
		case opBarArrive:
			for a := act; a != 0; a &= a - 1 {
				t := &ts[bits.TrailingZeros32(a)]
				t.pc = pc
				if !m.arrive(t, in) {
					return
				}
			}
		case opShfl, opVote, opWarpSync, opActivemask, opRedux, opMatch:
			if act != mask {
				desync(pc - 1)
				return
			}
			for a := act; a != 0; a &= a - 1 {
				t := &ts[bits.TrailingZeros32(a)]
				t.pc = pc
				t.state = tWarp
			}
			return
		case opCall:
			desync(pc - 1)
			return
		default:
			for a := act; a != 0; a &= a - 1 {
				j := bits.TrailingZeros32(a)
				t := &ts[j]
				t.pc = pc
				if !m.slow(t, in, lanes[j]) {
					return
				}
			}
		}
	}
}

// setp computes a setp of one thread's registers r.
func (m *machine) setp(in *inst, r []uint64) {
	var ok bool
	switch {
	case in.op == opSetpF && in.bits == 32:
		ok = fpu.CompareF32(fpu.Compare(in.mode), m.in32(in, r[in.a]), m.in32(in, r[in.b]))
	case in.op == opSetpF:
		ok = fpu.CompareF64(fpu.Compare(in.mode), f64(r[in.a]), f64(r[in.b]))
	case in.kind == kS:
		ok = cmpSigned(int(in.mode), sx(r[in.a], in.bits), sx(r[in.b], in.bits))
	default:
		ok = cmpUnsigned(int(in.mode), r[in.a], r[in.b])
	}
	if in.k2 == 0 {
		r[in.d] = b2u(ok)
		if in.v[0] >= 0 {
			r[in.v[0]] = b2u(!ok)
		}
		return
	}
	m.combine(in, r, ok)
}

// load runs a ld of thread t (registers r) whose next instruction is pc.
// It reports false after a fault.
func (m *machine) load(t *thread, in *inst, r []uint64, pc int) bool {
	addr := r[in.a] + uint64(in.imm)
	n := uint64(in.size)
	if in.vec == 1 {
		switch in.op {
		case opLdParam:
			if addr < uint64(len(m.l.Params)) && uint64(len(m.l.Params))-addr >= n {
				r[in.v[0]] = extend(loadLE(m.l.Params[addr:], in.size), in)
				return true
			}
		case opLdGlobal:
			if addr&(n-1) == 0 && m.obs == nil {
				if b := m.global(addr, n); b != nil {
					r[in.v[0]] = extend(loadLE(b, in.size), in)
					return true
				}
			}
		}
	}
	t.pc = pc
	b := m.access(t, in, in.op, addr, n*uint64(in.vec))
	if b == nil {
		return false
	}
	for i := 0; i < int(in.vec); i++ {
		r[in.v[i]] = extend(loadLE(b[i*int(in.size):], in.size), in)
	}
	r[sSink] = 0
	return true
}

// storeOp runs a st of thread t (registers r) whose next instruction is
// pc. It reports false after a fault.
func (m *machine) storeOp(t *thread, in *inst, r []uint64, pc int) bool {
	addr := r[in.a] + uint64(in.imm)
	n := uint64(in.size)
	if in.op == opStGlobal && in.vec == 1 && addr&(n-1) == 0 && m.obs == nil {
		if b := m.global(addr, n); b != nil {
			store(b, in.size, r[in.v[0]])
			return true
		}
	}
	t.pc = pc
	b := m.access(t, in, in.op, addr, n*uint64(in.vec))
	if b == nil {
		return false
	}
	for i := 0; i < int(in.vec); i++ {
		store(b[i*int(in.size):], in.size, r[in.v[i]])
	}
	return true
}

// lastSpan returns the cached allocation that holds addr, or an empty
// span.
func (m *machine) lastSpan(addr uint64) span {
	for _, c := range m.cache {
		if addr-c.base < uint64(len(c.data)) {
			return c
		}
	}
	return span{}
}

// loadLanes runs ld for the lanes of act; false after a fault.
func (m *machine) loadLanes(ts []thread, lanes *[32][]uint64, act uint32, in *inst, pc int) bool {
	for a := act; a != 0; a &= a - 1 {
		j := bits.TrailingZeros32(a)
		if !m.load(&ts[j], in, lanes[j], pc) {
			return false
		}
	}
	return true
}

// storeLanes runs st for the lanes of act; false after a fault.
func (m *machine) storeLanes(ts []thread, lanes *[32][]uint64, act uint32, in *inst, pc int) bool {
	for a := act; a != 0; a &= a - 1 {
		j := bits.TrailingZeros32(a)
		if !m.storeOp(&ts[j], in, lanes[j], pc) {
			return false
		}
	}
	return true
}
