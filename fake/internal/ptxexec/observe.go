package ptxexec

import "github.com/nocgo/cuda/fake/internal/ptxexec/lanes"

// Observer is told of a launch's accesses to global memory, for checks
// that look across launches and streams (the fake's race detector). It is
// called from the goroutines that run the launch's blocks (several at once
// when Launch.Workers > 1), for each access that passed the bounds and
// alignment checks, as the access happens (before it, or, for a run of
// lanes, as its bytes move); it must not call back into the launch. The
// accesses of one instruction by consecutive lanes of one warp whose
// addresses follow one another (a coalesced access) come as one Access
// covering them all (Access.Lanes; with Launch.GlobalRaces, only a full
// warp's, see observeWarp). A nil Launch.Observe costs one comparison per
// access.
type Observer interface {
	Global(a Access)
}

// AccessKind says what an access does to the bytes it touches.
type AccessKind uint8

// The kinds of access.
const (
	Read   AccessKind = iota + 1 // ld, and the reads of printf and assert
	Write                        // st
	Atomic                       // atom and red: ordered against other atomics, not against plain accesses
)

// String names the kind as a report does.
func (k AccessKind) String() string {
	switch k {
	case Read:
		return "read"
	case Write:
		return "write"
	case Atomic:
		return "atomic"
	}
	return "access"
}

// Access is one access to global memory: of one thread, or of a run of
// consecutive lanes of one warp whose addresses follow one another
// (Lanes; Thread is then the run's first lane, Addr and Size cover the
// run).
type Access struct {
	Addr  uint64 // the first byte
	Size  uint32 // how many bytes (up to 32 lanes' worth)
	Kind  AccessKind
	Line  int    // the PTX line of the instruction
	Instr string // the instruction, as a fault names it
	// File and FileLine are the instruction's CUDA C line (.file and
	// .loc: -lineinfo or -G); "" and 0 without them.
	File     string
	FileLine int
	Block    [3]uint32
	Thread   [3]uint32
	// Lanes, when above 1, says that one Access stands for a coalesced
	// access of that many consecutive threads of one block, Thread's
	// first: each accessed Size/Lanes bytes, the next thread the next ones
	// (the lanes of a warp, or, on a block program, the whole warps of a
	// run of the block).
	Lanes uint32
	// Unwritten is set, with Launch.GlobalRaces, for a read or atomic
	// (atom.exch aside) of bytes none of which the launch had written
	// before it: it read what they held when the launch began.
	Unwritten bool
}

// observe reports a global access of t's current instruction to the
// launch's Observer.
func (m *machine) observe(t *thread, in *inst, addr, n uint64) {
	k := Read
	switch in.op {
	case opStGlobal, opStGeneric:
		k = Write
	case opAtom:
		k = Atomic
	}
	pc := t.pc - 1
	if pc < 0 || pc >= len(t.fn.stmts) {
		pc = 0
	}
	s := t.fn.stmts[pc]
	file, line := m.k.prog.source(s)
	unwritten := false
	if m.gr != nil {
		unwritten = m.globalAccess(t, in, addr, n) && k != Write && t.fn.sites[pc]&sfExch == 0
	}
	m.obs.Global(Access{Addr: addr, Size: uint32(n), Kind: k, Line: int(s.Line), Instr: t.fn.texts[pc], File: file, FileLine: line, Block: m.block, Thread: t.idx, Unwritten: unwritten})
}

// warpSpan returns the bytes of a coalesced global ld or st of all 32
// lanes of a warp (lane j: in.size bytes, 4 or 8, at ra[0]+j*in.size,
// aligned, in one allocation; ra holds the addresses less imm) after
// observing it as one access (observeWarp), or nil where the lanes must
// be observed one by one: other sizes, vectors, scattered addresses,
// strong accesses (lockStrong).
func (m *machine) warpSpan(ts []thread, ra *[warpSize]uint64, imm uint64, in *inst, pc int) []byte {
	size := uint64(in.size)
	addr := ra[0] + imm
	if in.vec != 1 || size != 4 && size != 8 || len(ts) < warpSize || addr&(size-1) != 0 || ts[0].fn.sites[pc-1]&sfStrong != 0 ||
		!lanes.Consecutive(ra, size) {
		return nil
	}
	b := m.global(addr, warpSize*size)
	if b != nil {
		m.observeWarp(ts, in, pc, addr)
	}
	return b
}

