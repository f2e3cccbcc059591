package ptxexec

import "sync"

// Block programs. A kernel whose code needs nothing of the general
// scheduler (no calls, warp collectives, named or counted barriers,
// mbarriers, sleeps, and no loop whose exit waits on memory: a spin) is
// translated once, at its first launch, into a blockProgram: which
// instructions are block-invariant (their value is the same in every
// block: computed once per launch instead of once per block) and which
// barrier the code uses. runBlock (blockexec.go) then runs a block of
// it instruction by instruction over all its warps at once, barriers
// being boundaries between regions of code rather than scheduler passes.
//
// What decides, per launch, whether the block program runs: the launch
// is not cooperative (grid.sync needs the general scheduler); see
// Kernel.blockProgram. An Observer and the in-kernel race checks see
// every access on a block program as on the scheduler: loads and stores
// go through the same fullLoad/loadLanes/fullStore/storeLanes, fences
// release per thread (raceFence) and a completed barrier starts a new
// phase (barrierDone). The order differs: the scheduler runs a block warp
// by warp, a block program instruction by instruction across its warps,
// so which of two racing accesses is First in a report, and which
// accesses ran before a fault, follow the order; which pairs of sites
// race does not (one report per pair, in either order).

// blockProgram is the translation of a kernel's entry for runBlock.
type blockProgram struct {
	// hoisted marks the block-invariant instructions: pure, unguarded,
	// their sources constants, parameters, per-thread special registers
	// or results of other hoisted instructions before them, their
	// destination written by no other instruction. They run once for
	// every thread when a machine starts, not in each block.
	hoisted []bool
	// barrier is the one barrier number the code's bar.sync instructions
	// use (all of them without a thread count).
	barrier uint64
	// shared: the code may access shared memory (a shared or generic
	// load, store or atomic).
	shared bool
	// uniform marks the block-uniform instructions: pure, unguarded,
	// outside code that only some threads may run (divergent), their
	// sources the same in every thread of a block (constants,
	// parameters, %ntid, %ctaid, ..., and results of uniform
	// instructions). When every live thread runs one together, runBlock
	// computes it once, into the block's scalar registers (machine.ur).
	uniform []bool
	// uslot marks the slots that hold one value for the whole block;
	// lanes those of them that other instructions read from the warps'
	// registers (a uniform instruction's result then goes there too);
	// scalarOnly the results of uniform instructions kept in machine.ur
	// alone.
	uslot, lanes []bool
	scalarOnly   []int32
	// affineProgram: the values affine in the thread index (affine.go).
	affineProgram
	// localDst marks the unguarded instructions whose destination is
	// read only right after they write it (straightReads): a pure one
	// may compute the lanes of threads that do not run it too (runGroup),
	// as nothing reads them there.
	localDst []bool
	// fused holds the fused windows (fused.go) at the instructions
	// they start at, nil elsewhere (or nil: none).
	fused []*fusedWindow
	// batch is the plan of a batch of blocks (blockbatch.go), nil where
	// the code is not a batch's.
	batch *batchPlan
	// marks holds hoisted, uniform, affine and readsAff of each
	// instruction as bits (markHoisted, ...): one load for runWhole and
	// runGroup, which test them for every instruction they run.
	marks []uint8
}

// The bits of blockProgram.marks.
const (
	markHoisted  = 1 << iota // hoisted[i]
	markUniform              // uniform[i]
	markAffine               // affine[i]
	markReadsAff             // readsAff[i]
	markFused                // fused[i] != nil
)

// compiled holds a Kernel's block program, translated once.
type compiled struct {
	once sync.Once
	bp   *blockProgram // nil: the kernel needs the general scheduler
}

// blockProgram returns the kernel's block program when launch l may run
// on it, else nil.
func (k *Kernel) blockProgram(l *Launch) *blockProgram {
	if l.Cooperative || l.scheduler {
		return nil
	}
	k.compiled.once.Do(func() { k.compiled.bp = translate(k.fn) })
	return k.compiled.bp
}

