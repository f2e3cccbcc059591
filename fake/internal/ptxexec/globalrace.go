package ptxexec

import (
	"math/bits"
	"sync"

	"github.com/nocgo/cuda/internal/ptx"
)

// In-kernel global-memory races: with Launch.GlobalRaces set and a
// Launch.Observe that is a GlobalRaceObserver, the interpreter keeps a
// shadow of every 4-byte word of global memory the launch touches (the
// last write and two reads since it, each with its thread, the bytes of
// the word, the instruction and the orderings in force) and reports two
// accesses of different threads of the launch to overlapping bytes, at
// least one a write, that are not both morally strong and that nothing
// orders, by the PTX memory model:
//
//   - program order within a thread;
//   - within a block, a completed barrier (bar.sync, barrier.sync,
//     bar.red, barrier.cluster, an mbarrier phase) between them, or for
//     two lanes of one warp a warp collective (bar.warp.sync, shfl.sync,
//     vote.sync, redux.sync, match.sync);
//   - release and acquire: a fence (membar.gl/sys, fence.sc or
//     fence.acq_rel at .gpu or .sys scope: __threadfence) followed by a
//     write, or a .release st or atom, releases what its thread did so
//     far, what a completed barrier of its block ordered before it and,
//     for the lanes of its warp, what a warp collective did; a read (ld
//     of any kind, atom) that observes that write (the word's last write
//     in the order the interpreter ran the threads, which is the order of
//     some execution) acquires it for its own thread; a barrier of the
//     block spreads what its threads acquired to the whole block, a warp
//     collective to the lanes of the warp. An atomic read-modify-write
//     continues the release sequence of the write it read (C++'s release
//     sequences), so the last of many blocks that each fence and
//     atomicAdd a counter acquires them all (threadFenceReduction), and
//     cooperative groups' grid.sync (a barrier, then a fence and an
//     atomic add by each block's first thread, a spin until the last
//     block flips the count) orders every block before it with every
//     block after it. A fence of .cta scope releases only to the threads
//     of its own block.
//
// Releases and acquires are per thread (vclock): a thread's epoch counts
// its releases, and a release carries the releasing thread's epoch, its
// block's barrier phase and its warp's collective count, so that a
// missing __syncthreads between a block's writes and one thread's fence
// and flag is reported (a thread's release covers only its own writes and
// what a barrier ordered before them). A thread's clock is what it
// acquired, a warp's and a block's what their collectives and barriers
// spread, so a missing __syncthreads between one thread's flag spin and
// the other threads' reads of the data is reported too.
//
// Morally strong: atomics (atom, red), and ld and st with .volatile,
// .relaxed, .acquire or .release, never race with each other when their
// scopes include both threads; an access of .cta scope (atom.cta,
// ld.relaxed.cta, ...) is strong only towards its own block, so .cta
// atomics of two blocks on one word race. A plain access races with a
// strong one (a plain read of a word other threads update atomically, a
// plain x++ beside atomicAdd).
//
// Choices that keep NVIDIA's idioms quiet (documented in the package doc):
//   - Acquire needs no fence on the reader's side: a strong read that
//     observes a released write acquires (the Programming Guide's
//     threadFenceReduction fences only on the writer's side). A plain read
//     that observes a released write acquires as well: its own race with
//     that write is reported, the accesses it orders are not reported
//     again.
//   - A plain ld of the word that the same function then updates with
//     atom.cas through the same address (the Programming Guide's atomicCAS
//     loop for atomicAdd(double), and every CAS loop built like it) does
//     not race with atomics: the CAS checks what it read. It still races
//     with plain writes.
//   - Two unordered writes (st, not atom) that leave the bytes as the
//     first left them (many threads setting one flag to 1) are not
//     reported, as racecheck does not report them in shared memory.
//
// Each pair of instructions is reported once per launch. The shadow is
// kept a 2 KiB page of memory at a time, for the pages the launch
// touches (found through a directory per 1 MiB; made 32 at a time and
// given back, zeroed, to a pool for the next launch when the launch
// ends): a segment of 32 words that only one warp's coalesced accesses
// touched (elementwise kernels) costs 56 bytes, one record for each kind
// of access (gseg); a segment other threads touch too gets its words, 72
// bytes of shadow for every 4 bytes. It is one
// lock for all the launch's workers (Launch.Workers > 1; none when one
// goroutine runs the blocks, cooperative launches included), and strong
// ld/st take the atomics' lock around their check and their access
// (lockStrong), so detection does not depend on which blocks ran
// together or in what order, only on what each read observed.

// GlobalRaceObserver is an Observer that is also told of races between
// the threads of a launch on global memory (see Launch.GlobalRaces). It
// is called from the goroutines that run the launch's blocks, after the
// access that found the race was checked; it must not call back into the
// launch.
type GlobalRaceObserver interface {
	Observer
	GlobalRace(r GlobalRace)
}

