// Package race is the fake driver's race detector: it sees every access
// that work on the fake's streams makes to device memory (and to
// page-locked host memory as copies reach it) and every
// ordering edge between that work, and reports two accesses to the same
// bytes that nothing orders, at least one a write, the way Go's race
// detector reports unsynchronised goroutines; and reads of device memory
// that nothing wrote.
//
// The detector owns its state (one vector clock per stream and the host,
// the clock of each event's latest record, the shadow of each allocation,
// the hazards found) and its lock. It reaches the fake's core only through
// [Core] (find the allocation holding an address; run the user's report
// function as the core runs a host callback), and only with its own lock
// released; the core calls it through [Detector]'s methods, holding
// its own locks or not, and passes it what it needs (a stream's name and
// the streams its work implicitly follows, as [Stream]). The detector's
// lock is a leaf: nothing else is locked, and no code outside this
// package runs, while it is held. A nil *Detector is detection off: every
// method does nothing.
//
// The core keeps, for the detector, one [Shadow] in each allocation and
// one [*Op] in each piece of enqueued work; both are opaque to it.
package race

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// Core is the fake's core as the detector sees it.
type Core interface {
	// Find returns the device allocation holding p, and false when p is in
	// none (host memory, or nothing): only device memory is checked. It
	// takes the core's own lock, which the detector never holds.
	Find(p uintptr) (Memory, bool)
	// Report runs fn, the user's report function, on the calling
	// goroutine marked as the core marks a host callback's thread: a call
	// into the fake from fn that would wait for work returns
	// ErrNotPermitted instead of waiting for the work that is waiting for
	// fn.
	Report(fn func())
}

// Memory is one device allocation as [Core.Find] gives it.
type Memory struct {
	Base, Size uintptr
	// Written: others write it unseen (managed memory, which the host
	// writes; page-locked host memory; another process's memory mapped
	// through IPC), so its bytes start written.
	Written bool
	// Shadow is the allocation's record of its bytes, kept in the
	// allocation by the core and guarded by the detector's lock.
	Shadow *Shadow
}

func (m Memory) end() uintptr { return m.Base + m.Size }

// Stream is a stream as the core tells the detector of it when work is
// enqueued, an event recorded or an order declared.
type Stream struct {
	// Key is the stream's identity (the core's own stream object).
	Key any
	// Name is what a report calls it ("stream 0x5a0040", `stream "loader"`).
	Name string
	// Follows are the streams whose work enqueued so far the stream's next
	// work implicitly follows (the legacy default stream's synchronisation
	// with the blocking streams of its context).
	Follows []any
}

// Detector is the race detector of one fake backend; nil when detection is
// off.
type Detector struct {
	core   Core
	report func(Hazard)

	cur atomic.Pointer[Op] // the work running (its runner holds the core's execution lock)

	mu      sync.Mutex // guards everything below, and every allocation's Shadow; a leaf lock
	threads map[any]*thread
	host    vclock
	events  map[any]vclock // the clock of each event's latest record
	hazards []Hazard
	seen    map[hazardKey]bool
	unrun   map[*Op]struct{} // work enqueued and not yet done (see Done)
	held    []heldRead       // UninitializedReads that may be a race's symptom
}

// heldRead is an UninitializedRead of work that ran before earlier
// enqueued work it is not ordered with: if that work writes the bytes, the
// read is the race's symptom and is folded into the race's report (see
// Hazard.Unwritten); once all of it is done without, it is delivered.
type heldRead struct {
	h       Hazard
	reader  *Op
	waitFor map[*Op]struct{}
}

// hazardKey says which pair of accesses a hazard names, so that it is
// reported once.
type hazardKey struct {
	prev, cur *Op
	prevWhat  string
	curWhat   string
	alloc     uintptr
}

// New returns a detector over core that gives each hazard it finds to
// report (when not nil) at the moment it is found.
func New(core Core, report func(Hazard)) *Detector {
	return &Detector{
		core:    core,
		report:  report,
		threads: map[any]*thread{},
		events:  map[any]vclock{},
		seen:    map[hazardKey]bool{},
		unrun:   map[*Op]struct{}{},
	}
}

// Op is one piece of enqueued work as the detector sees it: its clock,
// taken at enqueue, and what a report says of it.
type Op struct {
	seq    uint64 // the work's number (its enqueue order in the backend)
	slot   int    // its stream's slot in the clocks
	epoch  uint64 // vc[slot]
	vc     vclock
	stream string
	stack  []uintptr // where it was enqueued

	// A node of a graph launch: the launch's order of its nodes, and
	// which node (see graph.go); nil otherwise.
	graph *GraphOrder
	node  int
}

// before reports whether a happens before b (or is b).
func (a *Op) before(b *Op) bool {
	if a == b {
		return true
	}
	if a.graph != nil && a.graph == b.graph {
		return a.node == b.node || b.graph.precedes(a.node, b.node)
	}
	return a.epoch <= b.vc.at(a.slot)
}

// maxStack is how many frames of the enqueuing call stack a report keeps.
const maxStack = 32

func callers() []uintptr {
	pcs := make([]uintptr, maxStack)
	n := runtime.Callers(3, pcs)
	return pcs[:n:n]
}

// Run runs work as the detector's current work op (nil: run it as no
// work's, unchecked).
func (d *Detector) Run(op *Op, work func() error) error {
	if d == nil || op == nil {
		return work()
	}
	prev := d.cur.Swap(op)
	defer d.cur.Store(prev)
	return work()
}

// Range records an access of the running work, what, to the n bytes at p.
func (d *Detector) Range(p, n uintptr, kind AccessKind, what string) {
	if d == nil || n == 0 {
		return
	}
	op := d.cur.Load()
	if op == nil {
		return
	}
	d.Runs(op, what, []Run{{Lo: p, Hi: p + n, Kind: kind}})
}

