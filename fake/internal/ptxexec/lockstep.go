package ptxexec

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/nocgo/cuda/fake/internal/fpu"
	"github.com/nocgo/cuda/fake/internal/ptxexec/lanes"
)

// Lockstep execution. The threads of a warp whose lanes are all in the
// kernel's entry (no call frames) run together: each instruction is
// decoded once and executed for every lane of the group at that
// instruction, over registers laid out lane by lane (warpRegs.soa: the 32
// lanes' values of a slot side by side), so one dispatch serves up to 32
// threads. Lanes that diverge keep their own pc; the group with the lowest
// pc runs first and lanes that reach the pc of others join them, so
// if/else and loops reconverge. A lane that waits (a barrier, a warp
// collective that not all its members reached) or exits leaves the group;
// a full warp collective completes in place. A call ends lockstep for
// the warp: its registers go back to each thread's own file (thread.regs)
// and its threads run one by one (run) until they all wait or exit.
//
// What a kernel can observe is what one-by-one execution allows: threads
// of a block interleave between barriers as the CUDA memory model lets
// them, so a correct kernel cannot tell the difference.

// warpRegs holds the registers of one warp while it runs in lockstep.
type warpRegs struct {
	soa   []uint64 // slot s of lane j at soa[s*warpSize+j]
	inSoA bool     // the registers are in soa, not in the threads' files
	// paused: the machine phase in which the warp last stopped at a
	// shared store (storepause.go).
	paused uint32
	// fresh: a new block started and the threads' pc and state are
	// still the last block's; runLockstep starts them at pc 0.
	fresh bool
	// exited: every lane exited at once, in lockstep, in this block. The
	// threads' structs were left as they ran (tRunning, in the entry,
	// no frames), so that the next block starts them without a pass over
	// them; until then nothing reads them (stepBlock skips the warp
	// until the next block makes it fresh).
	exited bool
	// atCollective: a lane waits at a warp collective (stepBlock's count
	// of the warp's threads said so), for resolveWarp.
	atCollective bool
	// atBarrier: all 32 lanes wait at bar.sync barrierID together, to
	// go on at barrierPC; like exited, the threads' structs were left
	// as they ran. releaseBarriers sets resume instead of atBarrier when
	// the barrier completes, and runLockstep then starts the whole warp
	// at barrierPC.
	atBarrier, resume bool
	barrierID         uint64
	barrierPC         int
}

// lane32 returns the 32 lanes' values of slot s.
func lane32(S []uint64, s int32) *[warpSize]uint64 {
	return (*[warpSize]uint64)(S[int(s)*warpSize:])
}

// canLockstep reports whether warp ts may run in lockstep: every lane
// that has not exited is in the entry with no call frames.
func (m *machine) canLockstep(ts []thread) bool {
	entry := m.k.fn
	for j := range ts {
		if t := &ts[j]; t.state != tExited && (t.fn != entry || len(t.frames) != 0) {
			return false
		}
	}
	return true
}

// toSoA moves warp w's registers from its threads' files into w.soa.
func (m *machine) toSoA(w *warpRegs, ts []thread) {
	ns := m.k.fn.nslots
	if len(w.soa) < ns*warpSize {
		w.soa = m.newSoA(ns)
	}
	S := w.soa
	for j := range ts {
		r := ts[j].pool[0][:ns]
		for s, v := range r {
			S[s*warpSize+j] = v
		}
	}
	w.inSoA = true
}

// newSoA returns registers for a warp of ns slots, from m.soaFile: the
// warps that move there in warp order lie side by side (lanes.Warps).
func (m *machine) newSoA(ns int) []uint64 {
	n := ns * warpSize
	if len(m.soaFree) < n {
		m.soaFile = make([]uint64, n*len(m.warps))
		m.soaFree = m.soaFile
	}
	S := m.soaFree[:n:n]
	m.soaFree = m.soaFree[n:]
	return S
}

// toAoS moves warp w's registers back into its threads' files.
func (m *machine) toAoS(w *warpRegs, ts []thread) {
	if !w.inSoA {
		return
	}
	ns := m.k.fn.nslots
	S := w.soa
	for j := range ts {
		r := ts[j].pool[0][:ns]
		for s := range r {
			r[s] = S[s*warpSize+j]
		}
		ts[j].regs = r
	}
	w.inSoA = false
}

