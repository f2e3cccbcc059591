package fake

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// The race detector: the fake sees every access to device memory and every
// ordering edge, so it reports what no GPU tool does: two accesses to the
// same bytes from work on different streams (or from the host's
// synchronous work) that nothing orders, at least one a write, the way
// Go's race detector reports unsynchronised goroutines. It also reports
// reads of device memory that nothing ever wrote.
//
// What is checked: copies of every kind (host↔device, device↔device,
// peer, 2D, 3D), memsets, kernels (the exact bytes the PTX interpreter
// touches, and Go bodies' Load and Store), the fake math libraries' reads
// and writes, NCCL collectives (each rank's send and receive buffers) and
// stream-ordered frees (cuMemFreeAsync writes the whole allocation). A
// graph launch counts as one piece of work of its stream: its nodes are
// not checked against each other.
//
// What orders two pieces of work (race_clock.go): stream order; an event
// record and a wait for it; a stream, event or context synchronize
// observed by the host (and a query that found the work complete, a
// synchronous copy or memset, a cuMemFree); the legacy default stream's
// implicit synchronisation with the blocking streams of its context (not
// with non-blocking streams); and what the program declares with
// Fake.DeclareOrder.
//
// Inside an interpreted launch (race_inkernel.go, ptxexec's
// globalrace.go and sharedrace.go): races between the launch's threads
// on shared memory (SharedMemoryRace) and on global memory
// (GlobalMemoryRace), by CUDA's memory model, whatever order the fake ran
// the blocks in: barriers, warp collectives, grid.sync and release/acquire
// (a fence or .release before a write, observed by a read) order threads;
// volatile/.relaxed accesses and atomics never race with each other, .cta
// atomics of two blocks do; an acquire without a fence on the reader's
// side, a CAS loop's first plain read and two writes of the same value are
// not reported, so NVIDIA's idioms (threadFenceReduction, atomicAdd(double)
// by atomicCAS) stay quiet. A read of bytes the launch had not yet written
// (an atomicCAS on a lock word nothing wrote) is an UninitializedRead when
// nothing wrote them before the launch either; a read that races with a
// later write is then both. A kernel that races and then faults reports
// the races found before the fault, and the launch fails with the fault.

// DetectRaces turns the race detector on: each hazard found is kept (see
// Fake.Hazards) and given to report, when report is not nil, at the moment
// it is found, while the work that found it waits. report must not call
// into the fake (calls that would run work return ErrNotPermitted); it is
// called one hazard at a time per piece of work, but pieces of work on
// different goroutines may call it at once. A panic in report is printed
// on stderr and changes nothing else. Detection costs a call stack per piece of work enqueued and a
// record of who last touched each range of device memory: it is off by
// default in fake.New, and on by default in cudatest.Fake and
// cudatest.Driver on the fake.
func DetectRaces(report func(Hazard)) Option {
	return func(c *config) { c.races, c.raceReport = true, report }
}

// IgnoreRaces turns the race detector off, also where an earlier option
// (cudatest's default) turned it on.
func IgnoreRaces() Option {
	return func(c *config) { c.races, c.raceReport = false, nil }
}

// raceState is the detector of one backend; nil when detection is off.
type raceState struct {
	report func(Hazard)

	cur atomic.Pointer[raceOp] // the item running (exec lock held by its runner)

	mu      sync.Mutex // guards everything below, and every alloc's shadow; taken after Backend.mu
	threads map[*stream]*raceThread
	host    vclock
	events  map[*evState]vclock // the clock of each event's latest record
	hazards []Hazard
	seen    map[hazardKey]bool
}

// hazardKey says which pair of accesses a hazard names, so that it is
// reported once.
type hazardKey struct {
	prev, cur *raceOp
	prevWhat  string
	curWhat   string
	alloc     uintptr
}

