package ptxexec

import "github.com/nocgo/cuda/internal/ptx"

// In-kernel shared-memory races, what compute-sanitizer's racecheck
// reports: with Launch.SharedRaces set and a Launch.Observe that is a
// SharedRaceObserver, the interpreter keeps, per byte of the block's
// shared memory, the last write and two reads since it (the first, and
// one by another thread, of another warp than the first's when there is
// one; each with its thread, barrier phase, warp synchronisation count,
// instruction), and reports two
// accesses to a byte by different threads of the block, at least one a
// write, not both atomic, with no barrier completing between them
// (bar.sync, barrier.sync, bar.red: a block-wide phase) and, for two
// threads of one warp, no warp collective (bar.warp.sync / __syncwarp,
// shfl.sync, vote.sync, redux.sync, match.sync) completing in the warp
// between them. Each pair of instructions is reported once per launch
// (per worker with Launch.Workers > 1).
//
// Strong accesses (atomics, and ld and st with .volatile, .relaxed,
// .acquire or .release) are morally strong in the PTX memory model: two of
// them never race. A strong read that finds a byte last written by another
// thread's strong write (a spin on a flag, or an atom.and/or/xor/exch/cas
// that takes a lock or arrives at a software barrier, as cooperative
// groups' multi-warp tiles do) orders the whole block as a barrier does.
//
// Two unordered plain writes of the same value are not reported, as
// racecheck does not report them: the bytes end the same whatever the
// order (the lanes of one warp storing the value they share, as
// cooperative groups' tile reductions and llm.c's s[warp] = sum do). A
// write that meets an unordered earlier write is held until the next
// shared access, barrier phase or the end of the block, and reported then
// only if it changed the bytes the two share.
//
// It errs on the side of silence: any barrier that completes (a named
// barrier with a thread count included) starts a new phase for the whole
// block, and any collective of a warp orders all its lanes, so a race
// across a barrier or collective that did not include both threads is not
// reported; a report is always a real race under the PTX memory model.
// cp.async's write of shared memory counts as a write when it is issued.

// SharedRaceObserver is an Observer that is also told of shared-memory
// races (see Launch.SharedRaces). It is called from the goroutine that
// runs the block, before the second access happens; it must not call back
// into the launch.
type SharedRaceObserver interface {
	Observer
	SharedRace(r SharedRace)
}

// SharedRace is a race on shared memory between two threads of a block:
// First happened before Second in the interpreter's order, with nothing
// ordering them.
type SharedRace struct {
	Block  [3]uint32
	Offset uint32 // the first byte both touch, from the start of the block's shared memory
	First  SharedAccess
	Second SharedAccess
}

// SharedAccess is one side of a SharedRace.
type SharedAccess struct {
	Thread [3]uint32
	Kind   AccessKind
	Line   int    // the PTX line
	Instr  string // the instruction
	// File and FileLine are the CUDA C line (-lineinfo, -G); "" and 0
	// without them.
	File     string
	FileLine int
}

// shadowAccess is one recorded access to a shared byte.
type shadowAccess struct {
	thread int32  // linear thread index + 1; 0: none
	phase  uint32 // raceState.phase at the access
	wsync  uint32 // its warp's collectives completed before it
	atomic bool
	at     *ptx.Stmt
}

// shadowByte is what is known of one byte of shared memory.
type shadowByte struct {
	w      shadowAccess // the last write (or atomic)
	r1, r2 shadowAccess // reads since: the first, and one by another thread
}

// raceState is a machine's shared-memory race checking.
type raceState struct {
	obs      SharedRaceObserver
	shadow   []shadowByte
	phase    uint32   // bumped at each block start and completed barrier
	warpSync []uint32 // per warp: collectives completed
	seen     map[[2]*ptx.Stmt]bool
	// held: a write that met an unordered earlier write, reported by
	// settleWrites only if it changed the bytes they share.
	held []heldWrite
}

// heldWrite is a write-after-write that is a race only if the second
// write changed the bytes the first wrote.
type heldWrite struct {
	first, second shadowAccess
	tid           int      // the second writer
	off           uint32   // the first byte both wrote
	mask          uint64   // of the access's bytes from off: those both wrote
	before        [64]byte // the bytes from off before the second write
}

func newRaceState(l *Launch, sharedBytes, threads int) *raceState {
	o, ok := l.Observe.(SharedRaceObserver)
	if !l.SharedRaces || !ok {
		return nil
	}
	return &raceState{obs: o, shadow: make([]shadowByte, sharedBytes), warpSync: make([]uint32, (threads+warpSize-1)/warpSize),
		seen: map[[2]*ptx.Stmt]bool{}}
}