// observeWarp reports the coalesced access of warp ts's 32 lanes (see
// warpSpan) to the Observer: one Access for them all, or one a lane
// where only some lanes read bytes the launch had not written.
func (m *machine) observeWarp(ts []thread, in *inst, pc int, addr uint64) {
	a, mixed := m.checkWarpAccess(ts, in, pc, addr)
	if mixed == 0 {
		m.obs.Global(a)
		return
	}
	m.observeLanesOf(a, ts, mixed)
}

// checkWarpAccess checks the coalesced access of warp ts's 32 lanes by in
// (the instruction before pc) at addr with the in-kernel global checks,
// if on, and returns its Access; mixed is 0 when every lane read bytes
// the launch had written or none did (a.Unwritten), else the lanes that
// read bytes it had not.
func (m *machine) checkWarpAccess(ts []thread, in *inst, pc int, addr uint64) (a Access, mixed uint32) {
	a = m.warpAccess(ts, in, pc, addr)
	if m.gr == nil {
		return a, 0
	}
	unw := m.globalWarp(ts, in, pc, addr, uint64(in.size))
	if a.Kind == Write {
		unw = 0 // a write reads nothing
	}
	if unw == 0 || unw == allLanes {
		a.Unwritten = unw != 0
		return a, 0
	}
	return a, unw
}

// warpAccess is the Access of the coalesced global ld or st in (the
// instruction before pc) of the 32 lanes ts from addr on, before the
// checks say whether it read unwritten bytes.
func (m *machine) warpAccess(ts []thread, in *inst, pc int, addr uint64) Access {
	t := &ts[0]
	k := Read
	if in.op == opStGlobal {
		k = Write
	}
	s := t.fn.stmts[pc-1]
	file, line := m.k.prog.source(s)
	return Access{Addr: addr, Size: uint32(warpSize * uint64(in.size)), Kind: k, Line: int(s.Line), Instr: t.fn.texts[pc-1], File: file, FileLine: line, Block: m.block, Thread: t.idx, Lanes: warpSize}
}

// observeLanesOf reports warp access a (of the lanes ts) as one Access a
// lane, those of unw Unwritten.
func (m *machine) observeLanesOf(a Access, ts []thread, unw uint32) {
	size := uint64(a.Size / warpSize)
	addr := a.Addr
	a.Size, a.Lanes = uint32(size), 0
	for j := range ts[:warpSize] {
		a.Addr, a.Thread, a.Unwritten = addr+uint64(j)*size, ts[j].idx, unw>>j&1 != 0
		m.obs.Global(a)
	}
}

// observedFull runs a full warp's coalesced global ld or st (lanes ts,
// registers S, the instruction before pc) with an Observer, observed as
// one access (warpSpan). It reports false, having done nothing, where
// the lanes must go one by one.
func (m *machine) observedFull(ts []thread, S []uint64, in *inst, pc int) bool {
	if m.obs == nil || in.op != opLdGlobal && in.op != opStGlobal {
		return false
	}
	defer m.unlockStrong(m.lockStore(in))
	b := m.warpSpan(ts, lane32(S, in.a), uint64(in.imm), in, pc)
	if b == nil {
		return false
	}
	rv := lane32(S, in.v[0])
	// warpSpan took only 4- and 8-byte scalars: extend is the identity.
	switch {
	case in.op == opLdGlobal && in.size == 4:
		lanes.Load32(rv, (*[4 * warpSize]byte)(b))
	case in.op == opLdGlobal:
		lanes.Load64(rv, (*[8 * warpSize]byte)(b))
	case in.size == 4:
		lanes.Store32((*[4 * warpSize]byte)(b), rv)
	default:
		lanes.Store64((*[8 * warpSize]byte)(b), rv)
	}
	return true
}
