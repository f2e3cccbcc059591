package race

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
)

// A kernel's accesses reach the detector through a Recorder, one per
// launch: each access extends a run of neighbouring bytes touched by the
// same instruction (for Go bodies, by Load or by Store), so that a launch
// whose threads touch consecutive elements costs one run per array, and
// the runs are checked against the shadow memory when the launch ends
// (writes first: a launch that writes bytes and then reads them reads
// what it wrote). Accesses of one launch are not checked against each
// other here.

// Recorder gathers one launch's accesses. It is safe for the
// interpreter's parallel workers. A nil *Recorder records nothing.
type Recorder struct {
	d    *Detector
	op   *Op
	what string

	mu   sync.Mutex
	runs []Run
}

// openRuns is how many of the latest runs an access may extend.
const openRuns = 8

// maxRuns is how many runs a recorder holds before it merges them.
const maxRuns = 1 << 14

// Recorder returns the recorder of a launch of the kernel name by the
// running work, or nil when detection is off or no work runs.
func (d *Detector) Recorder(name string) *Recorder {
	if d == nil {
		return nil
	}
	op := d.cur.Load()
	if op == nil {
		return nil
	}
	return &Recorder{d: d, op: op, what: "kernel " + name}
}

// Add records the n bytes at addr, touched as kind by the instruction
// instr at PTX line (0 and "" for Go bodies) of the given block and
// thread.
func (rec *Recorder) Add(addr, n uintptr, kind AccessKind, line int, instr string, block, thread [3]uint32) {
	if rec == nil || n == 0 {
		return
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for i := len(rec.runs) - 1; i >= max(0, len(rec.runs)-openRuns); i-- {
		r := &rec.runs[i]
		if r.Kind == kind && r.Site.PTXLine == line && addr <= r.Hi && addr+n >= r.Lo {
			r.Lo, r.Hi = min(r.Lo, addr), max(r.Hi, addr+n)
			return
		}
	}
	site := &KernelSite{PTXLine: line, Instr: instr, Block: block, Thread: thread}
	rec.runs = append(rec.runs, Run{Lo: addr, Hi: addr + n, Kind: kind, Site: site})
	if len(rec.runs) >= maxRuns {
		rec.runs = mergeRuns(rec.runs)
	}
}

// mergeRuns joins the runs of one kind that touch, whatever instruction
// made them (the first one's site stands for the merged run).
func mergeRuns(runs []Run) []Run {
	slices.SortStableFunc(runs, func(a, b Run) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Lo, b.Lo))
	})
	out := runs[:1]
	for _, r := range runs[1:] {
		if p := &out[len(out)-1]; p.Kind == r.Kind && r.Lo <= p.Hi {
			p.Hi = max(p.Hi, r.Hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

// Flush checks the launch's runs: writes and atomics first, then reads.
func (rec *Recorder) Flush() {
	if rec == nil {
		return
	}
	rec.mu.Lock()
	runs := rec.runs
	rec.runs = nil
	rec.mu.Unlock()
	if len(runs) == 0 {
		return
	}
	slices.SortStableFunc(runs, func(a, b Run) int {
		return cmp.Compare(readOrder(a.Kind), readOrder(b.Kind))
	})
	rec.d.Runs(rec.op, rec.what, runs)
}

func readOrder(k AccessKind) int {
	if k == Read || k == CopyRead {
		return 1
	}
	return 0
}

// SharedSide is one side of an in-kernel shared-memory race, as the PTX
// interpreter reports it.
type SharedSide struct {
	Thread   [3]uint32
	Kind     AccessKind
	Line     int    // the PTX line
	Instr    string // the PTX instruction
	File     string // the .cu file, where the PTX has line info; else ""
	FileLine int
}

// SharedRace reports a race between two threads of one block of the
// launch on the byte at offset of the block's shared memory: first
// happened before second in the interpreter's order, with no barrier or
// warp collective between them.
func (rec *Recorder) SharedRace(block [3]uint32, offset uint32, first, second SharedSide) {
	if rec == nil {
		return
	}
	side := func(s SharedSide) Access {
		site := &KernelSite{PTXLine: s.Line, Instr: s.Instr, Block: block, Thread: s.Thread}
		if s.File != "" {
			site.Source = fmt.Sprintf("%s:%d", s.File, s.FileLine)
		}
		return Access{Op: rec.what, Kind: s.Kind.String(), Stream: rec.op.stream, Item: rec.op.seq, Stack: frames(rec.op.stack), Kernel: site}
	}
	h := Hazard{Kind: SharedMemoryRace, Addr: uintptr(offset), Size: 1, Current: side(second), Previous: side(first)}
	rec.d.deliver([]Hazard{h})
}