// translate makes f's block program, or returns nil when its code needs
// the general scheduler.
func translate(f *function) *blockProgram {
	code := f.code
	bp := &blockProgram{hoisted: make([]bool, len(code)), barrier: ^uint64(0)}
	writes := make([]int, f.nslots) // how many instructions write each slot
	for i := range code {
		in := &code[i]
		switch in.op {
		case opCall, opShfl, opVote, opActivemask, opWarpSync, opRedux, opMatch,
			opBarArrive, opBarRed, opMbarrier, opNanosleep, opCpAsync:
			return nil
		case opBar:
			// Only bar.sync of one constant barrier number without a
			// thread count: every live thread of the block takes part.
			if in.b != sZero || !constSlot(f, in.a) {
				return nil
			}
			id := f.init[in.a] & 0xffffffff
			if bp.barrier != ^uint64(0) && bp.barrier != id || in.mode == barCluster || id >= namedBarriers {
				return nil
			}
			bp.barrier = id
		}
		switch in.op {
		case opLdShared, opStShared, opLdGeneric, opStGeneric:
			bp.shared = true
		case opAtom:
			bp.shared = bp.shared || in.k2 != spGlobal
		}
		for _, s := range written(in) {
			if s >= 0 && int(s) < len(writes) {
				writes[s]++
			}
		}
	}
	for i := range code {
		if in := &code[i]; in.op == opBra && int(in.imm) <= i && spinProne(f, int(in.imm), i) {
			return nil
		}
	}
	// Block-invariant slots: never written (constants, parameters,
	// special registers but those of the block), or the single result of
	// a hoisted instruction before their readers.
	invariant := make([]bool, f.nslots)
	for s := range invariant {
		invariant[s] = writes[s] == 0
	}
	for _, a := range f.blockSlots {
		invariant[a.slot] = false
	}
	for _, s := range [...]int32{sCtaidX, sCtaidY, sCtaidZ, sSmid, sSink} {
		invariant[s] = false
	}
	for i := range code {
		in := &code[i]
		if in.guard >= 0 || !hoistable(in) {
			continue
		}
		ok := writes[in.d] == 1 && in.d != sSink
		for _, s := range sources(in) {
			ok = ok && invariant[s]
		}
		if ok {
			bp.hoisted[i] = true
			invariant[in.d] = true
		}
	}
	bp.findUniform(f, writes)
	only := straightReads(code, writes)
	bp.findAffine(f, writes, only)
	bp.localDst = make([]bool, len(code))
	for i := range code {
		in := &code[i]
		bp.localDst[i] = in.guard < 0 && in.d >= nSpecial && in.d != sSink && int(in.d) < len(only) && only[in.d]
	}
	bp.marks = make([]uint8, len(code))
	for i := range code {
		for bit, on := range [...]bool{bp.hoisted[i], bp.uniform[i], bp.affine[i], bp.readsAff[i]} {
			if on {
				bp.marks[i] |= 1 << bit
			}
		}
	}
	if bp.nforms > 0 {
		bp.findFused(f)
		bp.findBatch(f)
	}
	return bp
}

// findUniform sets bp.uniform, uslot, lanes and scalarOnly: the
// largest set of uniform instructions and slots, shrunk from all
// candidates until every uniform instruction reads only uniform slots,
// every write of a uniform slot is a uniform instruction, and none lies
// where a branch that is not uniform (or one in such code) sends some
// threads of the block and not others.
func (bp *blockProgram) findUniform(f *function, writes []int) {
	code := f.code
	perThread := map[int32]bool{sTidX: true, sTidY: true, sTidZ: true, sLaneid: true, sWarpid: true,
		sLanemaskEq: true, sLanemaskLt: true, sLanemaskLe: true, sLanemaskGt: true, sLanemaskGe: true,
		sFrame: true, sSink: true}
	for _, a := range f.aliases {
		if perThread[a.special] {
			perThread[a.slot] = true
		}
	}
	uslot := make([]bool, f.nslots)
	for s := range uslot {
		uslot[s] = !perThread[int32(s)]
	}
	divergent := make([]bool, len(code))
	isUniform := func(i int) bool {
		in := &code[i]
		if in.guard >= 0 || !hoistable(in) || divergent[i] || in.d == sSink {
			return false
		}
		for _, s := range sources(in) {
			if !uslot[s] {
				return false
			}
		}
		return true
	}
	for changed := true; changed; {
		changed = false
		for i := range code {
			if isUniform(i) {
				continue
			}
			for _, s := range written(&code[i]) {
				if uslot[s] {
					uslot[s], changed = false, true
				}
			}
		}
		for i := range code {
			in := &code[i]
			if in.op != opBra || !divergent[i] && (in.guard < 0 || uslot[in.guard]) {
				continue
			}
			lo, hi := i+1, int(in.imm) // forward: the threads that branch skip lo..hi-1
			if hi <= i {
				lo, hi = hi, i+1 // backward: the threads that loop run the loop again
			}
			for j := lo; j < hi && j < len(code); j++ {
				if !divergent[j] {
					divergent[j], changed = true, true
				}
			}
		}
	}
	bp.uniform, bp.uslot = make([]bool, len(code)), uslot
	bp.lanes = make([]bool, f.nslots)
	for i := range code {
		bp.uniform[i] = isUniform(i)
	}
	for i := range code {
		in := &code[i]
		if bp.uniform[i] || in.op == opBra && (in.guard < 0 || uslot[in.guard]) {
			continue // reads the scalars
		}
		ops := operands(in)
		for _, s := range append(ops[:], in.guard) {
			if s >= 0 && int(s) < len(bp.lanes) {
				bp.lanes[s] = true
			}
		}
	}
	for s := range uslot {
		if uslot[s] && writes[s] > 0 && !bp.lanes[s] {
			bp.scalarOnly = append(bp.scalarOnly, int32(s))
		}
	}
}