// reg reads slot s of thread t, wherever its warp keeps it.
func (m *machine) reg(t *thread, s int32) uint64 {
	if w := t.warp; w != nil && w.inSoA {
		return w.soa[int(s)*warpSize+t.lane]
	}
	return t.regs[s]
}

// setReg writes slot s of thread t.
func (m *machine) setReg(t *thread, s int32, v uint64) {
	if w := t.warp; w != nil && w.inSoA {
		w.soa[int(s)*warpSize+t.lane] = v
		return
	}
	t.regs[s] = v
}

// operands are the slots an instruction names, for moving one lane's
// operands between the warp's registers and the thread's file.
func operands(in *inst) [8]int32 {
	return [8]int32{in.d, in.a, in.b, in.c, in.v[0], in.v[1], in.v[2], in.v[3]}
}

// gather copies lane j's operands of in from S into its thread's file.
func gather(S []uint64, r []uint64, in *inst, j int) {
	for _, s := range operands(in) {
		if s >= 0 {
			r[s] = S[int(s)*warpSize+j]
		}
	}
}

// scatter copies lane j's operands of in back into S.
func scatter(S []uint64, r []uint64, in *inst, j int) {
	for _, s := range operands(in) {
		if s >= 0 {
			S[int(s)*warpSize+j] = r[s]
		}
	}
	S[sSink*warpSize+j] = 0
}

