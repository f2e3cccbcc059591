package ptxexec

// Batches of blocks: an elementwise kernel (saxpy: i = blockIdx.x *
// blockDim.x + threadIdx.x, a bounds check, a fused window of loads,
// float32 arithmetic and stores, the end) does the same in every block
// but for where in memory; what a block costs beyond its window (its
// start, its affine steps, its guard, the dispatch) is paid for few
// threads. runBatch runs k consecutive blocks of such a kernel as one:
// its affine steps and its window for the k*ntid threads of the
// batch at once, each load and store one run over the batch's memory.
//
// That is what the blocks do one after another, because of what
// findBatch requires of the code:
//   - it is straight-line code to a ret: affine instructions (the forms
//     of affine.go), guarded branches to a ret whose predicates are
//     affine, and one fused window (fused.go) that the ret follows;
//     hoisted instructions run once per machine, as in runBlock. No
//     shared memory, no barrier, no atomic, no loop: no block can wait
//     for another or yield;
//   - the thread's position (%tid.x, %ctaid.x and the registers
//     preloaded with them) is read only by one instruction, mad.lo of
//     %ctaid.x, %ntid.x and %tid.x: the thread's index in the grid, g.
//     No other position (%tid.y, %laneid, %smid, ...) is read. So in a
//     batch of blocks b0..b0+k-1, with %ctaid.x b0 and %tid.x t' in
//     0..k*ntid-1, that mad gives each thread its own g (b0*ntid + t'),
//     and every value after it is the value of the thread g as its own
//     block computes it.
//
// And runBatch does the batch only where every step holds for all its
// threads at once: each affine step exact over the batch (exactInt and
// predRange over its threads), each guard the same for all of them, the
// window's runs each in one allocation (runFused's, which declines
// before it touches memory), and no store run meeting another run but
// whole (crossThread: a thread's store would meet another block's
// access, whose order block after block decides). Otherwise it returns
// false having written nothing but the machine's scalars and forms,
// which runBlock sets again, and the blocks run one by one as before,
// faults and all.
//
// Batches need a launch without an Observer or in-kernel checks (which
// see each block's accesses), a 1-D grid and 1-D blocks.

// maxBatchThreads is the most threads a batch holds: its buffers
// (runFused's, 4 bytes a thread each) stay in the core's caches.
const maxBatchThreads = 8192

// batchPlan is the shape findBatch found: the fused window at window,
// which a ret follows.
type batchPlan struct {
	window int
}

// findBatch sets bp.batch when f's code is a batch's (the file's
// comment); after findFused.
func (bp *blockProgram) findBatch(f *function) {
	code := f.code
	if bp.shared || bp.barrier != ^uint64(0) || bp.fused == nil {
		return
	}
	ws := -1
	for pc := range code {
		if bp.fused[pc] != nil {
			ws = pc
			break
		}
	}
	if ws < 0 {
		return
	}
	w := bp.fused[ws]
	ret := w.end
	isRet := func(pc int) bool { return pc < len(code) && code[pc].op == opRet && code[pc].guard < 0 }
	if !isRet(ret) || w.shared {
		return
	}
	pos, ctaid, tid, ntid := positionSlots(f)
	// reads reports whether s is an allowed source: no position.
	reads := func(s int32) bool { return s < 0 || int(s) >= len(pos) || !pos[s] }
	gIndex := func(in *inst) bool {
		if in.op != opMadLo || in.guard >= 0 || !tid[in.c] {
			return false
		}
		return ctaid[in.a] && ntid[in.b] || ntid[in.a] && ctaid[in.b]
	}
	for pc := 0; pc < ret; pc++ {
		in, mk := &code[pc], bp.marks[pc]
		switch {
		case mk&markHoisted != 0:
			continue
		case mk&markAffine != 0:
			if gIndex(in) {
				continue
			}
			for _, s := range affineSources(in) {
				if !reads(s) {
					return
				}
			}
		case pc < ws && in.op == opBra && in.guard >= 0 && int(in.imm) >= ret && isRet(int(in.imm)) && bp.fidx[in.guard] >= 0:
		case pc >= ws && (fusibleLoad(in) || fusibleStore(in)):
			if !reads(in.a) || fusibleStore(in) && !reads(in.v[0]) {
				return
			}
		case pc >= ws && fusibleOp(in):
			if !reads(in.a) || !reads(in.b) || in.op == opFmaF32 && !reads(in.c) {
				return
			}
		default:
			return
		}
	}
	// The window's uniform sources must be the launch's, not a block's.
	for _, o := range w.ops {
		for _, s := range o.slot {
			if s >= 0 && !launchInvariant(bp, f, pos, s) {
				return
			}
		}
	}
	bp.batch = &batchPlan{window: ws}
}

