package ptxexec

import (
	"math/bits"
	"slices"

	"github.com/nocgo/cuda/fake/internal/fpu"
	"github.com/nocgo/cuda/fake/internal/ptxexec/lanes"
)

// Fused runs: an elementwise kernel's body (saxpy's two loads, fma and
// store) or a reduction's step (block_sum's two shared loads, add and
// store) is a run of straight-line instructions whose loads and stores
// are affine runs of float32 (plainAffineAccess's) and whose arithmetic
// is float32 on the values loaded there. Found once at translation
// (findFused), such a window runs for a group of consecutive threads as
// a few passes over memory (runFused): each load is the run of bytes it
// reads, each operation one call of package lanes' packed float32 code
// into a buffer of the machine, each store a copy of one into memory. No
// value goes through the warps' registers, and the window is one step of
// runWhole or runGroup, not one per instruction.
//
// That is the same as running the window's instructions one at a time
// for the group, as runBlock does (each for every thread before the
// next), because of what findFused requires:
//   - the values loaded and computed in the window are read nowhere else
//     (no instruction outside it names their slots), so their registers
//     need not hold them;
//   - every slot written in the window is written once there, and read
//     there only after that write: its affine instructions (the
//     addresses) can all run first, as they read no loaded value, and
//     running them a second time (runBlock does, when runFused declines
//     after them) gives the same forms;
//   - no load follows a store, so every load reads memory as it was
//     before the window, which is what the operations read (the loaded
//     bytes, before any store); the stores then write in program order;
//     a store writes a computed value (a buffer), never loaded bytes that
//     an earlier store might have changed;
//   - every instruction is unguarded and the window holds no branch
//     target (every thread that reads a value there has written it in
//     the same pass).
//
// And runFused does it only where plainAffineAccess would have moved
// each access as one run (no checks, strides of 4, in bounds and
// aligned: the same spans); otherwise it declines before any memory is
// touched, and the instructions run one at a time (to the lane that
// faults, if one does).

// maxFused is the most memory accesses, and the most values, of a
// window (runFused keeps them in arrays of its own).
const maxFused = 8

// fusedWindow is a fused run of the block program: the instructions from
// its first load up to end (exclusive). Its values are numbered: the
// loads' 0..nload-1 in order, then the operations' in order.
type fusedWindow struct {
	end    int
	affine []int32   // the affine instructions, in order
	mem    []int32   // the loads, then the stores, in order
	nload  int       // mem[:nload] are the loads
	ops    []fusedOp // the operations, in order
	stores []int32   // the value each store (mem[nload:]) writes
	nbufs  int       // buffers: operations and uniform sources
	uni    bool      // an operation reads a uniform slot (machine.ur, while uOK)
	global bool      // it accesses global memory (checked with an Observer)
	shared bool      // it accesses shared memory (checked with the race checks)
}

// fusedOp is one operation of a window: its sources are values (src >=
// 0) or uniform slots (slot) broadcast into buffer buf; it writes its
// result to buffer out.
type fusedOp struct {
	op   uint8
	src  [3]int32
	slot [3]int32
	buf  [3]int32
	out  int32
}

// findFused sets bp.fused: the window starting at each instruction that
// begins one (nil elsewhere), and markFused in bp.marks there.
func (bp *blockProgram) findFused(f *function) {
	code := f.code
	target := make([]bool, len(code)+1)
	for i := range code {
		if in := &code[i]; in.op == opBra && in.imm >= 0 && int(in.imm) <= len(code) {
			target[in.imm] = true
		}
	}
	for i := 0; i < len(code); i++ {
		if !fusibleLoad(&code[i]) || !bp.readsAff[i] {
			continue
		}
		if w := bp.window(code, target, i); w != nil {
			if bp.fused == nil {
				bp.fused = make([]*fusedWindow, len(code))
			}
			bp.fused[i] = w
			bp.marks[i] |= markFused
			i = w.end - 1
		}
	}
}

// fusibleLoad and fusibleStore report whether in is a load or store a
// window may hold: a scalar 4-byte ld or st of global or shared memory,
// unguarded, its value a register.
func fusibleLoad(in *inst) bool {
	return (in.op == opLdGlobal || in.op == opLdShared) && in.vec == 1 && in.size == 4 && in.guard < 0 && in.v[0] >= nSpecial
}

func fusibleStore(in *inst) bool {
	return (in.op == opStGlobal || in.op == opStShared) && in.vec == 1 && in.size == 4 && in.guard < 0
}

// fusibleOp reports whether in is float32 arithmetic a window may hold:
// add, sub, mul or fma, rounded to nearest, without ftz or saturation,
// unguarded.
func fusibleOp(in *inst) bool {
	switch in.op {
	case opAddF32, opSubF32, opMulF32, opFmaF32:
		return in.guard < 0 && in.flags&(fFTZ|fSat) == 0 && fpu.Rounding(in.mode) == fpu.Nearest && in.d >= nSpecial
	}
	return false
}