// runLockstep runs the lanes of warp ts (see canLockstep; registers in
// w.soa) until every lane waits or exits, a call needs the threads' own
// files (it then returns true, every running lane's pc set), or a fault
// is recorded.
func (m *machine) runLockstep(w *warpRegs, ts []thread) (needRun bool) {
	code := m.k.fn.code
	S := w.soa
	fresh := w.fresh
	if fresh {
		w.fresh = false
		if w.exited {
			w.exited = false // the threads are still as they ran: tRunning, in the entry
		} else {
			for j := range ts {
				m.restart(&ts[j])
			}
		}
	}
	for {
		// The running lanes with the lowest pc form the group: all of
		// them, at pc 0, in a fresh block; the whole warp at the
		// barrier's next instruction when it waited there as one.
		var grp, rest uint32
		var pc, next int
		if fresh {
			fresh = false
			grp, pc, next = uint32(uint64(1)<<len(ts)-1), 0, math.MaxInt
		} else if w.resume {
			w.resume = false
			grp, pc, next = allLanes, w.barrierPC, math.MaxInt
		} else {
			grp, rest, pc, next = lowestGroup(ts)
		}
		if grp == 0 {
			return false
		}
		// leave stores the group's pc in its lanes' threads.
		leave := func(at int) {
			for a := grp; a != 0; a &= a - 1 {
				ts[bits.TrailingZeros32(a)].pc = at
			}
		}
		// pause leaves the group spinning at the store it is at
		// (storepause.go).
		pause := func() {
			leave(pc - 1)
			for a := grp; a != 0; a &= a - 1 {
				ts[bits.TrailingZeros32(a)].state = tYield
			}
		}
	group:
		for {
			if pc == next {
				// Lanes that wait here join the group.
				next = math.MaxInt
				for a := rest; a != 0; a &= a - 1 {
					j := bits.TrailingZeros32(a)
					switch p := ts[j].pc; {
					case p == pc:
						grp |= 1 << j
						rest &^= 1 << j
					case p < next:
						next = p
					}
				}
			}
			if grp == allLanes {
				// All 32 lanes here (so none elsewhere: next is
				// math.MaxInt): straight-line code runs in one call,
				// up to an instruction it leaves to the switch below
				// (code ends with a ret that the decoder adds).
				pc = m.runFullSeq(w, ts, code, pc)
			}
			in := &code[pc]
			pc++
			act := grp
			if g := in.guard; g >= 0 && grp == allLanes {
				act = fullGuard(lane32(S, g), in.flags&fGuardNeg != 0)
				if act == 0 {
					continue
				}
			} else if g >= 0 {
				rg := lane32(S, g)
				neg := in.flags&fGuardNeg != 0
				act = 0
				for a := grp; a != 0; a &= a - 1 {
					j := bits.TrailingZeros32(a) & 31
					if (rg[j] != 0) != neg {
						act |= 1 << j
					}
				}
				if act == 0 {
					continue
				}
			}
			if act == allLanes {
				switch in.op {
				case opLdGlobal, opLdParam, opLdShared:
					if m.fullLoad(S, in, ts, pc-1) {
						continue
					}
				case opStGlobal, opStShared:
					if in.op == opStShared && m.mustPause(w) {
						pause()
						break group
					}
					if m.fullStore(S, in, ts, pc-1) {
						continue
					}
				default:
					if runFull(S, in) {
						continue
					}
				}
			}
			switch in.op {
			case opNop:
			case opFence:
				m.fenceLanes(ts, act, pc)
			case opLdGlobal, opLdParam, opLdShared, opLdLocal, opLdGeneric:
				if !m.loadLanes(ts, S, act, in, pc) {
					return false
				}
			case opStGlobal, opStShared, opStLocal, opStGeneric:
				if in.op == opStShared && m.mustPause(w) {
					pause()
					break group
				}
				if !m.storeLanes(ts, S, act, in, pc) {
					return false
				}
			case opBra:
				target := int(in.imm)
				if act == grp {
					if target < pc && m.spin() {
						for a := grp; a != 0; a &= a - 1 {
							t := &ts[bits.TrailingZeros32(a)]
							t.pc, t.state = target, tYield
						}
						break group
					}
					pc = target
					if pc > next {
						leave(pc)
						break group
					}
					continue
				}
				spin := target < pc && m.spin()
				for a := grp; a != 0; a &= a - 1 {
					j := bits.TrailingZeros32(a)
					if act&(1<<j) != 0 {
						ts[j].pc = target
						if spin {
							ts[j].state = tYield
						}
					} else {
						ts[j].pc = pc
					}
				}
				break group
			case opRet, opExit:
				// No frames in lockstep: ret leaves the kernel.
				if act == allLanes && rest == 0 {
					w.exited = true // the whole warp, as one
					return false
				}
				if act == allLanes {
					for j := range ts[:warpSize] {
						ts[j].state, ts[j].pc = tExited, pc
					}
				} else {
					for a := act; a != 0; a &= a - 1 {
						t := &ts[bits.TrailingZeros32(a)]
						t.state = tExited
						t.pc = pc
					}
				}
				if grp &^= act; grp == 0 {
					if rest == 0 {
						return false // no lane runs elsewhere
					}
					break group
				}
			case opBar, opBarRed:
				if act == allLanes && in.op == opBar && len(ts) == warpSize && m.warpArrive(w, ts, S, in, pc) {
					return false // the warp waits as one, or faulted (m.fault)
				}
				if !m.arriveLanes(ts, S, act, in, pc) {
					return false
				}
				if grp &^= act; grp == 0 {
					break group
				}
			case opBarArrive:
				for a := act; a != 0; a &= a - 1 {
					t := &ts[bits.TrailingZeros32(a)]
					t.pc = pc
					if !m.arrive(t, in) {
						return false
					}
				}
			case opShfl, opVote, opWarpSync, opActivemask, opRedux, opMatch:
				if !m.lockstepCollective(ts, S, in, act, pc) {
					// Not every member is here: the lanes wait for
					// resolveWarp.
					for a := act; a != 0; a &= a - 1 {
						t := &ts[bits.TrailingZeros32(a)]
						t.pc = pc
						t.state = tWarp
					}
					if m.fault != nil {
						return false
					}
					if grp &^= act; grp == 0 {
						break group
					}
				}
			case opNanosleep:
				// The lanes sleep: they let the block's other threads
				// and (resident.go) the other blocks run.
				for a := act; a != 0; a &= a - 1 {
					t := &ts[bits.TrailingZeros32(a)]
					t.pc, t.state = pc, tYield
				}
				m.spun = true
				if grp &^= act; grp == 0 {
					break group
				}
			case opMbarrier:
				for a := act; a != 0; a &= a - 1 {
					j := bits.TrailingZeros32(a)
					t := &ts[j]
					r := t.pool[0]
					gather(S, r, in, j)
					ok, wait := m.mbarrier(t, in, r, pc)
					scatter(S, r, in, j)
					if !ok {
						return false
					}
					if wait {
						t.pc, t.state = pc, tYield
						grp &^= 1 << j
					}
				}
				if grp == 0 {
					break group
				}
			case opCall:
				leave(pc - 1)
				return true
			default:
				if !m.lanesPure(S, ts, in, act) && !m.slowLanes(S, ts, in, act, pc) {
					return false
				}
			}
		}
	}
}