// GlobalRace is a race on global memory between two threads of one
// launch: First happened before Second in the interpreter's order, and
// nothing orders them.
type GlobalRace struct {
	Addr   uint64 // the first byte both touch
	Size   uint32 // the bytes both touch in the word at Addr&^3
	First  GlobalAccess
	Second GlobalAccess
}

// GlobalAccess is one side of a GlobalRace.
type GlobalAccess struct {
	Block, Thread [3]uint32
	Kind          AccessKind
	// Strong is set for a morally strong access that is not an atomic
	// (ld or st .volatile, .relaxed, .acquire, .release).
	Strong bool
	Line   int    // the PTX line
	Instr  string // the instruction
	// File and FileLine are the CUDA C line (-lineinfo, -G); "" and 0
	// without them.
	File     string
	FileLine int
}

// Static properties of an instruction, for race checks (function.sites).
const (
	sfStrong   uint8 = 1 << iota // atom, red; ld/st .volatile .relaxed .acquire .release
	sfCTA                        // of .cta scope
	sfRelease                    // st.release, atom.release/.acq_rel
	sfCasSeed                    // a plain ld of the address a later atom.cas of the function updates
	sfFence                      // a fence that releases (membar, fence.sc, fence.acq_rel)
	sfExch                       // atom.exch: writes without using what it read
	sfAtom                       // atom, red
	sfFlagAtom                   // atom.and/or/xor/exch/cas: what software barriers and locks use (flagAtomic)
)

// siteFlags computes the race-check properties of a function's
// statements.
func siteFlags(stmts []*ptx.Stmt) []uint8 {
	fl := make([]uint8, len(stmts))
	cas := map[string]bool{}
	for _, s := range stmts {
		if s.Op == "atom" && has(s.Mods, "cas") && len(s.Args) > 1 {
			cas[s.Args[1].String()] = true
		}
	}
	for i, s := range stmts {
		var f uint8
		cta := has(s.Mods, "cta")
		switch s.Op {
		case "atom", "red":
			f = sfStrong | sfAtom
			if has(s.Mods, "release") || has(s.Mods, "acq_rel") {
				f |= sfRelease
			}
			if has(s.Mods, "exch") {
				f |= sfExch
			}
			if flagAtomic(s) {
				f |= sfFlagAtom
			}
		case "ld", "st":
			if strongAccess(s) {
				f = sfStrong
				cta = cta && !has(s.Mods, "volatile")
			}
			if s.Op == "st" && has(s.Mods, "release") {
				f |= sfRelease
			}
			if s.Op == "ld" && f == 0 && len(s.Args) > 1 && cas[s.Args[1].String()] {
				f |= sfCasSeed
			}
		case "membar":
			f = sfFence
		case "fence":
			if has(s.Mods, "sc") || has(s.Mods, "acq_rel") || len(s.Mods) == 1 && (cta || has(s.Mods, "gpu") || has(s.Mods, "sys")) {
				f = sfFence
			}
		}
		if cta && f != 0 {
			f |= sfCTA
		}
		fl[i] = f
	}
	return fl
}

func has(mods []string, m string) bool {
	for _, x := range mods {
		if x == m {
			return true
		}
	}
	return false
}

// vclock is what a thread knows of the launch's releases, by key
// (clockKey): for a thread, the highest of its own epochs (gacc.epoch)
// that happens before; for a block, the barrier phase before which all
// its accesses happen before (an access of an earlier phase is ordered);
// for a warp, the count of its completed collectives before which its
// lanes' accesses happen before.
type vclock map[uint64]uint32

// Kinds of vclock keys.
const (
	keyThread uint64 = iota << 32 // | launch-wide thread number + 1
	keyBlock  uint64 = 1 << 32    // | linear block index
	keyWarp   uint64 = 2 << 32    // | launch-wide warp number
	keyCTA    uint64 = 3 << 32    // marks a release of .cta scope
)

func (c vclock) join(o vclock) vclock {
	if len(o) == 0 {
		return c
	}
	if c == nil {
		c = make(vclock, len(o))
	}
	for b, e := range o {
		if e > c[b] {
			c[b] = e
		}
	}
	return c
}

func (c vclock) clone() vclock {
	n := make(vclock, len(c)+1)
	for b, e := range c {
		n[b] = e
	}
	return n
}

// gacc is one recorded access to a word of global memory.
type gacc struct {
	tid   uint32 // launch-wide thread number + 1; 0: none
	epoch uint32 // its thread's release epoch at the access (from 1)
	phase uint32 // its block's barrier phase
	wsync uint32 // its warp's completed collectives
	site  uint32 // Program.sites index + 1
	mask  uint8  // the bytes of the word it touched
	kind  uint8  // gRead, gWrite, gAtomic
}

const (
	gRead uint8 = iota + 1
	gWrite
	gAtomic
)

// gword is what is known of one word.
type gword struct {
	w      gacc
	r1, r2 gacc
}