// window returns the longest window starting with the load at i that
// ends with a store and holds an operation (nil: none).
func (bp *blockProgram) window(code []inst, target []bool, i int) *fusedWindow {
	w := &fusedWindow{}
	type value struct {
		slot     int32
		computed bool // an operation's (not a load's)
	}
	var vals []value
	valOf := func(s int32) (int32, bool) {
		for k, v := range vals {
			if v.slot == s {
				return int32(k), true
			}
		}
		return 0, false
	}
	var loads, stores []int32
	writer := map[int32]int{}            // a slot written in the window: its writer
	read := map[int32]bool{}             // the slots read in the window so far
	reads := func(j int, s int32) bool { // a read at j of s is allowed
		read[s] = true
		k, ok := writer[s]
		return !ok || k < j
	}
	write := func(j int, s int32) bool { // once, and not after a read
		if _, ok := writer[s]; ok || read[s] {
			return false
		}
		writer[s] = j
		return true
	}
	var best *fusedWindow // the window up to the last store so far
scan:
	for j := i; j < len(code); j++ {
		in := &code[j]
		if j > i && target[j] {
			break
		}
		switch mk := bp.marks[j]; {
		case mk&markHoisted != 0:
			continue
		case mk&markUniform != 0:
			break scan
		case mk&markAffine != 0:
			for _, s := range affineSources(in) {
				if s >= 0 && !reads(j, s) {
					break scan
				}
			}
			if !write(j, in.d) {
				break scan
			}
			w.affine = append(w.affine, int32(j))
		case fusibleLoad(in) && bp.readsAff[j] && len(stores) == 0:
			if len(loads) == maxFused || len(vals) == maxFused || !reads(j, in.a) || !write(j, in.v[0]) {
				break scan
			}
			// The loads' values come first: number them as loads are
			// found, the operations' after (renumbered below).
			loads = append(loads, int32(j))
			vals = append(vals, value{slot: in.v[0]})
			w.global = w.global || in.op == opLdGlobal
			w.shared = w.shared || in.op == opLdShared
		case fusibleOp(in):
			if len(vals) == maxFused {
				break scan
			}
			o := fusedOp{op: in.op, src: [3]int32{-1, -1, -1}, slot: [3]int32{-1, -1, -1}, buf: [3]int32{-1, -1, -1}}
			srcs := []int32{in.a, in.b}
			if in.op == opFmaF32 {
				srcs = append(srcs, in.c)
			}
			for k, s := range srcs {
				if !reads(j, s) {
					break scan
				}
				if v, ok := valOf(s); ok {
					o.src[k] = v
					continue
				}
				if s < 0 || int(s) >= len(bp.uslot) || !bp.uslot[s] || bp.fidx[s] >= 0 {
					break scan
				}
				o.slot[k], o.buf[k] = s, int32(w.nbufs)
				w.nbufs++
				w.uni = true
			}
			if !write(j, in.d) {
				break scan
			}
			o.out = int32(w.nbufs)
			w.nbufs++
			vals = append(vals, value{slot: in.d, computed: true})
			w.ops = append(w.ops, o)
		case fusibleStore(in) && bp.readsAff[j]:
			v, ok := valOf(in.v[0])
			if !ok || !vals[v].computed || !reads(j, in.a) || len(loads)+len(stores) == maxFused {
				break scan // (a store of loaded bytes: see the file's comment)
			}
			stores = append(stores, int32(j))
			w.stores = append(w.stores, v)
			w.global = w.global || in.op == opStGlobal
			w.shared = w.shared || in.op == opStShared
			if len(w.ops) > 0 {
				c := *w
				c.end = j + 1
				c.affine, c.ops, c.stores = slices.Clone(w.affine), slices.Clone(w.ops), slices.Clone(w.stores)
				c.mem, c.nload = append(slices.Clone(loads), stores...), len(loads)
				best = &c
			}
		default:
			break scan
		}
	}
	if best == nil {
		return nil
	}
	// The loads' values are 0..nload-1 only if no operation came between
	// two loads: renumber the values in the order runFused sets them.
	num := make([]int32, len(vals))
	nl, no := int32(0), int32(best.nload)
	for k, v := range vals {
		if v.computed {
			num[k], no = no, no+1
		} else {
			num[k], nl = nl, nl+1
		}
	}
	for k := range best.ops {
		for s := range best.ops[k].src {
			if v := best.ops[k].src[s]; v >= 0 {
				best.ops[k].src[s] = num[v]
			}
		}
	}
	for k, v := range best.stores {
		best.stores[k] = num[v]
	}
	// The values are read nowhere outside the window.
	for _, v := range vals {
		for k := range code {
			if k >= i && k < best.end {
				continue
			}
			in := &code[k]
			ops := operands(in)
			if in.guard == v.slot || slices.Contains(ops[:], v.slot) {
				return nil
			}
		}
	}
	return best
}