// lanesPure runs a pure instruction (integer, float and compare
// arithmetic, moves, selp, setp) for the lanes of act of warp registers S
// (ts: the warp's threads, for setp's combining forms), and reports
// whether in was one (false: it did nothing).
func (m *machine) lanesPure(S []uint64, ts []thread, in *inst, act uint32) bool {
	switch in.op {
	case opMov:
		rd := lane32(S, in.d)
		rx := lane32(S, in.a)
		msk := in.mask
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a) & 31
			rd[j] = rx[j] & msk
		}
	case opAddImm:
		rd := lane32(S, in.d)
		rx := lane32(S, in.a)
		msk := in.mask
		imm := uint64(in.imm)
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a) & 31
			rd[j] = (rx[j] + imm) & msk
		}
	case opAddI:
		rd := lane32(S, in.d)
		rx := lane32(S, in.a)
		ry := lane32(S, in.b)
		msk := in.mask
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a) & 31
			rd[j] = (rx[j] + ry[j]) & msk
		}
	case opSubI:
		rd := lane32(S, in.d)
		rx := lane32(S, in.a)
		ry := lane32(S, in.b)
		msk := in.mask
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a) & 31
			rd[j] = (rx[j] - ry[j]) & msk
		}
	case opMulLo, opMulWideU:
		rd := lane32(S, in.d)
		rx := lane32(S, in.a)
		ry := lane32(S, in.b)
		msk := in.mask
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a) & 31
			rd[j] = (rx[j] * ry[j]) & msk
		}
	case opMadLo, opMadWideU:
		rd := lane32(S, in.d)
		rx := lane32(S, in.a)
		ry := lane32(S, in.b)
		rz := lane32(S, in.c)
		msk := in.mask
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a) & 31
			rd[j] = (rx[j]*ry[j] + rz[j]) & msk
		}
	case opMulWideS:
		rd := lane32(S, in.d)
		rx := lane32(S, in.a)
		ry := lane32(S, in.b)
		msk := in.mask
		w := in.bits
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a) & 31
			rd[j] = uint64(sx(rx[j], w)*sx(ry[j], w)) & msk
		}
	case opMadWideS:
		rd := lane32(S, in.d)
		rx := lane32(S, in.a)
		ry := lane32(S, in.b)
		rz := lane32(S, in.c)
		msk := in.mask
		w := in.bits
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a) & 31
			rd[j] = (uint64(sx(rx[j], w)*sx(ry[j], w)) + rz[j]) & msk
		}
	case opAnd:
		rd := lane32(S, in.d)
		rx := lane32(S, in.a)
		ry := lane32(S, in.b)
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a) & 31
			rd[j] = rx[j] & ry[j]
		}
	case opOr:
		rd := lane32(S, in.d)
		rx := lane32(S, in.a)
		ry := lane32(S, in.b)
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a) & 31
			rd[j] = rx[j] | ry[j]
		}
	case opXor:
		rd := lane32(S, in.d)
		rx := lane32(S, in.a)
		ry := lane32(S, in.b)
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a) & 31
			rd[j] = rx[j] ^ ry[j]
		}
	case opNot:
		rd := lane32(S, in.d)
		rx := lane32(S, in.a)
		msk := in.mask
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a) & 31
			rd[j] = ^rx[j] & msk
		}
	case opShl:
		rd := lane32(S, in.d)
		rx := lane32(S, in.a)
		ry := lane32(S, in.b)
		msk := in.mask
		w := in.bits
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a) & 31
			if s := uint32(ry[j]); s < uint32(w) {
				rd[j] = rx[j] << s & msk
			} else {
				rd[j] = 0
			}
		}
	case opShrU:
		rd := lane32(S, in.d)
		rx := lane32(S, in.a)
		ry := lane32(S, in.b)
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a) & 31
			if s := uint32(ry[j]); s < 64 {
				rd[j] = rx[j] >> s
			} else {
				rd[j] = 0
			}
		}
	case opShrS:
		rd := lane32(S, in.d)
		rx := lane32(S, in.a)
		ry := lane32(S, in.b)
		msk := in.mask
		w := in.bits
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a) & 31
			rd[j] = uint64(sx(rx[j], w)>>min(uint32(ry[j]), 63)) & msk
		}
	case opAddF32, opSubF32, opMulF32:
		rd := lane32(S, in.d)
		rx := lane32(S, in.a)
		ry := lane32(S, in.b)
		rnd := fpu.Rounding(in.mode)
		op := binaryF32[in.op]
		if in.flags&(fFTZ|fSat) == 0 {
			for a := act; a != 0; a &= a - 1 {
				j := bits.TrailingZeros32(a) & 31
				rd[j] = u32f(op(f32(rx[j]), f32(ry[j]), rnd))
			}
			return true
		}
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a) & 31
			rd[j] = u32f(m.f32Result(in, op(m.in32(in, rx[j]), m.in32(in, ry[j]), rnd)))
		}
	case opFmaF32:
		rd := lane32(S, in.d)
		rx := lane32(S, in.a)
		ry := lane32(S, in.b)
		rz := lane32(S, in.c)
		rnd := fpu.Rounding(in.mode)
		if rnd == fpu.Nearest && in.flags&(fFTZ|fSat) == 0 {
			for a := act; a != 0; a &= a - 1 {
				j := bits.TrailingZeros32(a) & 31
				x, y, z := f32(rx[j]), f32(ry[j]), f32(rz[j])
				if s := math.FMA(float64(x), float64(y), float64(z)); fpu.FmaRoundsOnce(s) {
					rd[j] = u32f(float32(s))
				} else {
					rd[j] = u32f(fpu.FmaF32(x, y, z, rnd))
				}
			}
			return true
		}
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a) & 31
			rd[j] = u32f(m.f32Result(in, fpu.FmaF32(m.in32(in, rx[j]), m.in32(in, ry[j]), m.in32(in, rz[j]), rnd)))
		}
	case opAddF64, opSubF64, opMulF64:
		rd := lane32(S, in.d)
		rx := lane32(S, in.a)
		ry := lane32(S, in.b)
		rnd := fpu.Rounding(in.mode)
		op := binaryF64[in.op]
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a) & 31
			rd[j] = u64f(op(f64(rx[j]), f64(ry[j]), rnd))
		}
	case opFmaF64:
		rd := lane32(S, in.d)
		rx := lane32(S, in.a)
		ry := lane32(S, in.b)
		rz := lane32(S, in.c)
		rnd := fpu.Rounding(in.mode)
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a) & 31
			rd[j] = u64f(fpu.FmaF64(f64(rx[j]), f64(ry[j]), f64(rz[j]), rnd))
		}
	case opSelp:
		rd := lane32(S, in.d)
		rx := lane32(S, in.a)
		ry := lane32(S, in.b)
		rz := lane32(S, in.c)
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a) & 31
			if rz[j] != 0 {
				rd[j] = rx[j]
			} else {
				rd[j] = ry[j]
			}
		}
	case opSetpI, opSetpF:
		if in.op == opSetpI && in.k2 == 0 && in.v[0] < 0 {
			rd, rx, ry := lane32(S, in.d), lane32(S, in.a), lane32(S, in.b)
			mode, w := int(in.mode), in.bits
			if in.kind == kS {
				for a := act; a != 0; a &= a - 1 {
					j := bits.TrailingZeros32(a) & 31
					rd[j] = b2u(cmpSigned(mode, sx(rx[j], w), sx(ry[j], w)))
				}
			} else {
				for a := act; a != 0; a &= a - 1 {
					j := bits.TrailingZeros32(a) & 31
					rd[j] = b2u(cmpUnsigned(mode, rx[j], ry[j]))
				}
			}
			return true
		}
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a)
			r := ts[j].pool[0]
			gather(S, r, in, j)
			m.setp(in, r)
			scatter(S, r, in, j)
		}
	default:
		if !valueOps[in.op] {
			return false
		}
		// The instructions slow computes from their sources alone, lane
		// by lane on the warp's registers.
		rd := lane32(S, in.d)
		rx, ry, rz := lane32(S, srcSlot(in.a)), lane32(S, srcSlot(in.b)), lane32(S, srcSlot(in.c))
		msk := in.mask
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a) & 31
			v, _ := m.value(in, rx[j], ry[j], rz[j])
			rd[j] = v & msk
		}
		if in.d == sSink {
			*rd = [warpSize]uint64{}
		}
	}
	return true
}

