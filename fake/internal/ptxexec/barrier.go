package ptxexec

import (
	"github.com/nocgo/cuda/internal/ptx"
)

// Block barriers: bar.sync / barrier.sync with a barrier number and an
// optional thread count, bar.arrive / barrier.arrive, and bar.red /
// barrier.red (popc, and, or). A block has 16 barriers; each counts the
// threads that arrived at it (bar.arrive included) and completes when
// that count reaches the instruction's thread count, or, without one,
// every thread of the block that has not exited. Threads are counted one
// by one (the same as warp by warp when whole warps arrive, as .aligned
// code does).

// A block has 16 named barriers and, after them, the barrier of its
// cluster (barrier.cluster.wait), which is the block's own: the fake's
// clusters are of one block, as %cluster_nctarank says.
const (
	namedBarriers  = 16
	clusterBarrier = namedBarriers
	numBarriers    = namedBarriers + 1
)

// barCluster is inst.mode of the opBar of barrier.cluster.wait.
const barCluster = 1

// Reductions of bar.red (inst.mode of opBarRed).
const (
	barRedPopc = iota
	barRedAnd
	barRedOr
)

func (d *decoder) bar(s *ptx.Stmt, m mods, in *inst) error {
	if s.Op == "barrier" && m.take("cluster") != "" {
		return d.clusterBar(s, m, in)
	}
	kind := m.take("warp", "sync", "arrive", "red")
	m.take("aligned")
	m.take("cta")
	var err error
	switch {
	case kind == "warp" && s.Op == "bar":
		m.take("sync")
		if err := d.noMore(m); err != nil {
			return err
		}
		if err := d.args(s, 1); err != nil {
			return err
		}
		in.op = opWarpSync
		in.a, err = d.src(s.Args[0], kU, 32)
		return err
	case kind == "sync" || kind == "" && s.Op == "bar" || kind == "arrive":
		if err := d.noMore(m); err != nil {
			return err
		}
		in.op = opBar
		if kind == "arrive" {
			in.op = opBarArrive
			if len(s.Args) != 2 {
				return d.fail("%s.arrive needs a thread count", s.Op)
			}
		}
		if len(s.Args) != 1 && len(s.Args) != 2 {
			return d.fail("%d operands, want 1 or 2", len(s.Args))
		}
		return d.barOperands(s.Args, in)
	case kind == "red":
		switch m.take("popc", "and", "or") {
		case "popc":
			in.mode = barRedPopc
		case "and":
			in.mode = barRedAnd
		case "or":
			in.mode = barRedOr
		default:
			return d.fail("%s.red needs .popc, .and or .or", s.Op)
		}
		if err := d.oneType(m, in); err != nil {
			return err
		}
		if err := d.noMore(m); err != nil {
			return err
		}
		if in.mode == barRedPopc && (in.bits != 32 || in.kind == kPred || in.kind == kF) || in.mode != barRedPopc && in.kind != kPred {
			return d.fail("%s.red of .%s", s.Op, typeName(in.kind, in.bits))
		}
		if len(s.Args) != 3 && len(s.Args) != 4 {
			return d.fail("%d operands, want 3 or 4", len(s.Args))
		}
		in.op = opBarRed
		if in.d, err = d.dst(s.Args[0]); err != nil {
			return err
		}
		args := s.Args[1:]
		c := args[len(args)-1]
		if c.Kind == ptx.OpReg && c.Neg {
			in.flags |= fCombNeg
			c.Neg = false
		}
		if in.c, err = d.src(c, kPred, 1); err != nil {
			return err
		}
		return d.barOperands(args[:len(args)-1], in)
	}
	return d.fail("unsupported barrier")
}

// clusterBar decodes barrier.cluster.arrive{.release,.relaxed}{.aligned}
// and barrier.cluster.wait{.acquire}{.aligned}. A cluster is one block
// here, so the arrive does nothing and the wait is a barrier of the whole
// block of its own (cooperative groups' cluster_group::sync, which code
// compiled with -G keeps even where it never runs).
func (d *decoder) clusterBar(s *ptx.Stmt, m mods, in *inst) error {
	kind := m.take("arrive", "wait")
	m.take("aligned")
	if err := d.noMore(m); err != nil {
		return err
	}
	if len(s.Args) != 0 {
		return d.fail("barrier.cluster takes no operands")
	}
	var err error
	switch kind {
	case "arrive":
		in.op = opNop
	case "wait":
		in.op, in.mode, in.b = opBar, barCluster, sZero
		in.a, err = d.src(ptx.Operand{Kind: ptx.OpImm, Int: clusterBarrier}, kU, 32)
	default:
		err = d.fail("barrier.cluster needs .arrive or .wait")
	}
	return err
}

