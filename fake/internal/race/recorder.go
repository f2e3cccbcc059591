package race

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
)

// A kernel's accesses reach the detector through a Recorder, one per
// launch: each access extends a run of neighbouring bytes touched by the
// same instruction (for Go bodies, by Load or by Store; the PTX
// interpreter reports a warp's coalesced access as one), so that a launch
// whose threads touch consecutive elements costs one run per array, and
// the runs are checked against the shadow memory when the launch ends
// (writes first: a launch that writes bytes and then reads them reads
// what it wrote; but a read the interpreter saw take bytes the launch had
// not yet written is checked for an uninitialised read before the writes,
// see Unwritten). Races between the accesses of one launch are the
// interpreter's to find (GlobalRace, SharedRace).

// Recorder gathers one launch's accesses. It is safe for the
// interpreter's parallel workers. A nil *Recorder records nothing.
type Recorder struct {
	d    *Detector
	op   *Op
	what string

	mu    sync.Mutex
	runs  []Run
	fresh []Run // reads of bytes the launch had not written (Unwritten)
	// folded: reads that raced with a later write of the launch and found
	// nothing written, reported with the race (Hazard.Unwritten), so not
	// again as UninitializedReads.
	folded []Run
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
	rec.addLocked(addr, n, kind, line, instr, block, thread)
	rec.mu.Unlock()
}

// AddUnwritten is Add and Unwritten of one access under one lock: a read
// or atomic of n bytes at addr that the launch had not written before it.
func (rec *Recorder) AddUnwritten(addr, n uintptr, kind AccessKind, line int, instr string, block, thread [3]uint32) {
	if rec == nil || n == 0 {
		return
	}
	rec.mu.Lock()
	rec.addLocked(addr, n, kind, line, instr, block, thread)
	rec.unwrittenLocked(addr, n, line, instr, block, thread)
	rec.mu.Unlock()
}

// addLocked is Add with rec.mu held.
func (rec *Recorder) addLocked(addr, n uintptr, kind AccessKind, line int, instr string, block, thread [3]uint32) {
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
	runs, fresh := rec.runs, rec.fresh
	rec.runs, rec.fresh = nil, nil
	fresh = slices.DeleteFunc(fresh, func(r Run) bool {
		return slices.ContainsFunc(rec.folded, func(f Run) bool {
			return f.Site.PTXLine == r.Site.PTXLine && f.Lo < r.Hi && r.Lo < f.Hi
		})
	})
	rec.folded = nil
	rec.mu.Unlock()
	if len(fresh) != 0 {
		rec.checkUnwritten(fresh)
	}
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

// Unwritten records a read (or atomic) of bytes the launch had not
// written before it: it read what they held when the launch began, so it
// is checked for an uninitialised read before the launch's writes count
// (Flush).
func (rec *Recorder) Unwritten(addr, n uintptr, line int, instr string, block, thread [3]uint32) {
	if rec == nil || n == 0 {
		return
	}
	rec.mu.Lock()
	rec.unwrittenLocked(addr, n, line, instr, block, thread)
	rec.mu.Unlock()
}

// unwrittenLocked is Unwritten with rec.mu held.
func (rec *Recorder) unwrittenLocked(addr, n uintptr, line int, instr string, block, thread [3]uint32) {
	for i := len(rec.fresh) - 1; i >= max(0, len(rec.fresh)-openRuns); i-- {
		r := &rec.fresh[i]
		if r.Site.PTXLine == line && addr <= r.Hi && addr+n >= r.Lo {
			r.Lo, r.Hi = min(r.Lo, addr), max(r.Hi, addr+n)
			return
		}
	}
	if len(rec.fresh) >= maxRuns {
		return
	}
	site := &KernelSite{PTXLine: line, Instr: instr, Block: block, Thread: thread}
	rec.fresh = append(rec.fresh, Run{Lo: addr, Hi: addr + n, Kind: Read, Site: site})
}

// checkUnwritten reports the recorded reads of bytes that nothing wrote,
// before the launch's own writes are recorded.
func (rec *Recorder) checkUnwritten(fresh []Run) {
	d := rec.d
	var found []Hazard
	for _, run := range fresh {
		m, ok := d.core.Find(run.Lo)
		if !ok {
			continue
		}
		acc := &access{op: rec.op, kind: Read, what: rec.what, site: run.Site}
		d.mu.Lock()
		for _, u := range m.Shadow.unwritten(m, run.Lo, min(run.Hi, m.end())) {
			key := hazardKey{cur: rec.op, curWhat: rec.what, alloc: m.Base}
			if !d.seen[key] {
				d.seen[key] = true
				found = append(found, newHazard(m, u[0], u[1]-u[0], nil, acc))
			}
		}
		d.mu.Unlock()
	}
	d.deliver(found)
}

// GlobalSide is one side of an in-kernel global-memory race, as the PTX
// interpreter reports it.
type GlobalSide struct {
	Block, Thread [3]uint32
	Kind          AccessKind
	Strong        bool   // a volatile or .relaxed access
	Line          int    // the PTX line
	Instr         string // the PTX instruction
	File          string // the .cu file, where the PTX has line info; else ""
	FileLine      int
}

// GlobalRace reports a race between two threads of the launch on the size
// bytes at addr of global memory: first happened before second in the
// interpreter's order, with nothing ordering them by CUDA's memory model.
func (rec *Recorder) GlobalRace(addr, size uintptr, first, second GlobalSide) {
	if rec == nil {
		return
	}
	side := func(a GlobalSide) Access {
		site := &KernelSite{PTXLine: a.Line, Instr: a.Instr, Block: a.Block, Thread: a.Thread}
		if a.File != "" {
			site.Source = fmt.Sprintf("%s:%d", a.File, a.FileLine)
		}
		kind := a.Kind.String()
		if a.Strong {
			kind += " (volatile/relaxed)"
		}
		return Access{Op: rec.what, Kind: kind, Stream: rec.op.stream, Item: rec.op.seq, Stack: frames(rec.op.stack), Kernel: site}
	}
	h := Hazard{Kind: GlobalMemoryRace, Addr: addr, Size: size, Current: side(second), Previous: side(first)}
	if m, ok := rec.d.core.Find(addr); ok {
		h.Alloc, h.AllocSize = m.Base, m.Size
		if first.Kind == Read && second.Kind != Read {
			// The read ran before the write: if it found nothing
			// written, that is this race's symptom, not a second bug.
			rec.d.mu.Lock()
			h.Unwritten = len(m.Shadow.unwritten(m, addr, addr+size)) != 0
			rec.d.mu.Unlock()
			if h.Unwritten {
				rec.mu.Lock()
				rec.folded = append(rec.folded, Run{Lo: addr, Hi: addr + size, Kind: Read, Site: &KernelSite{PTXLine: first.Line}})
				rec.mu.Unlock()
			}
		}
	}
	rec.d.deliver([]Hazard{h})
}