// valueOps are the opcodes of machine.value.
var valueOps = func() (ops [256]bool) {
	for _, op := range [...]uint8{opMulHiU, opMulHiS, opMadHiU, opMadHiS, opDivU, opDivS, opRemU, opRemS,
		opMinU, opMaxU, opMinS, opMaxS, opAbsS, opNegI, opCnot, opPopc, opClz, opBrev, opBfeU, opBfeS,
		opDivF32, opMinF32, opMaxF32, opAbsF32, opNegF32, opCopysignF32, opSqrtF32, opRcpF32, opRsqrtF32,
		opEx2F32, opLg2F32, opSinF32, opCosF32, opTanhF32, opDivF64, opMinF64, opMaxF64, opAbsF64,
		opCopysignF64, opNegF64, opSqrtF64, opRcpF64, opRsqrtF64, opShfL, opShfR, opPrmt, opBfind, opLop3,
		opFns, opDp4a, opDp2a, opCvt, opHalf, opCvtPack} {
		ops[op] = true
	}
	return ops
}()

// srcSlot is source slot s, or the zero slot for an operand the
// instruction does not have (-1).
func srcSlot(s int32) int32 {
	if s < 0 {
		return sZero
	}
	return s
}

// slowLanes runs in, whose next instruction is pc, for the lanes act of
// the warp whose registers are S and threads ts, one by one on each
// thread's scalar registers (gather, slow, scatter). It reports false
// after a fault.
func (m *machine) slowLanes(S []uint64, ts []thread, in *inst, act uint32, pc int) bool {
	for a := act; a != 0; a &= a - 1 {
		j := bits.TrailingZeros32(a)
		t := &ts[j]
		t.pc = pc
		r := t.pool[0]
		gather(S, r, in, j)
		ok := m.slow(t, in, r)
		scatter(S, r, in, j)
		if !ok {
			return false
		}
	}
	return true
}

