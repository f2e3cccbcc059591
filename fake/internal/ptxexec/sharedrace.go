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
// (per worker with Launch.Workers > 1). (The bytes of a word with one
// history share one record, see raceState; a full warp's coalesced ld, and
// st that meets nothing it could race with, is checked in one call,
// sharedRun.)
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

// shadowAccess is one recorded access to a shared byte. It holds no
// pointer, so the shadow memory is not scanned by the garbage collector
// and copying a record needs no write barrier.
type shadowAccess struct {
	thread int32  // linear thread index + 1; 0: none
	phase  uint32 // raceState.phase at the access
	wsync  uint32 // its warp's collectives completed before it
	site   uint32 // its statement's index in Program.sites + 1, siteAtomic set for a strong access
}

// siteAtomic marks a shadowAccess.site of a strong access (an atomic, or
// a .volatile, .relaxed, .acquire or .release ld or st).
const siteAtomic = 1 << 31

// atomic reports whether a is a strong access.
func (a *shadowAccess) atomic() bool { return a.site&siteAtomic != 0 }

// stmt is a's statement (a.thread != 0).
func (a *shadowAccess) stmt(p *Program) *ptx.Stmt { return p.sites[a.site&^siteAtomic-1] }

// sameSite reports whether a and b are accesses by one statement.
func sameSite(a, b *shadowAccess) bool { return a.site&^siteAtomic == b.site&^siteAtomic }

// shadowByte is what is known of one byte of shared memory, or of each of
// the four bytes of a word whose bytes agree.
type shadowByte struct {
	w      shadowAccess // the last write (or atomic)
	r1, r2 shadowAccess // reads since: the first, and one by another thread
}

// raceState is a machine's shared-memory race checking. Its shadow
// memory is kept per 4-byte word while the word's bytes have the same
// history (the usual case: int, float and wider accesses), so an
// aligned access costs one check per word, not per byte; the first
// access that touches part of a word splits it into four per-byte records
// (bytes), and an access that covers it again merges them back when they
// agree. Above the words, while a block's accesses of 16 words are whole
// runs of lanes, one record stands for them all (segs, sharedsegs.go).
// All of them give the reports of one record per byte
// (TestSharedShadowMatchesBytes).
type raceState struct {
	obs      SharedRaceObserver
	words    []shadowByte // per 4-byte word not split
	bytes    []shadowByte // per byte, for the split words; nil until one splits
	split    []bool       // per word: its records are its four in bytes
	segs     []sseg       // per sharedSegWords words: their record while they have none of their own (sharedsegs.go)
	segsUsed bool         // some segment changed since the block started
	phase    uint32       // bumped at each block start and completed barrier
	warpSync []uint32     // per warp: collectives completed
	seen     map[[2]uint32]bool
	// held: a write that met an unordered earlier write, reported by
	// settle only if it changed the bytes they share.
	held []heldWrite
}

// sharedReporter is told of the races a raceState finds: between recorded
// access a (a write if firstWrite) and access me (a write if write) at
// byte off (the machine, which tells the observer; a test's recorder).
type sharedReporter interface {
	reportRace(a shadowAccess, firstWrite bool, me shadowAccess, write bool, off uint32)
}

// heldWrite is a write-after-write that is a race only if the second
// write changed the bytes the first wrote.
type heldWrite struct {
	first, second shadowAccess
	off           uint32   // the first byte both wrote
	mask          uint64   // of the access's bytes from off: those both wrote
	before        [64]byte // the bytes from off before the second write
}

func newRaceState(l *Launch, sharedBytes, threads int) *raceState {
	o, ok := l.Observe.(SharedRaceObserver)
	if !l.SharedRaces || !ok {
		return nil
	}
	return newShadow(o, sharedBytes, threads)
}

// newShadow returns the race state of a block of threads with
// sharedBytes of shared memory, reporting to o.
func newShadow(o SharedRaceObserver, sharedBytes, threads int) *raceState {
	words := (sharedBytes + 3) / 4
	segs := (words + sharedSegWords - 1) / sharedSegWords
	return &raceState{obs: o, words: make([]shadowByte, words), split: make([]bool, words),
		segs:     make([]sseg, segs),
		warpSync: make([]uint32, (threads+warpSize-1)/warpSize), seen: map[[2]uint32]bool{}}
}

// sharedOp is what an instruction's shared access does, for the checks:
// me's site and strength, whether it writes and whether it acquires.
type sharedOp struct {
	site            uint32
	write, acquires bool
}

