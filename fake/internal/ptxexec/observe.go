package ptxexec

// Observer is told of a launch's accesses to global memory, for checks
// that look across launches and streams (the fake's race detector). It is
// called from the goroutines that run the launch's blocks (several at once
// when Launch.Workers > 1), for each access that passed the bounds and
// alignment checks, as the access happens (before it, or, for a run of
// lanes, as its bytes move); it must not call back into the launch. The
// accesses of one instruction by lanes of one warp whose addresses follow
// one another (a coalesced access) come as one Access covering them all,
// except with Launch.GlobalRaces, which reports each thread's access. A
// nil Launch.Observe costs one comparison per access.
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
// lanes of one warp, in lane order, whose addresses follow one another
// (Thread is then the run's first lane; Addr and Size cover the run).
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
