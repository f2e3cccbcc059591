package fake

import (
	"cmp"
	"fmt"
	"slices"
	"sync"

	"github.com/nocgo/cuda/fake/internal/ptxexec"
)

// A kernel's accesses reach the race detector through a recorder, one per
// launch: each access extends a run of neighbouring bytes touched by the
// same instruction (for Go bodies, by Load or by Store), so that a launch
// whose threads touch consecutive elements costs one run per array, and
// the runs are checked against the shadow memory when the launch ends
// (writes first: a launch that writes bytes and then reads them reads
// what it wrote; but a read the interpreter saw take bytes the launch
// had not yet written is checked for an uninitialised read before the
// writes, race_inkernel.go). Races between the accesses of one launch
// are the interpreter's to find (ptxexec.Launch.GlobalRaces and
// SharedRaces).

// raceRun is a range of bytes one piece of work touched the same way.
type raceRun struct {
	lo, hi uintptr
	kind   accessKind
	site   *KernelSite
}

// raceRecorder gathers one launch's accesses. It is safe for the
// interpreter's parallel workers.
type raceRecorder struct {
	b    *fakeBackend
	op   *raceOp
	what string

	mu    sync.Mutex
	runs  []raceRun
	fresh []raceRun // reads of bytes the launch had not written (race_inkernel.go)
}

// openRuns is how many of the latest runs an access may extend.
const openRuns = 8

// maxRuns is how many runs a recorder holds before it merges them.
const maxRuns = 1 << 14

// recorder returns the recorder of a launch of the kernel name by the
// running item, or nil when detection is off.
func (b *fakeBackend) recorder(name string) *raceRecorder {
	if b.race == nil {
		return nil
	}
	op := b.race.cur.Load()
	if op == nil {
		return nil
	}
	return &raceRecorder{b: b, op: op, what: "kernel " + name}
}

// add records the n bytes at addr, touched as kind by the instruction at
// PTX line (0 for Go bodies) of the given block and thread.
func (rec *raceRecorder) add(addr, n uintptr, kind accessKind, line int, instr string, block, thread [3]uint32) {
	if rec == nil || n == 0 {
		return
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for i := len(rec.runs) - 1; i >= max(0, len(rec.runs)-openRuns); i-- {
		r := &rec.runs[i]
		if r.kind == kind && r.site.PTXLine == line && addr <= r.hi && addr+n >= r.lo {
			r.lo, r.hi = min(r.lo, addr), max(r.hi, addr+n)
			return
		}
	}
	site := &KernelSite{PTXLine: line, Instr: instr, Block: block, Thread: thread}
	rec.runs = append(rec.runs, raceRun{lo: addr, hi: addr + n, kind: kind, site: site})
	if len(rec.runs) >= maxRuns {
		rec.runs = mergeRuns(rec.runs)
	}
}

// mergeRuns joins the runs of one kind that touch, whatever instruction
// made them (the first one's site stands for the merged run).
func mergeRuns(runs []raceRun) []raceRun {
	slices.SortStableFunc(runs, func(a, b raceRun) int {
		return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.lo, b.lo))
	})
	out := runs[:1]
	for _, r := range runs[1:] {
		if p := &out[len(out)-1]; p.kind == r.kind && r.lo <= p.hi {
			p.hi = max(p.hi, r.hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

// flush checks the launch's runs: writes and atomics first, then reads.
func (rec *raceRecorder) flush() {
	if rec == nil {
		return
	}
	rec.mu.Lock()
	runs, fresh := rec.runs, rec.fresh
	rec.runs, rec.fresh = nil, nil
	rec.mu.Unlock()
	if len(fresh) != 0 {
		rec.checkUnwritten(fresh)
	}
	if len(runs) == 0 {
		return
	}
	slices.SortStableFunc(runs, func(a, b raceRun) int {
		return cmp.Compare(readOrder(a.kind), readOrder(b.kind))
	})
	rec.b.raceRuns(rec.op, rec.what, runs)
}

func readOrder(k accessKind) int {
	if k == accRead || k == accCopyRead {
		return 1
	}
	return 0
}

// observer is the recorder as the PTX interpreter's Observer; nil (a nil
// interface) when detection is off.
func (rec *raceRecorder) observer() ptxexec.Observer {
	if rec == nil {
		return nil
	}
	return raceObserver{rec}
}

type raceObserver struct{ rec *raceRecorder }

func (o raceObserver) Global(a ptxexec.Access) {
	k := accRead
	switch a.Kind {
	case ptxexec.Write:
		k = accWrite
	case ptxexec.Atomic:
		k = accAtomic
	}
	o.rec.add(uintptr(a.Addr), uintptr(a.Size), k, a.Line, a.Instr, a.Block, a.Thread)
	if a.Unwritten {
		o.rec.unwritten(uintptr(a.Addr), uintptr(a.Size), a.Line, a.Instr, a.Block, a.Thread)
	}
}

// sharedSide is one side of an in-kernel shared-memory race, as the PTX
// interpreter reports it (ptxexec.SharedAccess).
type sharedSide struct {
	thread   [3]uint32
	kind     accessKind
	line     int
	instr    string
	file     string
	fileLine int
}

// sharedRace reports a race between two threads of one block of the
// launch on the byte at offset of the block's shared memory: first
// happened before second in the interpreter's order, with no barrier or
// warp collective between them. The PTX interpreter's SharedRaceObserver
// hands its reports here (see raceObserver).
func (rec *raceRecorder) sharedRace(block [3]uint32, offset uint32, first, second sharedSide) {
	if rec == nil {
		return
	}
	side := func(s sharedSide) Access {
		site := &KernelSite{PTXLine: s.line, Instr: s.instr, Block: block, Thread: s.thread}
		if s.file != "" {
			site.Source = fmt.Sprintf("%s:%d", s.file, s.fileLine)
		}
		return Access{Op: rec.what, Kind: s.kind.String(), Stream: rec.op.stream, Item: rec.op.seq, Stack: frames(rec.op.stack), Kernel: site}
	}
	h := Hazard{Kind: SharedMemoryRace, Addr: uintptr(offset), Size: 1, Current: side(second), Previous: side(first)}
	rec.b.race.deliver([]Hazard{h})
}