// constSlot reports whether slot s of f holds a constant: an immediate's
// slot, written by no instruction.
func constSlot(f *function, s int32) bool {
	if s < nSpecial && s != sZero {
		return false
	}
	for i := range f.code {
		for _, w := range written(&f.code[i]) {
			if w == s {
				return false
			}
		}
	}
	for _, p := range f.paramSlots {
		if p.slot == s {
			return false
		}
	}
	for _, a := range f.aliases {
		if a.slot == s {
			return false
		}
	}
	return true
}

// hoistable reports whether in is a pure instruction of one result (d)
// that runBlock may run once for a launch.
func hoistable(in *inst) bool {
	switch in.op {
	case opMov, opAddImm, opAddI, opSubI, opMulLo, opMulWideU, opMulWideS, opMadLo, opMadWideU, opMadWideS,
		opAnd, opOr, opXor, opNot, opShl, opShrU, opShrS, opSelp:
		return true
	case opSetpI:
		return in.k2 == 0 && in.v[0] < 0
	}
	return false
}

// sources are the slots a hoistable instruction reads.
func sources(in *inst) []int32 {
	switch in.op {
	case opMov, opAddImm, opNot:
		return []int32{in.a}
	case opMadLo, opMadWideU, opMadWideS, opSelp:
		return []int32{in.a, in.b, in.c}
	}
	return []int32{in.a, in.b}
}

// written returns the slots in may write (more than it does, for the
// instructions it does not know exactly). No instruction writes the
// special slots but the sink (an operand field left unset is 0, %tid.x's
// slot).
func written(in *inst) []int32 {
	var out []int32
	for _, s := range mayWrite(in) {
		if s >= nSpecial || s == sSink {
			out = append(out, s)
		}
	}
	return out
}

// mayWrite is written's list before it drops the special slots.
func mayWrite(in *inst) []int32 {
	switch in.op {
	case opNop, opFence, opBra, opBar, opRet, opExit, opTrap,
		opStGlobal, opStShared, opStLocal, opStGeneric:
		return nil
	case opLdGlobal, opLdShared, opLdLocal, opLdParam, opLdGeneric:
		return in.v[:max(in.vec, 1)]
	case opSetpI, opSetpF, opSetpH:
		return []int32{in.d, in.v[0]}
	}
	if hoistable(in) || in.op == opAtom {
		return []int32{in.d}
	}
	return []int32{in.d, in.c, in.v[0], in.v[1], in.v[2], in.v[3]}
}

// spinProne reports whether the loop of code[top..back] (back a
// backward branch to top) may wait on memory: whether the predicate of
// a branch in it (the loop's own, one that leaves it, or one that decides
// what the loop changes) depends within the loop on a load, an atomic or
// the clock. Such a loop may spin on what
// another thread or block writes, which needs the general scheduler's
// yields (resident.go).
func spinProne(f *function, top, back int) bool {
	code := f.code
	var preds []int32
	for i := top; i <= back; i++ {
		in := &code[i]
		if in.op == opBra && in.guard >= 0 {
			preds = append(preds, in.guard)
		}
	}
	seen := map[int32]bool{}
	for len(preds) > 0 {
		s := preds[len(preds)-1]
		preds = preds[:len(preds)-1]
		if s < 0 || seen[s] {
			continue
		}
		seen[s] = true
		for i := top; i <= back; i++ {
			in := &code[i]
			hit := false
			for _, w := range written(in) {
				hit = hit || w == s
			}
			if !hit {
				continue
			}
			switch in.op {
			case opLdGlobal, opLdShared, opLdLocal, opLdGeneric, opAtom, opClock, opGlobalTimer:
				return true
			}
			if in.guard >= 0 {
				preds = append(preds, in.guard)
			}
			preds = append(preds, in.a, in.b, in.c, in.v[0], in.v[1], in.v[2], in.v[3])
		}
	}
	return false
}