// sharedOpOf is the sharedOp of instruction in at index pc of fn (space:
// the access's direction for cp.async).
func sharedOpOf(fn *function, in *inst, space uint8, pc int) sharedOp {
	if pc < 0 || pc >= len(fn.stmts) {
		pc = 0
	}
	flags := fn.sites[pc]
	op := sharedOp{site: fn.siteBase + uint32(pc) + 1}
	atomic := false
	switch in.op {
	case opStShared, opStGeneric:
		op.write = true
		atomic = flags&sfStrong != 0
	case opLdShared, opLdGeneric:
		atomic = flags&sfStrong != 0
		op.acquires = atomic
	case opAtom:
		op.write, atomic, op.acquires = true, true, flags&sfFlagAtom != 0
	case opMbarrier:
		op.write, atomic = true, true
	case opCpAsync:
		op.write = space == opStShared
	}
	if atomic {
		op.site |= siteAtomic
	}
	return op
}

// access is thread tid's access by op, now.
func (rs *raceState) access(op sharedOp, tid int) shadowAccess {
	return shadowAccess{thread: int32(tid) + 1, phase: rs.phase, wsync: rs.warpSync[tid/warpSize], site: op.site}
}

// sharedAccess checks and records thread t's access of n shared bytes at
// off by instruction in (space: the access's direction for cp.async).
func (m *machine) sharedAccess(t *thread, in *inst, space uint8, off, n uint64) {
	rs := m.races
	if len(rs.held) != 0 {
		m.settleWrites()
	}
	op := sharedOpOf(t.fn, in, space, t.pc-1)
	me := rs.access(op, t.id)
	rs.record(m, me, op.write, op.acquires, off, n, m.shared)
}

// sharedRun checks and records the shared access of instruction in (at
// index pc of the threads' function) by threads ts (consecutive threads
// of one warp), in order, thread j touching the size bytes at off +
// j*size: one call for a run of lanes whose addresses follow one another,
// for a load before it reads or a store before it writes any lane's
// bytes, with the reports the lane-by-lane path's one sharedAccess per
// lane would make, in its order. A store whose run meets a record it
// might race with returns false having recorded nothing: the caller then
// stores lane by lane (a lane's write that meets an earlier one is held
// until the next access compares the bytes, after that lane's store).
func (m *machine) sharedRun(ts []thread, pc int, in *inst, space uint8, off, size uint64) bool {
	rs := m.races
	if len(rs.held) != 0 {
		m.settleWrites()
	}
	if len(ts) == 0 || off+size*uint64(len(ts)) > uint64(len(m.shared)) {
		return true
	}
	return rs.run(m, sharedOpOf(ts[0].fn, in, space, pc), ts[0].id, len(ts), off, size, m.shared)
}

// run checks and records access op by the lanes threads from thread
// first on, thread first+j touching the size bytes at off + j*size, in
// order, for sharedRun: false, having recorded nothing, for a store that
// meets a record it might race with (quietRun).
func (rs *raceState) run(to sharedReporter, op sharedOp, first, lanes int, off, size uint64, shared []byte) bool {
	if rs.quietSegs(op, first, lanes, off, size) {
		return true
	}
	rs.materialise(off>>2, (off+uint64(lanes)*size+3)>>2)
	if rs.quietWords(op, first, lanes, off, size) {
		return true
	}
	if op.write && !rs.quietRun(first, lanes, off, size) {
		return false
	}
	rs.recordRun(to, op, first, lanes, off, size, shared)
	return true
}