const (
	pageWords = 512 // a shadow page: 2 KiB of memory
	segWords  = 32  // a segment: what a warp's coalesced 4-byte access touches
)

type gpage [pageWords / segWords]gseg

// pageChunk is how many pages globalRaces makes at once: one allocation
// for 64 KiB of memory (an elementwise kernel touches its pages in order).
const pageChunk = 32

// dirPages is how many pages a directory of globalRaces.dirs holds.
const dirPages = 512

// pageChunks holds the zeroed page chunks of ended launches, for the
// next (an elementwise kernel's shadow is otherwise garbage of the size
// of the memory it touched, at every launch).
var pageChunks sync.Pool

// wordChunks holds the zeroed word chunks (globalRaces.words) of ended
// launches, for the next (a kernel with one atomic counter makes one at
// every launch).
var wordChunks sync.Pool

// free gives the launch's shadow pages back to pageChunks and its words
// to wordChunks, zeroed (the words handed out only): the launch ended,
// nothing refers to its shadow any more.
func (g *globalRaces) free() {
	if g == nil {
		return
	}
	for _, c := range g.chunks {
		clear(c[:])
		pageChunks.Put(c)
	}
	for i, c := range g.words {
		clear(c[:min(int(g.nwords)-i*wordChunk, wordChunk)])
		wordChunks.Put(c)
	}
	g.chunks, g.spare, g.dirs, g.words, g.nwords = nil, nil, nil, nil, 0
}

// gseg is the shadow of segWords words: while words is 0, each kind of
// access recorded is one warp's coalesced access, word k by the thread
// w.tid + k/wPer (r.tid + k/rPer), as if each word had that record; the
// first access that does not fit makes the words (full). It holds no
// pointer (words numbers them in globalRaces.words), so that the pages
// cost the collector nothing.
type gseg struct {
	words      uint32 // globalRaces.words index + 1; 0: none yet
	w, r       gacc
	wPer, rPer uint8 // words a lane
}

// wordChunk is how many segments' words globalRaces.words makes at once.
const wordChunk = 64

// full returns the words of seg, made from its warp-wide records on first
// use. g.mu held.
func (g *globalRaces) full(seg *gseg) *[segWords]gword {
	if seg.words != 0 {
		i := seg.words - 1
		return &g.words[i/wordChunk][i%wordChunk]
	}
	if g.nwords%wordChunk == 0 {
		c, _ := wordChunks.Get().(*[wordChunk][segWords]gword)
		if c == nil {
			c = new([wordChunk][segWords]gword)
		}
		g.words = append(g.words, c)
	}
	i := g.nwords
	g.nwords++
	ws := &g.words[i/wordChunk][i%wordChunk]
	for k := range ws {
		if seg.w.tid != 0 {
			ws[k].w = seg.w
			ws[k].w.tid += uint32(k) / uint32(seg.wPer)
		}
		if seg.r.tid != 0 {
			ws[k].r1 = seg.r
			ws[k].r1.tid += uint32(k) / uint32(seg.rPer)
		}
	}
	seg.words = i + 1
	return ws
}

// warp records me, the coalesced access of a warp's lanes from thread
// me.tid on, per words a lane, over the whole segment without making its
// words, and reports whether it did and whether the launch had written
// the words before. It does so when me is ordered after what the
// segment records by program order alone (the same lanes, or nothing
// yet), the access releases nothing, and nothing acquires.
func (seg *gseg) warp(me *gacc, per uint8, releases bool) (done, written bool) {
	if !seg.takes(me.tid, per) {
		return false, false
	}
	written = seg.w.tid != 0
	if me.kind == gRead {
		seg.r, seg.rPer = *me, per
		return true, written
	}
	if releases {
		return false, false
	}
	seg.w, seg.wPer, seg.r = *me, per, gacc{}
	return true, written
}

// takes reports whether a warp's access from thread tid on, per words a
// lane, is ordered after what seg records by program order alone (the
// same lanes, or nothing yet), so that warp can record it for a read,
// or for a write that releases nothing.
func (seg *gseg) takes(tid uint32, per uint8) bool {
	return seg.words == 0 && (seg.w.tid == 0 || seg.w.tid == tid && seg.wPer == per) &&
		(seg.r.tid == 0 || seg.r.tid == tid && seg.rPer == per)
}

// syncVar is the release a word's last write carries.
type syncVar struct {
	clk    vclock // the releases of every block (gpu scope)
	ctaBlk uint32 // block + 1 of a .cta release
	cta    vclock // what it releases, to the threads of that block
}