// binaryF32 are the float32 operations of opAddF32, opSubF32 and
// opMulF32.
var binaryF32 = [...]func(a, b float32, r fpu.Rounding) float32{
	opAddF32: fpu.AddF32, opSubF32: fpu.SubF32, opMulF32: fpu.MulF32,
}

// binaryF64 are the float64 operations of opAddF64, opSubF64 and
// opMulF64, by op.
var binaryF64 = [...]func(a, b float64, r fpu.Rounding) float64{
	opAddF64: fpu.AddF64, opSubF64: fpu.SubF64, opMulF64: fpu.MulF64,
}

// lowestGroup returns the running lanes of ts with the lowest pc (grp,
// at pc), the other running lanes (rest) and the lowest pc among those
// (next; math.MaxInt for none).
func lowestGroup(ts []thread) (grp, rest uint32, pc, next int) {
	pc, next = math.MaxInt, math.MaxInt
	for j := range ts {
		t := &ts[j]
		if t.state != tRunning {
			continue
		}
		switch {
		case t.pc < pc:
			rest |= grp
			next = pc
			grp, pc = 1<<j, t.pc
		case t.pc == pc:
			grp |= 1 << j
		default:
			rest |= 1 << j
			next = min(next, t.pc)
		}
	}
	return grp, rest, pc, next
}