// quietWords is recordRun's common case in one tight pass: a run of
// whole aligned words (size a multiple of 4, no acquire) whose every word
// is kept whole and quiet for its lane (shadowByte.quiet) is recorded as
// update records it, the lanes' accesses built once. It reports whether
// it applied; false: it stopped at the first word that is not, having
// recorded only quiet words before it, as recordRun would: the records
// of a quiet word are then its lane's own, so recording that lane again
// (recordRun, or the lane-by-lane path of a store) finds it quiet and
// changes nothing.
func (rs *raceState) quietWords(op sharedOp, first, lanes int, off, size uint64) bool {
	if off&3 != 0 || size&3 != 0 || size == 0 || op.acquires || lanes <= 0 {
		return false
	}
	k, w0 := int(size>>2), int(off>>2)
	n := lanes * k
	if w0+n > len(rs.words) {
		return false
	}
	words, split := rs.words[w0:w0+n], rs.split[w0:w0+n]
	me := shadowAccess{phase: rs.phase, site: op.site}
	ph := me.phase
	i := 0
	for j := range lanes {
		tid := first + j
		if j == 0 || tid%warpSize == 0 {
			me.wsync = rs.warpSync[tid/warpSize]
		}
		t := int32(tid) + 1
		me.thread = t
		for range k {
			sh := &words[i]
			if split[i] || sh.w.phase == ph && sh.w.thread != t ||
				sh.r1.phase == ph && sh.r1.thread != t || sh.r2.phase == ph && sh.r2.thread != t {
				return false
			}
			switch {
			case op.write:
				sh.w = me
			case sh.r1.phase != ph:
				sh.r1, sh.r2 = me, shadowAccess{}
			}
			i++
		}
	}
	return true
}

// sharedLanes checks and records the shared ld in (at index pc) of the
// lanes ts of a warp, lane j reading in.size bytes at ra[j]-start, all
// inside shared memory, in lane order: what sharedRun of each lane alone
// does, with the instruction's sharedOp found once (a load holds no
// write, so one settle first is enough).
func (m *machine) sharedLanes(ts []thread, pc int, in *inst, ra *[warpSize]uint64, start uint64) {
	rs := m.races
	if len(rs.held) != 0 {
		m.settleWrites()
	}
	var offs [warpSize]uint64
	for j := range ts {
		offs[j] = ra[j] - start
	}
	rs.loadLanes(m, sharedOpOf(ts[0].fn, in, in.op, pc), ts[0].id, offs[:len(ts)], uint64(in.size), m.shared)
}

// loadLanes records the load op of size bytes by the lanes of one warp
// from thread first on, thread first+j at offs[j], in order: recordRun
// of each lane alone, with lanes in a row that read consecutive words
// (a row of a tile, as the next row's lanes may read it again) in one
// recordRun, but for the lanes of a broadcast (a third lane or more in a
// row reading one word whose last write is of an earlier phase): after
// two lanes of the warp, the word's two readers are such that another
// lane of the warp changes neither them nor any report (keepReader), so
// it is skipped.
func (rs *raceState) loadLanes(to sharedReporter, op sharedOp, first int, offs []uint64, size uint64, shared []byte) {
	for j := 0; j < len(offs); {
		off := offs[j]
		if j >= 2 && off == offs[j-1] && off == offs[j-2] && size == 4 && off&3 == 0 && !op.acquires && !op.write {
			if w := off >> 2; !rs.split[w] && rs.words[w].w.phase != rs.phase {
				j++
				continue
			}
		}
		e := j + 1 // the lanes j..e-1 read consecutive bytes
		for e < len(offs) && offs[e] == offs[e-1]+size {
			e++
		}
		if end := offs[e-1] + size; !rs.materialised(off>>2, (end+3)>>2) {
			rs.materialiseSegs(off>>2, (end+3)>>2)
		}
		rs.recordRun(to, op, first+j, e-j, off, size, shared)
		j = e
	}
}

// quietRun reports whether the words a run of lanes from thread first
// touches (lane j the size bytes at off + j*size) are all kept whole and
// quiet for their lane (shadowByte.quiet): then none of the lanes' checks
// can report or hold a write.
func (rs *raceState) quietRun(first, lanes int, off, size uint64) bool {
	if off&3 != 0 || size&3 != 0 {
		return false
	}
	w := off >> 2
	rs.materialise(w, w+uint64(lanes)*(size>>2))
	for j := range lanes {
		me := shadowAccess{thread: int32(first+j) + 1, phase: rs.phase}
		for range size >> 2 {
			if rs.split[w] || !rs.words[w].quiet(&me) {
				return false
			}
			w++
		}
	}
	return true
}