// sharedAccess checks and records thread t's access of n shared bytes at
// off by instruction in (space: the access's direction for cp.async).
func (m *machine) sharedAccess(t *thread, in *inst, space uint8, off, n uint64) {
	rs := m.races
	if len(rs.held) != 0 {
		m.settleWrites()
	}
	if off+n > uint64(len(rs.shadow)) {
		return
	}
	pc := t.pc - 1
	if pc < 0 || pc >= len(t.fn.stmts) {
		pc = 0
	}
	flags := t.fn.sites[pc]
	me := shadowAccess{thread: int32(t.id) + 1, phase: rs.phase, wsync: rs.warpSync[t.id/warpSize], at: t.fn.stmts[pc]}
	write, acquires, acquired := false, false, false
	switch in.op {
	case opStShared, opStGeneric:
		write = true
		me.atomic = flags&sfStrong != 0
	case opLdShared, opLdGeneric:
		me.atomic = flags&sfStrong != 0
		acquires = me.atomic
	case opAtom:
		write, me.atomic, acquires = true, true, flags&sfFlagAtom != 0
	case opMbarrier:
		write, me.atomic = true, true
	case opCpAsync:
		write = space == opStShared
	}
	reported := false
	var held *heldWrite
	for b := off; b < off+n; b++ {
		sh := &rs.shadow[b]
		if held == nil && !acquires && sh.w.phase != me.phase && sh.r1.phase != me.phase && sh.r2.phase != me.phase {
			// All it records is of an earlier barrier phase (or none):
			// ordered before me, and nothing to acquire.
			if write {
				sh.w = me
			} else {
				sh.r1, sh.r2 = me, shadowAccess{}
			}
			continue
		}
		if held != nil && sh.w.thread == held.first.thread && sh.w.at == held.first.at && m.unordered(&sh.w, &me, t) {
			held.mask |= 1 << (b - uint64(held.off))
		}
		if acquires && sh.w.atomic && sh.w.thread != 0 && sh.w.thread != me.thread {
			acquired = true
		}
		if !reported {
			var other *shadowAccess
			switch {
			case m.unordered(&sh.w, &me, t) && !(sh.w.atomic && me.atomic):
				other = &sh.w
			case write && m.unordered(&sh.r1, &me, t) && !(sh.r1.atomic && me.atomic):
				other = &sh.r1
			case write && m.unordered(&sh.r2, &me, t) && !(sh.r2.atomic && me.atomic):
				other = &sh.r2
			}
			switch {
			case other == &sh.w && write && !me.atomic && !sh.w.atomic && off+n-b <= uint64(len(held.before)):
				// Two plain writes: a race only if the values differ.
				rs.held = append(rs.held, heldWrite{first: sh.w, second: me, tid: t.id, off: uint32(b), mask: 1})
				held = &rs.held[len(rs.held)-1]
				copy(held.before[:], m.shared[b:off+n])
				reported = true
			case other != nil:
				m.reportRace(other, other == &sh.w, &me, t.id, write, uint32(b))
				reported = true
			}
		}
		switch {
		case write:
			sh.w = me
		case sh.r1.phase != me.phase || sh.r1.thread == 0:
			sh.r1, sh.r2 = me, shadowAccess{}
		case sh.r1.thread != me.thread && (sh.r2.phase != me.phase ||
			sameWarpShared(sh.r2.thread, sh.r1.thread) && !sameWarpShared(me.thread, sh.r1.thread)):
			// The second reader: one of another warp than the first's
			// when there is one, so that a write ordered with the first
			// reader's warp by a collective still meets it (llm.c's
			// softmax_forward_kernel4: all threads read s[0], a shuffle,
			// lane 0 writes s[0] with no barrier).
			sh.r2 = me
		}
	}
	if acquired {
		rs.phase++
	}
}

// settleWrites reports the held writes that changed the bytes they share
// with the earlier write they met (see heldWrite).
func (m *machine) settleWrites() {
	rs := m.races
	if rs == nil {
		return
	}
	for i := range rs.held {
		h := &rs.held[i]
		for j := uint32(0); h.mask>>j != 0; j++ {
			if h.mask>>j&1 != 0 && m.shared[h.off+j] != h.before[j] {
				m.reportRace(&h.first, true, &h.second, h.tid, true, h.off)
				break
			}
		}
	}
	rs.held = rs.held[:0]
}

// strongAccess reports whether ld or st statement s is a strong access:
// .volatile, .relaxed, .acquire or .release.
func strongAccess(s *ptx.Stmt) bool {
	for _, m := range s.Mods {
		switch m {
		case "volatile", "relaxed", "acquire", "release":
			return true
		}
	}
	return false
}

// flagAtomic reports whether atom statement s is one that software
// barriers and locks synchronise with (and, or, xor, exch, cas), as
// opposed to the counting atomics (add, inc, min, ...) of histograms and
// tickets, which order nothing here.
func flagAtomic(s *ptx.Stmt) bool {
	for _, m := range s.Mods {
		switch m {
		case "and", "or", "xor", "exch", "cas":
			return true
		}
	}
	return false
}

// sameWarpShared reports whether recorded threads a and b (linear index
// + 1) are of one warp.
func sameWarpShared(a, b int32) bool { return (a-1)/warpSize == (b-1)/warpSize }

// unordered reports whether recorded access a (of another thread) and
// thread t's access me may happen in either order.
func (m *machine) unordered(a, me *shadowAccess, t *thread) bool {
	if a.thread == 0 || a.thread == me.thread || a.phase != me.phase {
		return false
	}
	if int(a.thread-1)/warpSize == t.id/warpSize && a.wsync != me.wsync {
		return false // a collective of their warp lies between
	}
	return true
}

// reportRace tells the observer of a race between recorded access a (a
// write if firstWrite) and access me of thread tid (a write if write),
// once per pair of instructions.
func (m *machine) reportRace(a *shadowAccess, firstWrite bool, me *shadowAccess, tid int, write bool, off uint32) {
	rs := m.races
	key := [2]*ptx.Stmt{a.at, me.at}
	if rs.seen[key] {
		return
	}
	rs.seen[key] = true
	side := func(s *ptx.Stmt, thread int, kind AccessKind) SharedAccess {
		file, line := m.k.prog.source(s)
		return SharedAccess{Thread: m.threads[thread].idx, Kind: kind, Line: int(s.Line), Instr: s.String(), File: file, FileLine: line}
	}
	kind := func(write, atomic bool) AccessKind {
		switch {
		case atomic:
			return Atomic
		case write:
			return Write
		}
		return Read
	}
	rs.obs.SharedRace(SharedRace{Block: m.block, Offset: off,
		First:  side(a.at, int(a.thread-1), kind(firstWrite, a.atomic)),
		Second: side(me.at, tid, kind(write, me.atomic))})
}