// lockstepCollective completes warp collective in for the lanes of act
// when every member lane that has not exited is among them (or already
// waits at it), and reports whether it did.
func (m *machine) lockstepCollective(ts []thread, S []uint64, in *inst, act uint32, pc int) bool {
	here := act
	for j := range ts {
		if ts[j].state == tWarp && ts[j].pc == pc {
			here |= 1 << j
		}
	}
	var live uint32
	for j := range ts {
		if ts[j].state != tExited {
			live |= 1 << j
		}
	}
	var group uint32
	var groups [warpSize]uint32 // each lane's member lanes
	for a := act; a != 0; a &= a - 1 {
		j := bits.TrailingZeros32(a)
		var member uint32
		switch in.op {
		case opShfl:
			member = uint32(S[int(in.v[1])*warpSize+j])
		case opVote, opRedux, opMatch:
			member = uint32(S[int(in.b)*warpSize+j])
		case opWarpSync:
			member = uint32(S[int(in.a)*warpSize+j])
		case opActivemask:
			member = here
		}
		if member&(1<<j) == 0 {
			t := &ts[j]
			t.pc = pc
			m.fail(t, in, CodeIllegalInstr, 0, "the thread is not in the member mask")
			return false
		}
		if member&live&^act != 0 {
			return false
		}
		group |= member & live
		groups[j] = member & live
	}
	if group&^act != 0 {
		return false
	}
	for a := act; a != 0; a &= a - 1 {
		j := bits.TrailingZeros32(a)
		gather(S, ts[j].pool[0], in, j)
		ts[j].regs = ts[j].pool[0]
	}
	// Lanes at one collective with different member masks (the groups of
	// a labeled or binary partition) complete it group by group.
	for a := act; a != 0; {
		g := groups[bits.TrailingZeros32(a)]
		m.collective(ts, in, g)
		a &^= g
	}
	for a := act; a != 0; a &= a - 1 {
		j := bits.TrailingZeros32(a)
		scatter(S, ts[j].pool[0], in, j)
	}
	return true
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

// loadLanes runs ld for the lanes of act, whose next instruction is pc.
// It reports false after a fault.
func (m *machine) loadLanes(ts []thread, S []uint64, act uint32, in *inst, pc int) bool {
	ra := lane32(S, in.a)
	imm := uint64(in.imm)
	n, size := uint64(in.size), in.size
	if in.vec == 1 && (in.op == opLdGlobal && m.gr == nil || in.op == opLdParam) {
		// The lanes of one load usually read one allocation: look it up
		// once; an Observer is told of each run of consecutive lanes'
		// addresses at once (observewarp.go).
		rv := lane32(S, in.v[0])
		signed := in.kind == kS && in.bits < 32
		var c span
		if in.op == opLdParam {
			c = span{0, m.l.Params}
		}
		obs := m.obs != nil && in.op == opLdGlobal
		runs := m.newLaneRuns(ts, pc-1, in)
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a) & 31
			addr := ra[j] + imm
			off := addr - c.base
			if off >= uint64(len(c.data)) || uint64(len(c.data))-off < n || addr&(n-1) != 0 && in.op == opLdGlobal {
				if in.op == opLdParam {
					ts[j].pc = pc
					m.fail(&ts[j], in, CodeIllegalAddress, addr, "out-of-bounds access")
					return false
				}
				b := m.laneGlobal(&runs, obs, j, addr, n)
				if b == nil {
					t := &ts[j]
					t.pc = pc
					if b = m.access(t, in, in.op, addr, n); b == nil {
						return false
					}
				}
				rv[j] = extend(loadLE(b, size), in)
				c = m.lastSpan(addr)
				continue
			}
			if obs {
				runs.add(j, addr, n)
			}
			if n == 4 && !signed {
				rv[j] = uint64(binary.LittleEndian.Uint32(c.data[off : off+4]))
				continue
			}
			rv[j] = extend(loadLE(c.data[off:off+n], size), in)
		}
		if obs {
			runs.flush()
		}
		return true
	}
	if act == allLanes && m.observedFull(ts, S, in, pc) {
		return true
	}
	for a := act; a != 0; a &= a - 1 {
		j := bits.TrailingZeros32(a) & 31
		t := &ts[j]
		t.pc = pc
		locked := m.lockStrong(t)
		b := m.access(t, in, in.op, ra[j]+imm, n*uint64(in.vec))
		if b == nil {
			m.unlockStrong(locked)
			return false
		}
		for i := 0; i < int(in.vec); i++ {
			S[int(in.v[i])*warpSize+j] = extend(loadLE(b[i*int(size):], size), in)
		}
		m.unlockStrong(locked)
		S[sSink*warpSize+j] = 0
	}
	return true
}

// storeLanes runs st for the lanes of act, whose next instruction is pc.
// It reports false after a fault.
func (m *machine) storeLanes(ts []thread, S []uint64, act uint32, in *inst, pc int) bool {
	ra := lane32(S, in.a)
	imm := uint64(in.imm)
	n, size := uint64(in.size), in.size
	if in.vec == 1 && in.op == opStGlobal && m.gr == nil {
		rv := lane32(S, in.v[0])
		var c span
		obs := m.obs != nil
		runs := m.newLaneRuns(ts, pc-1, in)
		for a := act; a != 0; a &= a - 1 {
			j := bits.TrailingZeros32(a) & 31
			addr := ra[j] + imm
			off := addr - c.base
			if off >= uint64(len(c.data)) || uint64(len(c.data))-off < n || addr&(n-1) != 0 {
				b := m.laneGlobal(&runs, obs, j, addr, n)
				if b == nil {
					t := &ts[j]
					t.pc = pc
					if b = m.access(t, in, in.op, addr, n); b == nil {
						return false
					}
				}
				store(b, size, rv[j])
				c = m.lastSpan(addr)
				continue
			}
			if obs {
				runs.add(j, addr, n)
			}
			if n == 4 {
				binary.LittleEndian.PutUint32(c.data[off:off+4], uint32(rv[j]))
				continue
			}
			store(c.data[off:off+n], size, rv[j])
		}
		if obs {
			runs.flush()
		}
		return true
	}
	if act == allLanes && m.observedFull(ts, S, in, pc) {
		return true
	}
	for a := act; a != 0; a &= a - 1 {
		j := bits.TrailingZeros32(a) & 31
		t := &ts[j]
		t.pc = pc
		locked := m.lockStrong(t)
		b := m.access(t, in, in.op, ra[j]+imm, n*uint64(in.vec))
		if b == nil {
			m.unlockStrong(locked)
			return false
		}
		for i := 0; i < int(in.vec); i++ {
			store(b[i*int(size):], size, S[int(in.v[i])*warpSize+j])
		}
		m.unlockStrong(locked)
	}
	return true
}