// recordRun records access op by the lanes threads from thread first
// on, thread first+j touching the size bytes at off + j*size, in order;
// the words must have records of their own (materialise).
func (rs *raceState) recordRun(to sharedReporter, op sharedOp, first, lanes int, off, size uint64, shared []byte) {
	if size == 4 && off&3 == 0 && !op.acquires {
		// A word a lane: what record does when the word's history is
		// quiet, without the call.
		w := off >> 2
		for j := range lanes {
			me := rs.access(op, first+j)
			switch sh := &rs.words[w]; {
			case rs.split[w]:
				rs.record(to, me, op.write, op.acquires, 4*w, 4, shared)
			case sh.quiet(&me):
				sh.update(&me, op.write)
			case !op.write && (sh.w.phase != me.phase || sh.w.thread == me.thread):
				// A read that no write can race with: only which
				// readers the word keeps changes (step's rule), as
				// when many threads read one word (a broadcast).
				sh.keepReader(&me)
			default:
				rs.record(to, me, op.write, op.acquires, 4*w, 4, shared)
			}
			w++
		}
		return
	}
	for j := range lanes {
		me := rs.access(op, first+j)
		rs.record(to, me, op.write, op.acquires, off+uint64(j)*size, size, shared)
	}
}

// recording is the progress of one access through the shadow.
type recording struct {
	to                 sharedReporter
	me                 shadowAccess
	write, acquires    bool
	end                uint64 // the access's bytes end before
	shared             []byte
	reported, acquired bool
	held               int // the index in raceState.held of the write this access holds; -1: none
}

// record checks and records access me of the n shared bytes at off (a
// write if write; acquires: a strong read that may acquire), shared being
// the block's shared memory as it is before the access; races go to to.
func (rs *raceState) record(to sharedReporter, me shadowAccess, write, acquires bool, off, n uint64, shared []byte) {
	if off+n > uint64(len(shared)) {
		return
	}
	rs.materialise(off>>2, (off+n+3)>>2)
	c := recording{to: to, me: me, write: write, acquires: acquires, end: off + n, shared: shared, held: -1}
	for b := off; b < c.end; {
		w := b >> 2
		if !rs.split[w] {
			if b&3 == 0 && c.end-b >= 4 {
				rs.step(&c, &rs.words[w], b, 4)
				b += 4
				continue
			}
			rs.splitWord(w)
		}
		rs.step(&c, &rs.bytes[b], b, 1)
		if b&3 == 3 && b-3 >= off {
			rs.mergeWord(w)
		}
		b++
	}
	if c.acquired {
		rs.phase++
	}
}

// splitWord gives word w's bytes records of their own.
func (rs *raceState) splitWord(w uint64) {
	if rs.bytes == nil {
		rs.bytes = make([]shadowByte, 4*len(rs.words))
	}
	for i := range 4 {
		rs.bytes[4*w+uint64(i)] = rs.words[w]
	}
	rs.split[w] = true
}

// mergeWord makes split word w one record again when its bytes' records
// agree: equal, or differing only in reads of an earlier phase (which
// order nothing and are never reported).
func (rs *raceState) mergeWord(w uint64) {
	bs := rs.bytes[4*w : 4*w+4]
	for i := 1; i < 4; i++ {
		a, b := &bs[0], &bs[i]
		if a.w != b.w || !rs.sameRead(&a.r1, &b.r1) || !rs.sameRead(&a.r2, &b.r2) {
			return
		}
	}
	rs.words[w] = bs[0]
	rs.split[w] = false
}

// sameRead reports whether reads a and b recorded in a shadowByte act the
// same in any later check: equal, or both of an earlier phase.
func (rs *raceState) sameRead(a, b *shadowAccess) bool {
	return *a == *b || a.phase != rs.phase && b.phase != rs.phase
}

// step checks and records access c.me of k bytes from b that all have
// the history sh (k is 1, or 4 for a word not split): what a check of
// each byte in turn would do.
func (rs *raceState) step(c *recording, sh *shadowByte, b, k uint64) {
	me := &c.me
	if c.held < 0 && !c.acquires && sh.quiet(me) {
		sh.update(me, c.write)
		return
	}
	if c.held >= 0 {
		h := &rs.held[c.held]
		if sh.w.thread == h.first.thread && sameSite(&sh.w, &h.first) && unordered(&sh.w, me) {
			h.mask |= (1<<k - 1) << (b - uint64(h.off))
		}
	}
	if c.acquires && sh.w.atomic() && sh.w.thread != 0 && sh.w.thread != me.thread {
		c.acquired = true
	}
	if !c.reported {
		var other *shadowAccess
		switch {
		case unordered(&sh.w, me) && !(sh.w.atomic() && me.atomic()):
			other = &sh.w
		case c.write && unordered(&sh.r1, me) && !(sh.r1.atomic() && me.atomic()):
			other = &sh.r1
		case c.write && unordered(&sh.r2, me) && !(sh.r2.atomic() && me.atomic()):
			other = &sh.r2
		}
		switch {
		case other == &sh.w && c.write && !me.atomic() && !sh.w.atomic() && c.end-b <= uint64(len(heldWrite{}.before)):
			// Two plain writes: a race only if the values differ.
			rs.held = append(rs.held, heldWrite{first: sh.w, second: *me, off: uint32(b), mask: 1<<k - 1})
			c.held = len(rs.held) - 1
			copy(rs.held[c.held].before[:], c.shared[b:c.end])
			c.reported = true
		case other != nil:
			c.to.reportRace(*other, other == &sh.w, *me, c.write, uint32(b))
			c.reported = true
		}
	}
	if c.write {
		sh.w = *me
		return
	}
	sh.keepReader(me)
}