// globalRaces is a launch's global-memory race checking, shared by its
// machines.
type globalRaces struct {
	obs  GlobalRaceObserver
	prog *Program
	l    *Launch
	tpb  uint32 // threads per block
	wpb  uint32 // warps per block
	// parallel: blocks run on several goroutines (Launch.Workers > 1),
	// and mu is taken; otherwise one goroutine runs them all.
	parallel bool
	mu       sync.Mutex
	// dirs: the pages made, by page number + 1, dirPages to a
	// directory (one map look-up for 1 MiB of memory).
	dirs   map[uint64]*[dirPages]*gpage
	spare  []gpage // pages made but not yet used (pageChunk at a time)
	chunks []*[pageChunk]gpage
	// words: the segments' words where they have their own (gseg.full),
	// wordChunk segments a chunk; nwords how many are used.
	words  []*[wordChunk][segWords]gword
	nwords uint32
	syncs  map[uint64]*syncVar
	seen   map[[2]uint32]bool
	out    []GlobalRace // found under mu, told to obs after it
}

// blockRaces is a machine's part: the block it runs.
type blockRaces struct {
	g        *globalRaces
	blk      uint32   // linear block index
	epoch    []uint32 // per thread: its releases so far (gacc.epoch - 1)
	phase    uint32   // bumped at each completed barrier
	warpSync []uint32 // per warp: collectives completed
	clk      vclock   // acquired by the block's threads before its last barrier
	// wclk: per warp, acquired by its lanes before its last collective;
	// tclk: per thread, acquired since (nil where none; acquired says
	// whether any is set).
	wclk, tclk []vclock
	acquired   bool
	rel        []vclock // per thread: the release of its last fence, or nil
	fenced     bool     // some thread released: the epochs differ
	held       []heldGlobal
	// pageKeys (page number + 1) and pages: the pages used last, one for
	// each of the few arrays a kernel walks at once; nextPage the entry
	// to replace next.
	pageKeys [4]uint64
	pages    [4]*gpage
	nextPage int
}

// heldGlobal is a write that met an unordered earlier write: a race only
// if it changed the bytes they share.
type heldGlobal struct {
	first, second gacc
	addr          uint64 // the word
	mask          uint8
	before        [4]byte
}

func newGlobalRaces(k *Kernel, l *Launch, tpb int) *globalRaces {
	o, ok := l.Observe.(GlobalRaceObserver)
	if !l.GlobalRaces || !ok {
		return nil
	}
	return &globalRaces{obs: o, prog: k.prog, l: l, tpb: uint32(tpb), wpb: uint32((tpb + warpSize - 1) / warpSize), parallel: l.Workers > 1 && !l.Cooperative, dirs: map[uint64]*[dirPages]*gpage{}, syncs: map[uint64]*syncVar{}, seen: map[[2]uint32]bool{}}
}

func (g *globalRaces) newBlock(threads int) *blockRaces {
	if g == nil {
		return nil
	}
	warps := (threads + warpSize - 1) / warpSize
	return &blockRaces{g: g, epoch: make([]uint32, threads), warpSync: make([]uint32, warps), rel: make([]vclock, threads), wclk: make([]vclock, warps), tclk: make([]vclock, threads)}
}

// barrier spreads what each thread acquired to the whole block: a barrier
// of the block completed.
func (br *blockRaces) barrier() {
	br.phase++
	if !br.acquired {
		return
	}
	for i, c := range br.wclk {
		br.clk = br.clk.join(c)
		br.wclk[i] = nil
	}
	for i, c := range br.tclk {
		br.clk = br.clk.join(c)
		br.tclk[i] = nil
	}
	br.acquired = false
}

// collective spreads what the lanes ts of one warp acquired to the warp:
// a warp collective (bar.warp.sync, shfl.sync, vote.sync, ...) of theirs
// completed.
func (br *blockRaces) collective(ts []thread) {
	w := ts[0].id / warpSize
	br.warpSync[w]++
	if !br.acquired {
		return
	}
	for j := range ts {
		br.wclk[w] = br.wclk[w].join(br.tclk[ts[j].id])
	}
}

// released reports whether recorded access a is among what clock c
// covers: its thread's epoch, or a barrier phase of its block or a
// collective of its warp after it.
func (g *globalRaces) released(c vclock, a *gacc) bool {
	if len(c) == 0 {
		return false
	}
	tid := uint64(a.tid - 1)
	blk := tid / uint64(g.tpb)
	warp := blk*uint64(g.wpb) + tid%uint64(g.tpb)/warpSize
	return c[keyThread|uint64(a.tid)] >= a.epoch || c[keyBlock|blk] > a.phase || c[keyWarp|warp] > a.wsync
}

// known reports whether thread t's access is ordered after recorded
// access a by what its block, its warp and it acquired.
func (br *blockRaces) known(t *thread, a *gacc) bool {
	g := br.g
	if g.released(br.clk, a) {
		return true
	}
	return br.acquired && (g.released(br.wclk[t.id/warpSize], a) || g.released(br.tclk[t.id], a))
}