// runFused runs the window at pc for the threads of act (full: every
// lane of every warp; uOK: machine.ur holds the uniform values), as the
// file's comment says, and reports whether it did; false: nothing was
// done but maybe some of its affine instructions (which running them
// again redoes), and the caller runs the instructions one at a time.
func (m *machine) runFused(pc int, act *blockMask, full, uOK bool) bool {
	w := m.bp.fused[pc]
	if w.uni && !uOK || w.shared && m.races != nil {
		return false
	}
	t0, t1, ok := m.consecutive(act, full)
	if !ok {
		return false
	}
	code := m.k.fn.code
	checks := w.global && m.obs != nil // (m.checked of its global accesses)
	if checks {
		for _, j := range w.mem {
			if !m.checkableRun(&code[j], act, int(j)+1) {
				return false
			}
		}
	}
	for _, j := range w.affine {
		if !m.affineStep(&code[j], act, full, uOK) {
			return false
		}
	}
	n := uint64(t1-t0+1) * 4
	// vals holds the loads' runs of memory (values 0..nload-1), the
	// operations' buffers after them, and the stores' runs last.
	var vals [2 * maxFused][]byte
	var addrs [maxFused]uint64 // thread 0's addresses (the checks')
	nv := w.nload + len(w.ops)
	for k, j := range w.mem {
		data, off0, a0, ok := m.affineRun(&code[j], act, t0, t1)
		if !ok {
			return false
		}
		addrs[k] = a0 + uint64(code[j].imm) - 4*uint64(t0)
		if k >= w.nload {
			k += len(w.ops)
		}
		vals[k] = data[off0 : off0+n]
	}
	if m.nt != len(m.threads) && crossThread(addrs[:len(w.mem)], w.nload, n) {
		return false // (a batch of blocks: see crossThread)
	}
	if checks {
		for k, j := range w.mem[:w.nload] {
			if code[j].op == opLdGlobal {
				m.checkGlobalRun(&code[j], act, int(j)+1, addrs[k])
			}
		}
	}
	stride := 4 * m.nt
	if need := w.nbufs * stride; len(m.fusedBuf) < need {
		m.fusedBuf = make([]byte, need)
	}
	bufs := m.fusedBuf
	for i := range w.ops {
		o := &w.ops[i]
		var src [3][]byte
		for s := range src {
			if v := o.src[s]; v >= 0 {
				src[s] = vals[v]
			} else if o.slot[s] >= 0 {
				src[s] = bufs[int(o.buf[s])*stride:][:n]
				lanes.FillF32s(src[s], uint32(m.ur[o.slot[s]]))
			}
		}
		d := bufs[int(o.out)*stride:][:n]
		switch o.op {
		case opAddF32:
			lanes.AddF32s(d, src[0], src[1])
		case opSubF32:
			lanes.SubF32s(d, src[0], src[1])
		case opMulF32:
			lanes.MulF32s(d, src[0], src[1])
		case opFmaF32:
			lanes.FmaF32s(d, src[0], src[1], src[2])
		}
		vals[w.nload+i] = d
	}
	for k, v := range w.stores {
		j := w.mem[w.nload+k]
		in := &code[j]
		if !checks || in.op != opStGlobal {
			copy(vals[nv+k], vals[v])
			continue
		}
		locked := m.lockStore(in)
		m.checkGlobalRun(in, act, int(j)+1, addrs[w.nload+k])
		copy(vals[nv+k], vals[v])
		m.unlockStrong(locked)
	}
	return true
}

// consecutive returns the first and last thread of act when every
// thread between them is in act (full: every thread of the block); ok
// false when act is empty or has a gap.
func (m *machine) consecutive(act *blockMask, full bool) (t0, t1 int, ok bool) {
	if full {
		return 0, m.nt - 1, true
	}
	w0, w1, some := activeWarps(act, len(m.warps))
	if !some {
		return 0, 0, false
	}
	lo, hi := act[w0], act[w1]
	t0 = 32*w0 + bits.TrailingZeros32(lo)
	t1 = 32*w1 + 31 - bits.LeadingZeros32(hi)
	if w0 == w1 {
		// One warp: its lanes t0..t1, with no gap.
		span := uint32(uint64(1)<<(t1-t0+1)-1) << (t0 - 32*w0)
		return t0, t1, lo == span
	}
	if lo != ^uint32(0)<<(t0-32*w0) || hi != uint32(uint64(1)<<(t1-32*w1+1)-1) {
		return 0, 0, false
	}
	for w := w0 + 1; w < w1; w++ {
		if act[w] != allLanes {
			return 0, 0, false
		}
	}
	return t0, t1, true
}

// crossThread reports whether a window's store run overlaps another of
// its runs (the loads' addrs[:nload], then the stores', each n bytes) by
// other than its whole: then a thread's store meets another thread's
// access. Within a block the window's order decides what that leaves,
// as instruction after instruction does; between blocks their order
// does, which a batch (runBatch) would not keep, so a batch declines.
func crossThread(addrs []uint64, nload int, n uint64) bool {
	for i := nload; i < len(addrs); i++ {
		for j, a := range addrs {
			if j != i && a != addrs[i] && a < addrs[i]+n && addrs[i] < a+n {
				return true
			}
		}
	}
	return false
}
