package ptxexec

// Warp-wide observation. Without the in-kernel global checks (which need
// each thread's access: globalrace.go), an Observer needs only which bytes
// an instruction touched and how, so the warp-wide paths (fullLoad,
// fullStore, loadLanes, storeLanes) stay on with an Observer and report
// each run of lanes whose addresses follow one another (a coalesced
// access: the whole warp) as one Access: Addr and Size cover the run,
// Block and Thread are its first lane's. The bytes reported, and their
// kinds, are exactly those the lane-by-lane path reports.

// laneRuns gathers the accesses of one instruction by lanes of one warp,
// in lane order, into runs of consecutive addresses for the Observer.
type laneRuns struct {
	m      *machine
	ts     []thread
	pc     int // the instruction's index in the kernel's entry
	in     *inst
	lo, hi uint64
	lane   int // the run's first lane; -1 when no run is open
	next   int // the lane after the run's last
}

// newLaneRuns starts gathering the accesses of instruction pc of the
// kernel's entry by the lanes of warp ts.
func (m *machine) newLaneRuns(ts []thread, pc int, in *inst) laneRuns {
	return laneRuns{m: m, ts: ts, pc: pc, in: in, lane: -1}
}

// add notes lane j's access of the n bytes at addr.
func (r *laneRuns) add(j int, addr, n uint64) {
	if r.lane >= 0 && addr == r.hi && j == r.next {
		r.hi += n
		r.next++
		return
	}
	r.flush()
	r.lo, r.hi, r.lane, r.next = addr, addr+n, j, j+1
}

// flush reports the open run, if any.
func (r *laneRuns) flush() {
	if r.lane < 0 {
		return
	}
	r.m.observeRun(r.pc, r.in, &r.ts[r.lane], r.lo, r.hi-r.lo, r.next-r.lane)
	r.lane = -1
}

// observeRun reports that instruction pc of the kernel's entry touched the
// n bytes at addr, for a run of lanes whose first is t.
func (m *machine) observeRun(pc int, in *inst, t *thread, addr, n uint64, lanes int) {
	k := Read
	switch in.op {
	case opStGlobal, opStGeneric:
		k = Write
	case opAtom:
		k = Atomic
	}
	fn := m.k.fn
	if pc < 0 || pc >= len(fn.stmts) {
		pc = 0
	}
	s := fn.stmts[pc]
	file, line := m.k.prog.source(s)
	m.obs.Global(Access{Addr: addr, Size: uint32(n), Kind: k, Line: int(s.Line), Instr: fn.texts[pc], File: file, FileLine: line, Block: m.block, Thread: t.idx, Lanes: uint32(lanes)})
}

// observeLanes reports the accesses of in (instruction pc) by the 32 lanes
// of warp ts at addresses ra (plus in's offset), all in bounds: one Access
// per run of consecutive addresses.
func (m *machine) observeLanes(ts []thread, pc int, in *inst, ra *[warpSize]uint64) {
	imm, n := uint64(in.imm), uint64(in.size)
	r := m.newLaneRuns(ts, pc, in)
	for j := range ra {
		r.add(j, ra[j]+imm, n)
	}
	r.flush()
}