// clock is a copy of what thread t acquired, with what a release by it
// now adds: its own accesses so far, its block's before the last
// barrier, its warp's before the last collective.
func (br *blockRaces) clock(t *thread) vclock {
	c := br.clk.clone()
	if br.acquired {
		c = c.join(br.wclk[t.id/warpSize]).join(br.tclk[t.id])
	}
	g := br.g
	tid := br.blk*g.tpb + uint32(t.id) + 1
	w := t.id / warpSize
	c[keyThread|uint64(tid)] = br.epoch[t.id] + 1
	c[keyBlock|uint64(br.blk)] = br.phase
	c[keyWarp|(uint64(br.blk)*uint64(g.wpb)+uint64(w))] = br.warpSync[w]
	br.epoch[t.id]++
	br.fenced = true
	return c
}

// start resets the block state for block b.
func (br *blockRaces) start(b uint32) {
	br.blk, br.clk = b, nil
	br.phase++
	if br.fenced { // otherwise every epoch is 0 and no thread released
		clear(br.epoch)
		clear(br.rel)
		br.fenced = false
	}
	if br.acquired {
		clear(br.wclk)
		clear(br.tclk)
		br.acquired = false
	}
}

// fenceLanes runs the fence before pc for the lanes act of the warp
// whose threads are ts (with the global checks on: raceFence each).
func (m *machine) fenceLanes(ts []thread, act uint32, pc int) {
	if m.gr == nil {
		return
	}
	for a := act; a != 0; a &= a - 1 {
		t := &ts[bits.TrailingZeros32(a)&31]
		t.pc = pc
		m.raceFence(t)
	}
}

// fence runs a releasing fence of thread t.
func (m *machine) raceFence(t *thread) {
	br := m.gr
	pc := t.pc - 1
	if pc < 0 || pc >= len(t.fn.sites) || t.fn.sites[pc]&sfFence == 0 {
		return
	}
	br.g.lock()
	defer br.g.unlock()
	c := br.clock(t)
	if t.fn.sites[pc]&sfCTA != 0 {
		c[keyCTA] = 1
	}
	br.rel[t.id] = c
}

// ordered reports whether recorded access a happens before thread t's
// access me (of the block br runs).
func (br *blockRaces) ordered(a *gacc, me *gacc, t *thread) bool {
	if a.tid == 0 || a.tid == me.tid {
		return true
	}
	tpb := br.g.tpb
	ab := (a.tid - 1) / tpb
	if ab == br.blk {
		if a.phase != me.phase {
			return true
		}
		if int((a.tid-1)%tpb)/warpSize == t.id/warpSize && a.wsync != me.wsync {
			return true
		}
	}
	return br.known(t, a)
}

// strongPair reports whether a and b are morally strong towards each
// other: both strong, and neither of .cta scope unless both are of one
// block.
func (g *globalRaces) strongPair(a, b *gacc) bool {
	fa, fb := g.prog.siteFlags[a.site-1], g.prog.siteFlags[b.site-1]
	if fa&fb&sfStrong == 0 {
		return false
	}
	if (fa|fb)&sfCTA != 0 && (a.tid-1)/g.tpb != (b.tid-1)/g.tpb {
		return false
	}
	return true
}

// globalAccess checks and records thread t's access of n global bytes at
// addr by in, and reports whether the launch had written none of the
// bytes before it (it reads what the memory held at the launch's start).
func (m *machine) globalAccess(t *thread, in *inst, addr, n uint64) (unwritten bool) {
	br := m.gr
	g := br.g
	if len(br.held) != 0 {
		m.settleGlobal()
	}
	pc := t.pc - 1
	if pc < 0 || pc >= len(t.fn.stmts) {
		pc = 0
	}
	flags := t.fn.sites[pc]
	me := gacc{tid: br.blk*g.tpb + uint32(t.id) + 1, epoch: br.epoch[t.id] + 1, phase: br.phase, wsync: br.warpSync[t.id/warpSize],
		site: t.fn.siteBase + uint32(pc) + 1, kind: accKind(in)}
	g.lock()
	defer g.unlock()
	unwritten = true
	for w := addr &^ 3; w < addr+n; w += 4 {
		lo, hi := max(addr, w), min(addr+n, w+4)
		me.mask = uint8((1<<(hi-lo) - 1) << (lo - w))
		if m.globalWord(t, br.word(w), &me, w, flags) {
			unwritten = false
		}
	}
	return unwritten
}

// accKind is the shadow's kind of access for ld, st and atom.
func accKind(in *inst) uint8 {
	switch in.op {
	case opStGlobal, opStGeneric:
		return gWrite
	case opAtom:
		return gAtomic
	}
	return gRead
}

// word returns the shadow of word w, making its page on first use.
func (br *blockRaces) word(w uint64) *gword {
	return &br.g.full(br.seg(w))[w/4%segWords]
}