// barOperands decodes a barrier's number (a) and thread count (b; the
// zero slot without one). A constant number or count out of range is
// refused here; a register's is checked when it runs.
func (d *decoder) barOperands(args []ptx.Operand, in *inst) error {
	var err error
	if a := args[0]; a.Kind == ptx.OpImm && (a.Int < 0 || a.Int >= namedBarriers) {
		return d.fail("barrier number %d, not 0..15", a.Int)
	}
	if in.a, err = d.src(args[0], kU, 32); err != nil {
		return err
	}
	in.b = sZero
	if len(args) == 2 {
		if b := args[1]; b.Kind == ptx.OpImm && (b.Int <= 0 || b.Int > 1024 || b.Int%warpSize != 0) {
			return d.fail("barrier thread count %d, not a multiple of 32 up to 1024", b.Int)
		}
		in.b, err = d.src(args[1], kU, 32)
	}
	return err
}

// arrive counts thread t at the barrier of bar.sync, bar.red or
// bar.arrive instruction in. It reports false after a fault.
func (m *machine) arrive(t *thread, in *inst) bool {
	id, count := m.reg(t, in.a)&0xffffffff, m.reg(t, in.b)&0xffffffff
	if id >= namedBarriers && !(in.op == opBar && in.mode == barCluster) {
		m.fail(t, in, CodeIllegalInstr, 0, "barrier number out of range")
		return false
	}
	if count != 0 && (count%warpSize != 0 || count > uint64(len(m.threads)+warpSize-1)/warpSize*warpSize) {
		m.fail(t, in, CodeIllegalInstr, 0, "barrier thread count is not a multiple of 32 up to the block's threads")
		return false
	}
	b := &m.barriers[id]
	if b.arrived > 0 && b.count != uint32(count) {
		m.fail(t, in, CodeIllegalInstr, 0, "threads arrive at one barrier with different thread counts")
		return false
	}
	b.count = uint32(count)
	b.arrived++
	b.red = b.red || in.op == opBarRed
	return true
}

// barrierState is one of a block's barriers.
type barrierState struct {
	arrived uint32 // threads counted since it last completed
	count   uint32 // the thread count they gave; 0: the whole block
	red     bool   // a bar.red arrived
}

// releaseBarriers completes every barrier whose count is reached: its
// waiting threads run on, with bar.red's result. It reports whether it
// released any.
func (m *machine) releaseBarriers(live int) bool {
	var done [numBarriers]bool
	any, red := false, false
	pending := 0 // barriers with threads waiting
	for id := range m.barriers {
		b := &m.barriers[id]
		if b.arrived == 0 {
			continue
		}
		pending++
		want := b.count
		if want == 0 {
			want = uint32(live)
		}
		if b.arrived >= want {
			done[id], any = true, true
			red = red || b.red
		}
	}
	if !any {
		return false
	}
	// The reductions of bar.red over the threads waiting at each
	// completed barrier.
	var pop [numBarriers]uint64
	var and [numBarriers]uint64
	for id := range and {
		and[id] = 1
	}
	var or [numBarriers]uint64
	if red {
		for i := range m.threads {
			t := &m.threads[i]
			if t.state != tBarrier {
				continue
			}
			in := &t.fn.code[t.pc-1]
			id := m.reg(t, in.a) & 0xffffffff
			if in.op != opBarRed || !done[id] {
				continue
			}
			p := m.reg(t, in.c) != 0
			if in.flags&fCombNeg != 0 {
				p = !p
			}
			if p {
				pop[id]++
				or[id] = 1
			} else {
				and[id] = 0
			}
		}
	}
	// With one barrier pending, every waiting thread waits at it: no
	// need to read which.
	only := pending == 1 && !red
	for i := range m.threads {
		t := &m.threads[i]
		if t.state != tBarrier {
			continue
		}
		if only {
			t.state = tRunning
			continue
		}
		in := &t.fn.code[t.pc-1]
		id := m.reg(t, in.a) & 0xffffffff
		if !done[id] {
			continue
		}
		if in.op == opBarRed {
			m.setReg(t, in.d, [...]uint64{barRedPopc: pop[id], barRedAnd: and[id], barRedOr: or[id]}[in.mode])
			m.setReg(t, sSink, 0)
		}
		t.state = tRunning
	}
	for w := range m.warps {
		if wr := &m.warps[w]; wr.atBarrier && done[wr.barrierID] {
			wr.atBarrier, wr.resume = false, true
		}
	}
	for id := range done {
		if done[id] {
			m.barriers[id] = barrierState{}
		}
	}
	m.phase++
	if m.races != nil {
		m.races.phase++
	}
	if m.gr != nil {
		m.gr.barrier()
	}
	return true
}