func newRaceState(c *config) *raceState {
	if !c.races {
		return nil
	}
	return &raceState{
		report:  c.raceReport,
		threads: map[*stream]*raceThread{},
		events:  map[*evState]vclock{},
		seen:    map[hazardKey]bool{},
	}
}

// raceOp is one enqueued item as the detector sees it: its clock, taken at
// enqueue, and what a report says of it.
type raceOp struct {
	seq    uint64 // the item's number (its enqueue order in the backend)
	slot   int    // its stream's slot in the clocks
	epoch  uint64 // vc[slot]
	vc     vclock
	stream string
	stack  []uintptr // where it was enqueued

	// A node of a graph launch: the launch's order of its nodes, and
	// which node (see race_graph.go); nil otherwise.
	graph *graphOrder
	node  int
}

// before reports whether a happens before b (or is b).
func (a *raceOp) before(b *raceOp) bool {
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

// streamName says which stream s is, as a report names it.
func streamName(s *stream) string {
	var ctx string
	if s.ctx != nil {
		ctx = fmt.Sprintf(" of context %#x", s.ctx.h)
	}
	switch s.kind {
	case nullStream:
		return "the legacy default stream (NULL)" + ctx
	case perThreadStream:
		return "the per-thread default stream" + ctx
	}
	if s.flags&backend.StreamNonBlocking != 0 {
		return fmt.Sprintf("stream %#x (non-blocking)", s.h)
	}
	return fmt.Sprintf("stream %#x", s.h)
}

// runRaced runs it with it as the detector's current work.
func (b *fakeBackend) runRaced(it *item) error {
	r := b.race
	if r == nil || it.race == nil {
		return runItem(it)
	}
	prev := r.cur.Swap(it.race)
	defer r.cur.Store(prev)
	return runItem(it)
}

// raceRange records an access of the running item to the n bytes at p.
// The table lock is not held.
func (b *fakeBackend) raceRange(p, n uintptr, kind accessKind, what string) {
	r := b.race
	if r == nil || n == 0 {
		return
	}
	op := r.cur.Load()
	if op == nil {
		return
	}
	b.raceRuns(op, what, []raceRun{{lo: p, hi: p + n, kind: kind}})
}

// raceCopy records a device-to-device copy of the running item: it reads
// src and writes dst, and the bytes of src nothing wrote are, in dst, bytes
// nothing wrote (a later read of them is reported as the read of
// unwritten memory it is). The table lock is not held.
func (b *fakeBackend) raceCopy(dst, src, n uintptr) {
	r := b.race
	if r == nil || n == 0 {
		return
	}
	op := r.cur.Load()
	if op == nil {
		return
	}
	b.mu.RLock()
	sa, da := b.findLocked(src), b.findLocked(dst)
	b.mu.RUnlock()
	var holes [][2]uintptr
	if sa != nil && sa.kind == deviceMem {
		r.mu.Lock()
		holes = r.unwrittenLocked(sa, src, min(src+n, sa.end()))
		r.mu.Unlock()
	}
	b.raceRuns(op, "memcpy DtoD", []raceRun{{lo: src, hi: src + n, kind: accCopyRead}, {lo: dst, hi: dst + n, kind: accWrite}})
	if len(holes) > 0 && da != nil && da.kind == deviceMem {
		r.mu.Lock()
		for _, h := range holes {
			r.markUnwrittenLocked(da, dst+(h[0]-src), dst+(h[1]-src))
		}
		r.mu.Unlock()
	}
}

// raceRuns checks and records the accesses runs of op, then reports what
// they found.
func (b *fakeBackend) raceRuns(op *raceOp, what string, runs []raceRun) {
	r := b.race
	var found []Hazard
	for _, run := range runs {
		b.mu.RLock()
		a := b.findLocked(run.lo)
		b.mu.RUnlock()
		if a == nil || a.kind != deviceMem || run.hi <= run.lo {
			continue
		}
		acc := &raceAccess{op: op, kind: run.kind, what: what, site: run.site}
		r.mu.Lock()
		found = r.applyLocked(a, run.lo, min(run.hi, a.end()), acc, found)
		r.mu.Unlock()
	}
	r.deliver(found)
}

// deliver keeps hs and gives them to the report function.
func (r *raceState) deliver(hs []Hazard) {
	if len(hs) == 0 {
		return
	}
	r.mu.Lock()
	r.hazards = append(r.hazards, hs...)
	r.mu.Unlock()
	if r.report != nil {
		for _, h := range hs {
			r.call(h)
		}
	}
}

// call gives h to the report function on a goroutine of its own, so that
// a panic there (reported on stderr, as a host callback's is) or a
// runtime.Goexit (t.FailNow) ends only that goroutine, never the work
// that found the hazard.
func (r *raceState) call(h Hazard) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				fmt.Fprintf(os.Stderr, "nocgo/cuda/fake: the race detector's report function panicked: %v\n%s", p, debug.Stack())
			}
		}()
		r.report(h)
	}()
	<-done
}