// laneGlobal returns the n bytes at addr of global memory for lane j of
// loadLanes or storeLanes when they are in bounds and aligned, noting the
// access in runs when obs is set; nil otherwise (the lane then goes
// through access, which reports a fault or tells the Observer).
func (m *machine) laneGlobal(runs *laneRuns, obs bool, j int, addr, n uint64) []byte {
	if !obs {
		return nil
	}
	var b []byte
	if addr&(n-1) == 0 {
		b = m.global(addr, n)
	}
	if b == nil {
		runs.flush() // the lanes before the fault were observed
		return nil
	}
	runs.add(j, addr, n)
	return b
}

// lastSpan returns the cached allocation that holds addr, or an empty
// span.
func (m *machine) lastSpan(addr uint64) span {
	// The first entry that holds addr, found without a branch on which
	// one (the allocations of a kernel's accesses take turns): i ends at
	// the lowest match, len(m.cache) when none.
	i := len(m.cache)
	for j := len(m.cache) - 1; j >= 0; j-- {
		c := &m.cache[j]
		_, inside := bits.Sub64(addr-c.base, uint64(len(c.data)), 0) // 1: addr is in c
		i += (j - i) & -int(inside)
	}
	if i == len(m.cache) {
		return span{}
	}
	return m.cache[i]
}

// blockLanes sets the block's own values (%ctaid, %smid and the registers
// that alias them) in the lanes of warp w at the start of a block.
func (m *machine) blockLanes(w *warpRegs) {
	slots := m.k.fn.blockSlots
	if m.aff {
		slots = m.bp.laneBlock // (blockSlotLanes writes the others when needed)
	}
	for _, a := range slots {
		l := lane32(w.soa, a.slot)
		v := m.tmpl[a.special]
		for j := range l {
			l[j] = v
		}
	}
}

// warpArrive counts the 32 lanes of warp w at bar.sync in (their next
// instruction pc) as one arrival of 32 when they name the same barrier
// and thread count, and leaves the warp waiting there as a whole
// (w.atBarrier) without marking each thread; it reports whether it did
// (true also after a fault, m.fault set). Otherwise it does nothing and
// arriveLanes counts the lanes.
func (m *machine) warpArrive(w *warpRegs, ts []thread, S []uint64, in *inst, pc int) bool {
	ra, rb := lane32(S, in.a), lane32(S, in.b)
	if !lanes.Consecutive(ra, 0) || !lanes.Consecutive(rb, 0) {
		return false
	}
	t := &ts[0]
	t.pc = pc // for a fault's line
	if !m.arrive(t, in) {
		return true
	}
	id := ra[0] & 0xffffffff
	m.barriers[id].arrived += warpSize - 1
	w.atBarrier, w.barrierID, w.barrierPC = true, id, pc
	return true
}

// arriveLanes counts the lanes of act at barrier instruction in (their
// next instruction pc) and leaves them waiting; one count for all when
// they name the same barrier and thread count, as they do in aligned
// code. It reports false after a fault.
func (m *machine) arriveLanes(ts []thread, S []uint64, act uint32, in *inst, pc int) bool {
	ra, rb := lane32(S, in.a), lane32(S, in.b)
	first := bits.TrailingZeros32(act)
	var diff uint64
	for a := act; a != 0; a &= a - 1 {
		j := bits.TrailingZeros32(a) & 31
		diff |= ra[j] ^ ra[first] | rb[j] ^ rb[first]
	}
	same := diff == 0
	for a := act; a != 0; a &= a - 1 {
		t := &ts[bits.TrailingZeros32(a)]
		t.pc, t.state = pc, tBarrier
	}
	if !same {
		for a := act; a != 0; a &= a - 1 {
			if !m.arrive(&ts[bits.TrailingZeros32(a)], in) {
				return false
			}
		}
		return true
	}
	if !m.arrive(&ts[first], in) {
		return false
	}
	m.barriers[ra[first]&0xffffffff].arrived += uint32(bits.OnesCount32(act)) - 1
	return true
}