// seg returns the shadow segment of word w, making its page on first use.
func (br *blockRaces) seg(w uint64) *gseg {
	key := w/(4*pageWords) + 1
	for i, k := range br.pageKeys {
		if k == key {
			return &br.pages[i][w/4%pageWords/segWords]
		}
	}
	g := br.g
	dir := g.dirs[key/dirPages]
	if dir == nil {
		dir = new([dirPages]*gpage)
		g.dirs[key/dirPages] = dir
	}
	pg := dir[key%dirPages]
	if pg == nil {
		if len(g.spare) == 0 {
			c, _ := pageChunks.Get().(*[pageChunk]gpage)
			if c == nil {
				c = new([pageChunk]gpage)
			}
			g.chunks = append(g.chunks, c)
			g.spare = c[:]
		}
		pg, g.spare = &g.spare[0], g.spare[1:]
		dir[key%dirPages] = pg
	}
	i := br.nextPage
	br.pageKeys[i], br.pages[i], br.nextPage = key, pg, (i+1)%len(br.pages)
	return &pg[w/4%pageWords/segWords]
}

// globalWord checks and records access me (of thread t) of word w, whose
// shadow is sh, and reports whether the launch had written the word
// before it. g.mu held.
func (m *machine) globalWord(t *thread, sh *gword, me *gacc, w uint64, flags uint8) (written bool) {
	br := m.gr
	if sh.w.tid == 0 && sh.r1.tid == 0 {
		// A word the launch had not touched: nothing to check or
		// acquire.
		if me.kind == gRead {
			sh.r1 = *me
			return false
		}
		if flags&sfRelease != 0 || br.rel[t.id] != nil || len(br.g.syncs) != 0 {
			m.release(t, w, flags, me.kind == gAtomic)
		}
		sh.w = *me
		return false
	}
	written = sh.w.tid != 0
	m.checkWord(t, sh, me, w, flags)
	if me.kind != gWrite {
		m.acquire(t, w, sh)
	}
	if me.kind != gRead {
		m.release(t, w, flags, me.kind == gAtomic)
	}
	g := br.g
	switch {
	case me.kind != gRead:
		sh.w, sh.r1, sh.r2 = *me, gacc{}, gacc{}
	case sh.r1.tid == 0 || sh.r1.tid == me.tid || br.ordered(&sh.r1, me, t):
		sh.r1 = *me
		if sh.r2.tid != 0 && br.ordered(&sh.r2, me, t) {
			sh.r2 = gacc{}
		}
	case sh.r2.tid == 0 || sh.r2.tid == me.tid || br.ordered(&sh.r2, me, t) ||
		sameWarp(sh.r2.tid, sh.r1.tid, g.tpb) && !sameWarp(me.tid, sh.r1.tid, g.tpb):
		sh.r2 = *me
	}
	return written
}

// globalWarp checks and records a coalesced access of the 32 lanes ts of
// one warp, lane j accessing size bytes (4 or 8) at addr+j*size, with the
// instruction before pc: one lock, one page look-up per page and no
// check for words the launch had not touched. It returns the lanes that
// read what the launch had not written (Access.Unwritten).
func (m *machine) globalWarp(ts []thread, in *inst, pc int, addr, size uint64) (unwritten uint32) {
	if len(m.gr.held) != 0 {
		m.settleGlobal()
	}
	g := m.gr.g
	g.lock()
	defer g.unlock()
	return m.globalWarpLocked(ts, in, pc, addr, size)
}

// globalWarpLocked is globalWarp with the held writes settled and g.mu
// held.
func (m *machine) globalWarpLocked(ts []thread, in *inst, pc int, addr, size uint64) (unwritten uint32) {
	br := m.gr
	g := br.g
	t0 := &ts[0]
	site := pc - 1
	flags := t0.fn.sites[site]
	me := br.warpAcc(t0, in, pc)
	base := br.blk*g.tpb + 1
	unwritten = allLanes
	per := size / 4
	releases := flags&sfRelease != 0 || br.fenced
	for i := uint64(0); i < warpSize*per; {
		j := i / per
		t := &ts[j]
		me.tid = base + uint32(t.id)
		w := addr + 4*i
		if releases {
			me.epoch = br.epoch[t.id] + 1
		} else if w/4%segWords == 0 && i+segWords <= warpSize*per {
			// No thread of the block released yet: every epoch is 1.
			// A whole segment: one record for its words, where it fits.
			if done, written := br.seg(w).warp(&me, uint8(per), releases); done {
				if written {
					unwritten &^= (1<<(segWords/per) - 1) << j
				}
				i += segWords
				continue
			}
		}
		if m.globalWord(t, br.word(w), &me, w, flags) {
			unwritten &^= 1 << j
		}
		i++
	}
	return unwritten
}

// warpAcc is the access of the instruction before pc by the warp whose
// first lane is t0, before its lanes' thread numbers are set: what every
// lane's record of a coalesced warp access shares.
func (br *blockRaces) warpAcc(t0 *thread, in *inst, pc int) gacc {
	return gacc{epoch: 1, phase: br.phase, wsync: br.warpSync[t0.id/warpSize],
		site: t0.fn.siteBase + uint32(pc-1) + 1, kind: accKind(in), mask: 0xf}
}