// Hazards returns the hazards the race detector found so far and not yet
// taken (see TakeHazards), in the order found; nil when detection is off
// (see DetectRaces). The slice is the caller's.
func (f *Fake) Hazards() []Hazard {
	r := f.b.race
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Hazard(nil), r.hazards...)
}

// TakeHazards returns what Hazards returns and forgets it, for a test that
// provokes a hazard on purpose: cudatest fails a test only for the
// hazards left at its end (and for those its own report function saw).
func (f *Fake) TakeHazards() []Hazard {
	r := f.b.race
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	hs := r.hazards
	r.hazards = nil
	return hs
}

// DetectsRaces implements backend.RaceDetector: whether DetectRaces is on.
func (b *fakeBackend) DetectsRaces() bool { return b.race != nil }

var _ backend.RaceDetector = (*fakeBackend)(nil)

// TakeRaceReports implements backend.RaceDetector: the hazards found and
// not yet taken, each as Hazard.String writes it, forgotten by the call.
func (b *fakeBackend) TakeRaceReports() []string {
	var out []string
	for _, h := range b.Fake().TakeHazards() {
		out = append(out, h.String())
	}
	return out
}

// HostOrder stands for the host in Fake.DeclareOrder.
const HostOrder = ^uintptr(0)

// DeclareOrder tells the race detector of an ordering it cannot see: the
// work enqueued on the stream after from now on follows the work enqueued
// on the stream before so far, as if an event were recorded on before and
// waited for on after. Either may be HostOrder: before == HostOrder orders
// after's later work after what the host has seen complete; after ==
// HostOrder says that the host has seen before's work complete. Streams
// are CUstream handles (the Handle of a stream.Stream, owned or wrapped;
// 0, 1 and 2 are the calling thread's current context's NULL, legacy and
// per-thread streams).
//
// It is for synchronisation outside the driver's view, such as a foreign
// library's own event between its stream and a wrapped one, or a host
// wait on a flag a kernel sets. It changes only what the detector
// reports, never the order the fake runs work in. The risk is the
// declaration's: one the real program does not honour hides a real race
// on the GPU, silently. It returns an error for an unknown stream, and
// does nothing when detection is off.
func (f *Fake) DeclareOrder(before, after uintptr) error {
	b := f.b
	if b.race == nil {
		return nil
	}
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	resolve := func(h uintptr) (*stream, error) {
		if h == HostOrder {
			return nil, nil
		}
		s, err := b.streamLocked(h, tid)
		if err != nil {
			return nil, fmt.Errorf("fake.DeclareOrder: stream %#x: %w", h, err)
		}
		if s.dead {
			return nil, fmt.Errorf("fake.DeclareOrder: stream %#x: %w", h, driver.ErrInvalidHandle)
		}
		return s, nil
	}
	bs, err := resolve(before)
	if err != nil {
		return err
	}
	as, err := resolve(after)
	if err != nil {
		return err
	}
	b.race.orderLocked(bs, as)
	return nil
}