// keepReader records read me among the two readers sh keeps.
func (sh *shadowByte) keepReader(me *shadowAccess) {
	switch {
	case sh.r1.phase != me.phase || sh.r1.thread == 0:
		sh.r1, sh.r2 = *me, shadowAccess{}
	case sh.r1.thread != me.thread && (sh.r2.phase != me.phase ||
		sameWarpShared(sh.r2.thread, sh.r1.thread) && !sameWarpShared(me.thread, sh.r1.thread)):
		// The second reader: one of another warp than the first's
		// when there is one, so that a write ordered with the first
		// reader's warp by a collective still meets it (llm.c's
		// softmax_forward_kernel4: all threads read s[0], a shuffle,
		// lane 0 writes s[0] with no barrier).
		sh.r2 = *me
	}
}

// quiet reports whether all that sh records is of an earlier barrier phase
// (or none) or by me's thread: ordered before me, so that a check of me
// that acquires nothing and holds no write only records it.
func (sh *shadowByte) quiet(me *shadowAccess) bool {
	return (sh.w.phase != me.phase || sh.w.thread == me.thread) &&
		(sh.r1.phase != me.phase || sh.r1.thread == me.thread) &&
		(sh.r2.phase != me.phase || sh.r2.thread == me.thread)
}

// update records quiet access me (a write if write) in sh.
func (sh *shadowByte) update(me *shadowAccess, write bool) {
	switch {
	case write:
		sh.w = *me
	case sh.r1.phase != me.phase:
		sh.r1, sh.r2 = *me, shadowAccess{}
	}
}

// settleWrites reports the held writes that changed the bytes they share
// with the earlier write they met (see heldWrite).
func (m *machine) settleWrites() {
	if m.races != nil {
		m.races.settle(m, m.shared)
	}
}

// settle tells to of the held writes that changed, in shared, the bytes
// they share with the earlier write they met.
func (rs *raceState) settle(to sharedReporter, shared []byte) {
	for i := range rs.held {
		h := &rs.held[i]
		for j := uint32(0); h.mask>>j != 0; j++ {
			if h.mask>>j&1 != 0 && shared[h.off+j] != h.before[j] {
				to.reportRace(h.first, true, h.second, true, h.off)
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
// access me may happen in either order.
func unordered(a, me *shadowAccess) bool {
	if a.thread == 0 || a.thread == me.thread || a.phase != me.phase {
		return false
	}
	if sameWarpShared(a.thread, me.thread) && a.wsync != me.wsync {
		return false // a collective of their warp lies between
	}
	return true
}

// pairKey is the key of the pair of sites a and b, in either order: a
// race of two instructions is one report, whichever ran first (it
// depends on the order the interpreter runs a block's warps in).
func pairKey(a, b uint32) [2]uint32 {
	return [2]uint32{min(a, b), max(a, b)}
}

// reportRace tells the observer of a race between recorded access a (a
// write if firstWrite) and access me (a write if write) at byte off, once
// per pair of instructions.
func (m *machine) reportRace(a shadowAccess, firstWrite bool, me shadowAccess, write bool, off uint32) {
	rs := m.races
	key := pairKey(a.site&^siteAtomic, me.site&^siteAtomic)
	if rs.seen[key] {
		return
	}
	rs.seen[key] = true
	side := func(r shadowAccess, kind AccessKind) SharedAccess {
		s := r.stmt(m.k.prog)
		file, line := m.k.prog.source(s)
		return SharedAccess{Thread: m.threads[r.thread-1].idx, Kind: kind, Line: int(s.Line), Instr: s.String(), File: file, FileLine: line}
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
		First:  side(a, kind(firstWrite, a.atomic())),
		Second: side(me, kind(write, me.atomic()))})
}