// segRuns records the warps' accesses of a block's coalesced run whose
// every warp's lanes cover whole segments (globalWarpLocked's segment
// case, addr aligned to one): warp w's lanes from addr + w*32*size on,
// for the warps whose unw is allLanes on entry; each warp whose
// segments all take it (gseg.warp) gets unw[w] set as globalWarpLocked
// would return it, the others keep allLanes and have recorded nothing
// (gseg.warp changes nothing when it declines, so the caller gives such
// a warp to globalWarpLocked). g.mu held, nothing of the block released.
func (m *machine) segRuns(in *inst, pc int, addr, size uint64, act *blockMask, done *[maxWarps]bool, unw *[maxWarps]uint32) {
	br := m.gr
	per := size / 4
	if per != 1 && per != 2 {
		return // (4- and 8-byte lanes only)
	}
	base := br.blk*br.g.tpb + 1
	nseg := per * warpSize / segWords
	for w, a := range act[:len(m.warps)] {
		if a == 0 {
			continue
		}
		ts := m.tss[w]
		waddr := addr + size*uint64(warpSize*w)
		// The warp's segments all take it, or none records it (segment
		// k: lanes from k*segWords/per on; per is 1 or 2).
		var segs [2]*gseg
		ok := true
		for k := range nseg {
			segs[k] = br.seg(waddr + 4*segWords*k)
			ok = ok && segs[k].takes(base+uint32(ts[k*segWords/per].id), uint8(per))
		}
		if !ok {
			continue
		}
		me := br.warpAcc(&ts[0], in, pc)
		var u uint32 = allLanes
		for k := range nseg {
			me.tid = base + uint32(ts[k*segWords/per].id)
			if _, written := segs[k].warp(&me, uint8(per), false); written {
				u &^= (1<<(segWords/per) - 1) << (k * segWords / per)
			}
		}
		done[w], unw[w] = true, u
	}
}

// sameWarp reports whether launch-wide threads a and b are of one warp.
func sameWarp(a, b, tpb uint32) bool {
	return (a-1)/tpb == (b-1)/tpb && (a-1)%tpb/warpSize == (b-1)%tpb/warpSize
}

// checkWord reports me's races with what sh records of word w.
func (m *machine) checkWord(t *thread, sh *gword, me *gacc, w uint64, flags uint8) {
	br := m.gr
	g := br.g
	race := func(a *gacc) bool {
		if a.tid == 0 || a.mask&me.mask == 0 || br.ordered(a, me, t) || g.strongPair(a, me) {
			return false
		}
		if me.kind == gRead && a.kind == gAtomic && flags&sfCasSeed != 0 ||
			a.kind == gRead && me.kind == gAtomic && g.prog.siteFlags[a.site-1]&sfCasSeed != 0 {
			return false // a CAS loop's first read: the CAS checks it
		}
		return true
	}
	if race(&sh.w) {
		if sh.w.kind == gWrite && me.kind == gWrite {
			h := heldGlobal{first: sh.w, second: *me, addr: w, mask: sh.w.mask & me.mask}
			if b := m.global(w, 4); b != nil {
				copy(h.before[:], b)
				br.held = append(br.held, h)
				return
			}
		}
		g.report(&sh.w, me, w)
		return
	}
	if me.kind == gRead {
		return
	}
	for _, r := range []*gacc{&sh.r1, &sh.r2} {
		if race(r) {
			g.report(r, me, w)
			return
		}
	}
}

// acquire joins the release that word w's last write carries into
// thread t's clock (a barrier spreads it to the block, a warp collective
// to the warp).
func (m *machine) acquire(t *thread, w uint64, sh *gword) {
	br := m.gr
	sv := br.g.syncs[w]
	if sv == nil || sh.w.tid == 0 {
		return
	}
	c := br.tclk[t.id]
	if len(sv.clk) != 0 {
		if c == nil {
			c = make(vclock, len(sv.clk))
		}
		c = c.join(sv.clk)
	}
	if sv.ctaBlk == br.blk+1 {
		if c == nil {
			c = make(vclock, len(sv.cta))
		}
		c = c.join(sv.cta)
	}
	if c != nil {
		br.tclk[t.id], br.acquired = c, true
	}
}