// launchInvariant reports whether uniform slot s holds one value for the
// whole launch: a constant, a parameter, a launch-wide special register
// (or a register preloaded with one), or a hoisted instruction's result;
// pos is positionSlots'.
func launchInvariant(bp *blockProgram, f *function, pos []bool, s int32) bool {
	if pos[s] {
		return false
	}
	for pc := range f.code {
		for _, d := range written(&f.code[pc]) {
			if d == s && !bp.hoisted[pc] {
				return false
			}
		}
	}
	return true
}

// positionSlots marks the slots that hold a thread's or block's position
// (%tid, %ctaid, %laneid, %warpid, %smid, the lane masks, and the
// registers preloaded with them), and among them %ctaid.x's and
// %tid.x's; ntid marks %ntid.x's.
func positionSlots(f *function) (pos, ctaid, tid, ntid []bool) {
	pos, ctaid, tid, ntid = make([]bool, f.nslots), make([]bool, f.nslots), make([]bool, f.nslots), make([]bool, f.nslots)
	for _, s := range [...]int32{sTidX, sTidY, sTidZ, sCtaidX, sCtaidY, sCtaidZ, sLaneid, sWarpid, sSmid,
		sLanemaskEq, sLanemaskLt, sLanemaskLe, sLanemaskGt, sLanemaskGe} {
		pos[s] = true
	}
	ctaid[sCtaidX], tid[sTidX], ntid[sNtidX] = true, true, true
	for _, a := range f.aliases {
		pos[a.slot] = pos[a.special]
		ctaid[a.slot], tid[a.slot], ntid[a.slot] = a.special == sCtaidX, a.special == sTidX, a.special == sNtidX
	}
	return pos, ctaid, tid, ntid
}

// batchSize is how many blocks from the next, of the left not yet
// taken, a machine runs as one batch (runBatch) on a launch of workers
// workers: 0 where batches do not apply. It leaves each worker several
// batches, so that workers share a launch's blocks.
func (m *machine) batchSize(left uint64, workers int) int {
	l := m.l
	if m.bp == nil || m.bp.batch == nil || m.obs != nil || m.races != nil || m.gr != nil ||
		l.Grid[1] != 1 || l.Grid[2] != 1 || l.Block[1] != 1 || l.Block[2] != 1 {
		return 0
	}
	k := uint64(maxBatchThreads / max(len(m.threads), 1))
	k = min(k, left/uint64(4*max(workers, 1)))
	if k < 2 {
		return 0
	}
	return int(k)
}

// runBatch runs blocks b0..b0+k-1 as one batch (the file's comment) and
// reports whether it did; false: the blocks are still to run, and
// nothing but the machine's scalars and forms was written. The machine
// must have run a block of the launch (its hoisted values are set).
func (m *machine) runBatch(b0 uint64, k int) bool {
	bp := m.bp
	if !m.hoisted || !m.aff {
		return false
	}
	m.setBlock(b0)
	m.blockTemplate()
	for _, a := range m.k.fn.blockSlots {
		m.ur[a.slot] = m.tmpl[a.special]
	}
	for _, i := range bp.reset {
		m.forms[i].ok = false // (the next runBlock forgets the batch's, as it forgets a block's)
	}
	m.nt = k * len(m.threads)
	ok := m.runBatchCode()
	m.nt = len(m.threads)
	return ok
}

// runBatchCode runs the batch plan's code over the machine's m.nt
// threads; false: it stopped before the window touched memory.
func (m *machine) runBatchCode() bool {
	bp, code := m.bp, m.k.fn.code
	plan := bp.batch
	for pc := 0; pc < plan.window; pc++ {
		in, mk := &code[pc], bp.marks[pc]
		switch {
		case mk&markHoisted != 0:
		case mk&markAffine != 0:
			if !m.affineStep(in, &allThreads, true, true) {
				return false
			}
		default: // the guarded bra to the ret
			f := &m.forms[bp.fidx[in.guard]]
			if !f.ok || !f.pred || !f.all {
				return false
			}
			var in0 bool // every thread lies in f.lo..f.hi-1 (else none does)
			switch {
			case f.lo <= 0 && int(f.hi) >= m.nt:
				in0 = true
			case f.hi > f.lo:
				return false // some threads of the batch branch, not all
			}
			if in0 != (f.flip != 0) != (in.flags&fGuardNeg != 0) {
				return true // every thread goes to the ret
			}
		}
	}
	return m.runFused(plan.window, &allThreads, true, true)
}