// Copy records a device-to-device copy of the running work: it reads src
// and writes dst, and the bytes of src nothing wrote are, in dst, bytes
// nothing wrote (a later read of them is reported as the read of unwritten
// memory it is).
func (d *Detector) Copy(dst, src, n uintptr) {
	if d == nil || n == 0 {
		return
	}
	op := d.cur.Load()
	if op == nil {
		return
	}
	sa, sok := d.core.Find(src)
	da, dok := d.core.Find(dst)
	var holes [][2]uintptr
	if sok {
		d.mu.Lock()
		holes = sa.Shadow.unwritten(sa, src, min(src+n, sa.end()))
		d.mu.Unlock()
	}
	d.Runs(op, "memcpy DtoD", []Run{{Lo: src, Hi: src + n, Kind: CopyRead}, {Lo: dst, Hi: dst + n, Kind: Write}})
	if len(holes) > 0 && dok {
		d.mu.Lock()
		for _, h := range holes {
			da.Shadow.markUnwritten(da, dst+(h[0]-src), dst+(h[1]-src))
		}
		d.mu.Unlock()
	}
}

// Run is a range of bytes one piece of work touched the same way.
type Run struct {
	Lo, Hi uintptr
	Kind   AccessKind
	Site   *KernelSite // where a kernel made it; nil for other work
}

// Runs checks and records the accesses runs of op, named what, then
// reports what they found.
func (d *Detector) Runs(op *Op, what string, runs []Run) {
	if d == nil || op == nil {
		return
	}
	var found []Hazard
	for _, run := range runs {
		m, ok := d.core.Find(run.Lo)
		if !ok || run.Hi <= run.Lo {
			continue
		}
		acc := &access{op: op, kind: run.Kind, what: what, site: run.Site}
		d.mu.Lock()
		found = d.applyLocked(m, run.Lo, min(run.Hi, m.end()), acc, found)
		d.mu.Unlock()
	}
	d.mu.Lock()
	found = d.foldLocked(op, found)
	d.mu.Unlock()
	d.deliver(found)
}

// foldLocked holds the UninitializedReads of op found that earlier
// enqueued work not yet done, and not ordered before op, may explain, and
// folds into each Race found the held read it explains; it returns the
// hazards to deliver now. d.mu held.
func (d *Detector) foldLocked(op *Op, found []Hazard) []Hazard {
	out := found[:0]
	for _, h := range found {
		switch h.Kind {
		case UninitializedRead:
			wait := map[*Op]struct{}{}
			for y := range d.unrun {
				if y != op && y.seq < op.seq && !y.before(op) {
					wait[y] = struct{}{}
				}
			}
			if len(wait) > 0 {
				d.held = append(d.held, heldRead{h: h, reader: op, waitFor: wait})
				continue
			}
		case Race:
			for i := 0; i < len(d.held); i++ {
				r := d.held[i]
				reader := h.Previous
				if reader.Item != r.reader.seq || reader.Kind != Read.String() {
					continue
				}
				if h.Addr < r.h.Addr+r.h.Size && r.h.Addr < h.Addr+h.Size {
					h.Unwritten = true
					d.held = append(d.held[:i], d.held[i+1:]...)
					i--
				}
			}
		}
		out = append(out, h)
	}
	return out
}

// Done says that op's work is done (it ran, or was dropped): the reads it
// may have explained are delivered (see heldRead).
func (d *Detector) Done(op *Op) {
	if d == nil || op == nil {
		return
	}
	d.mu.Lock()
	delete(d.unrun, op)
	var ready []Hazard
	keep := d.held[:0]
	for _, r := range d.held {
		delete(r.waitFor, op)
		if len(r.waitFor) == 0 {
			ready = append(ready, r.h)
			continue
		}
		keep = append(keep, r)
	}
	clear(d.held[len(keep):])
	d.held = keep
	d.mu.Unlock()
	d.deliver(ready)
}

// release delivers every held read (for Hazards and TakeHazards, which
// report all found so far).
func (d *Detector) release() {
	d.mu.Lock()
	var ready []Hazard
	for _, r := range d.held {
		ready = append(ready, r.h)
	}
	d.held = nil
	d.mu.Unlock()
	d.deliver(ready)
}

// deliver keeps hs and gives them to the report function.
func (d *Detector) deliver(hs []Hazard) {
	if len(hs) == 0 {
		return
	}
	d.mu.Lock()
	d.hazards = append(d.hazards, hs...)
	d.mu.Unlock()
	if d.report != nil {
		for _, h := range hs {
			d.call(h)
		}
	}
}

// call gives h to the report function on a goroutine of its own, so that
// a panic there (reported on stderr, as a host callback's is) or a
// runtime.Goexit (t.FailNow) ends only that goroutine, never the work
// that found the hazard.
func (d *Detector) call(h Hazard) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				fmt.Fprintf(os.Stderr, "nocgo/cuda/fake: the race detector's report function panicked: %v\n%s", p, debug.Stack())
			}
		}()
		d.core.Report(func() { d.report(h) })
	}()
	<-done
}

// Hazards returns the hazards found so far and not yet taken, in the order
// found; nil when detection is off. The slice is the caller's.
func (d *Detector) Hazards() []Hazard {
	if d == nil {
		return nil
	}
	d.release()
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]Hazard(nil), d.hazards...)
}

// TakeHazards returns what Hazards returns and forgets it.
func (d *Detector) TakeHazards() []Hazard {
	if d == nil {
		return nil
	}
	d.release()
	d.mu.Lock()
	defer d.mu.Unlock()
	hs := d.hazards
	d.hazards = nil
	return hs
}