// release records what thread t's write of word w releases: its last
// fence's, or (a .release st or atom) what its block did so far. An
// atomic keeps the word's release sequence; any other write ends it.
func (m *machine) release(t *thread, w uint64, flags uint8, rmw bool) {
	br := m.gr
	g := br.g
	var c vclock
	if flags&sfRelease != 0 {
		c = br.clock(t)
		if flags&sfCTA != 0 {
			c[keyCTA] = 1
		}
	} else {
		c = br.rel[t.id]
	}
	sv := g.syncs[w]
	if !rmw {
		sv = nil
	}
	if c == nil {
		if !rmw && len(g.syncs) != 0 {
			delete(g.syncs, w)
		}
		return
	}
	if sv == nil {
		sv = &syncVar{}
		g.syncs[w] = sv
	}
	if _, cta := c[keyCTA]; cta {
		if !rmw || sv.ctaBlk != br.blk+1 {
			sv.cta = nil
		}
		sv.ctaBlk, sv.cta = br.blk+1, sv.cta.clone().join(c)
		return
	}
	if rmw {
		sv.clk = sv.clk.clone().join(c)
	} else {
		sv.clk = c
	}
}

// settleGlobal reports the held writes that changed the bytes they share
// with the earlier write they met.
func (m *machine) settleGlobal() {
	br := m.gr
	if br == nil || len(br.held) == 0 {
		return
	}
	held := br.held
	br.held = br.held[:0]
	g := br.g
	g.lock()
	defer g.unlock()
	for i := range held {
		h := &held[i]
		b := m.global(h.addr, 4)
		if b == nil {
			continue
		}
		for j := range 4 {
			if h.mask>>j&1 != 0 && b[j] != h.before[j] {
				g.report(&h.first, &h.second, h.addr)
				break
			}
		}
	}
}

// report tells the observer of a race between recorded access a and
// access me of word w, once per pair of instructions. g.mu held.
func (g *globalRaces) report(a, me *gacc, w uint64) {
	key := pairKey(a.site, me.site)
	if g.seen[key] {
		return
	}
	g.seen[key] = true
	both := a.mask & me.mask
	lo := 0
	for both>>lo&1 == 0 {
		lo++
	}
	size := 0
	for j := lo; j < 4 && both>>j&1 != 0; j++ {
		size++
	}
	g.out = append(g.out, GlobalRace{Addr: w + uint64(lo), Size: uint32(size), First: g.side(a), Second: g.side(me)})
}

// lock takes mu when blocks run in parallel.
func (g *globalRaces) lock() {
	if g.parallel {
		g.mu.Lock()
	}
}

// unlock releases mu and tells the observer of the races found under it.
func (g *globalRaces) unlock() {
	out := g.out
	g.out = nil
	if g.parallel {
		g.mu.Unlock()
	}
	for _, r := range out {
		g.obs.GlobalRace(r)
	}
}

func (g *globalRaces) side(a *gacc) GlobalAccess {
	s := g.prog.sites[a.site-1]
	file, line := g.prog.source(s)
	tid := a.tid - 1
	blk, th := tid/g.tpb, tid%g.tpb
	gr, bl := g.l.Grid, g.l.Block
	kind := Read
	switch a.kind {
	case gWrite:
		kind = Write
	case gAtomic:
		kind = Atomic
	}
	return GlobalAccess{
		Block:  [3]uint32{blk % gr[0], blk / gr[0] % gr[1], blk / (gr[0] * gr[1])},
		Thread: [3]uint32{th % bl[0], th / bl[0] % bl[1], th / (bl[0] * bl[1])},
		Kind:   kind, Strong: kind != Atomic && g.prog.siteFlags[a.site-1]&sfStrong != 0,
		Line: int(s.Line), Instr: s.String(), File: file, FileLine: line,
	}
}

// lockStrong takes the launch's atomics lock for thread t's strong
// (volatile, .relaxed, .acquire, .release) global access, or its plain
// store, when blocks run in parallel with the global race checks on, so
// that its check and the memory access are one step, as an atomic's are:
// a flag's release and its acquire are then checked in the order memory
// saw them, and a plain write that meets an unordered earlier write reads
// that write's bytes, not what the memory held before another worker
// stored them (two writes of one value are no race). It reports whether
// it took the lock (for unlockStrong).
func (m *machine) lockStrong(t *thread) bool {
	if m.gr == nil || !m.gr.g.parallel || m.atomMu == nil {
		return false
	}
	pc := t.pc - 1
	if pc < 0 || pc >= len(t.fn.sites) {
		return false
	}
	switch f := t.fn.sites[pc] & (sfStrong | sfAtom); {
	case f == sfStrong:
	case f == 0 && (t.fn.code[pc].op == opStGlobal || t.fn.code[pc].op == opStGeneric):
	default:
		return false
	}
	m.atomMu.Lock()
	return true
}

// lockStore takes the launch's atomics lock, as lockStrong does for a
// thread's plain store, for a warp's coalesced plain global store by in
// (its check and the store in one step), and reports whether it did.
func (m *machine) lockStore(in *inst) bool {
	if in.op != opStGlobal || m.gr == nil || !m.gr.g.parallel || m.atomMu == nil {
		return false
	}
	m.atomMu.Lock()
	return true
}

// unlockStrong releases what lockStrong took.
func (m *machine) unlockStrong(locked bool) {
	if locked {
		m.atomMu.Unlock()
	}
}
