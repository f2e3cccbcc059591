package fake

import (
	"fmt"
	"runtime"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/race"
	"github.com/nocgo/cuda/internal/core"
)

// The race detector lives in fake/internal/race, which owns its state and
// its lock; this file is the fake's side of it: the options, the public
// names, and the view of the core it is given (raceCore). The detector's
// lock is a leaf: the core calls the detector holding its own locks or
// not, and the detector calls the core (raceCore) only with its own lock
// released.

// DetectRaces turns the race detector on: each hazard found is kept (see
// Fake.Hazards) and given to report, when report is not nil, at the moment
// it is found, while the work that found it waits (a read of unwritten
// bytes that earlier enqueued, unordered work may yet explain waits for
// that work: it is then that race's symptom, see Hazard.Unwritten). A call into the fake
// from report that would wait for work (a synchronize, a synchronous copy,
// a query) returns ErrNotPermitted, as from a host callback; it is called
// one hazard at a time per piece of work, but pieces of work on different
// goroutines may call it at once. A panic in report is printed on stderr
// and changes nothing else. Detection costs a call stack per piece of work
// enqueued and a record of who last touched each range of device memory:
// it is off by default in fake.New, and on by default in cudatest.Fake and
// cudatest.Driver on the fake. The package documentation says what it
// checks.
func DetectRaces(report func(Hazard)) Option {
	return func(c *config) { c.races, c.raceReport = true, report }
}

// IgnoreRaces turns the race detector off, also where an earlier option
// (cudatest's default) turned it on.
func IgnoreRaces() Option {
	return func(c *config) { c.races, c.raceReport = false, nil }
}

// Hazard is one report of the race detector: the bytes, and the two
// accesses (Current, the one that found the hazard, and Previous, the
// earlier one it is not ordered with; Previous is zero for an
// UninitializedRead). String writes it as Go's race detector writes a data
// race.
type Hazard = race.Hazard

// HazardKind says what the race detector found: Race, UninitializedRead,
// SharedMemoryRace or GlobalMemoryRace.
type HazardKind = race.HazardKind

// The kinds of hazard.
const (
	// Race: two accesses to the same device bytes, at least one a write
	// (or a free), that nothing orders (see DetectRaces).
	Race = race.Race
	// UninitializedRead: a kernel, or a copy to the host, read device
	// bytes that nothing wrote since they were allocated (the fake fills
	// them with 0xA5; a GPU leaves whatever was there).
	UninitializedRead = race.UninitializedRead
	// SharedMemoryRace: two threads of one block touched the same shared
	// memory bytes, at least one writing, with no barrier between them.
	SharedMemoryRace = race.SharedMemoryRace
	// GlobalMemoryRace: two threads of one launch touched the same
	// device bytes, at least one writing, not both atomic, with nothing
	// ordering them by CUDA's memory model (reported by the PTX
	// interpreter).
	GlobalMemoryRace = race.GlobalMemoryRace
)

// Access is one side of a Hazard: a piece of work enqueued on a stream, and
// what it did to the bytes.
type Access = race.Access

// KernelSite is where in a kernel an access was made: for an interpreted
// kernel, the PTX line and instruction; the block and thread.
type KernelSite = race.KernelSite

// newRaceDetector returns b's detector, nil when c turns detection off.
func newRaceDetector(b *fakeBackend, c *config) *race.Detector {
	if !c.races {
		return nil
	}
	return race.New(raceCore{b}, c.raceReport)
}

// raceCore is the core as the race detector sees it (race.Core).
type raceCore struct{ b *fakeBackend }

var _ race.Core = raceCore{}

// Find returns the allocation holding p, taking the table lock: device
// memory, page-locked host memory (cuMemHostAlloc, cuMemHostRegister),
// which copies and kernels reach while they run, and IPC mappings. The
// bytes of the last two, and of managed memory, start written: the host
// and the exporting process write them unseen.
func (c raceCore) Find(p uintptr) (race.Memory, bool) {
	c.b.mu.RLock()
	defer c.b.mu.RUnlock()
	a := c.b.findLocked(p)
	if a == nil {
		return race.Memory{}, false
	}
	return race.Memory{Base: a.base, Size: a.size, Written: a.managed || a.kind != deviceMem, Shadow: &a.race}, true
}

// Report runs fn with the calling goroutine's thread marked as a host
// callback's is, so that a call into the fake from fn that would wait for
// work returns ErrNotPermitted (see lockExec).
func (c raceCore) Report(fn func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := core.ThreadID()
	c.b.exec.callbacks.Store(tid, struct{}{})
	defer c.b.exec.callbacks.Delete(tid)
	fn()
}

// raceStreamLocked is s as the detector is told of it: its name, and the
// streams whose earlier work its next work implicitly follows (the legacy
// default stream's synchronisation with the blocking streams of its
// context; not with non-blocking streams). Table lock held.
func raceStreamLocked(s *stream) race.Stream {
	if s.label == "" {
		s.label = streamName(s)
	}
	rs := race.Stream{Key: s, Name: s.label}
	c := s.ctx
	if c == nil {
		return rs
	}
	switch s.kind {
	case nullStream:
		if c.perThread != nil {
			rs.Follows = append(rs.Follows, c.perThread)
		}
		for _, t := range c.streams {
			if t.flags&backend.StreamNonBlocking == 0 {
				rs.Follows = append(rs.Follows, t)
			}
		}
	case userStream, perThreadStream:
		if (s.kind == perThreadStream || s.flags&backend.StreamNonBlocking == 0) && c.null != nil {
			rs.Follows = append(rs.Follows, c.null)
		}
	}
	return rs
}

// streamName says which stream s is, as a report names it: by its name
// where it has one (backend.StreamNamer), else by its handle.
func streamName(s *stream) string {
	if s.name != "" {
		nb := ""
		if s.flags&backend.StreamNonBlocking != 0 {
			nb = ", non-blocking"
		}
		return fmt.Sprintf("stream %q (%#x%s)", s.name, s.h, nb)
	}
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

// NameStream implements backend.StreamNamer: the race detector's reports
// call the stream h by name from now on. Only created streams are named
// (ErrInvalidHandle for 0, 1, 2 and unknown or destroyed streams).
func (b *fakeBackend) NameStream(h uintptr, name string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.streams[h]
	if h <= backend.StreamPerThread || s == nil || s.dead {
		return driver.ErrInvalidHandle
	}
	s.name, s.label = name, ""
	return nil
}

var _ backend.StreamNamer = (*fakeBackend)(nil)

// raceEnqueuedLocked gives it its detector record as it is pushed onto s.
// Table lock held.
func (b *fakeBackend) raceEnqueuedLocked(s *stream, it *item) {
	if b.race != nil {
		it.race = b.race.Enqueued(raceStreamLocked(s), it.seq)
	}
}

// raceRecordedLocked notes a record of st enqueued on s. Table lock held.
func (b *fakeBackend) raceRecordedLocked(st *evState, s *stream) {
	if b.race != nil {
		b.race.Recorded(st, raceStreamLocked(s))
	}
}

// raceWaits orders the work enqueued on s from now on after the latest
// record of st.
func (b *fakeBackend) raceWaits(s *stream, st *evState) {
	if b.race != nil {
		b.race.Waits(s, st)
	}
}

// hostSawStreams orders what the host does next after the work enqueued
// so far on each of the (non-nil) streams.
func (b *fakeBackend) hostSawStreams(ss ...*stream) {
	if b.race == nil {
		return
	}
	keys := make([]any, 0, len(ss))
	for _, s := range ss {
		if s != nil {
			keys = append(keys, s)
		}
	}
	b.race.HostSawStreams(keys...)
}

// hostSawEvent orders what the host does next after the latest record of
// st.
func (b *fakeBackend) hostSawEvent(st *evState) {
	if b.race != nil {
		b.race.HostSawEvent(st)
	}
}

// runRaced runs it with it as the detector's current work.
func (b *fakeBackend) runRaced(it *item) error {
	if b.race == nil || it.race == nil {
		return runItem(it)
	}
	return b.race.Run(it.race, func() error { return runItem(it) })
}

// Hazards returns the hazards the race detector found so far and not yet
// taken (see TakeHazards), in the order found; nil when detection is off
// (see DetectRaces) and for a nil *Fake. The slice is the caller's.
func (f *Fake) Hazards() []Hazard {
	if f == nil || f.b == nil {
		return nil
	}
	return f.b.race.Hazards()
}

// TakeHazards returns what Hazards returns and forgets it, for a test that
// provokes a hazard on purpose: cudatest fails a test only for the
// hazards left at its end (and for those its own report function saw).
func (f *Fake) TakeHazards() []Hazard {
	if f == nil || f.b == nil {
		return nil
	}
	return f.b.race.TakeHazards()
}

// DetectsRaces implements backend.RaceDetector: whether DetectRaces is on.
func (b *fakeBackend) DetectsRaces() bool { return b.race != nil }

var _ backend.RaceDetector = (*fakeBackend)(nil)

// TakeRaceReports implements backend.RaceDetector: the hazards found and
// not yet taken, each as Hazard.String writes it, forgotten by the call.
func (b *fakeBackend) TakeRaceReports() []string {
	var out []string
	for _, h := range b.race.TakeHazards() {
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
// does nothing when detection is off or f is nil.
func (f *Fake) DeclareOrder(before, after uintptr) error {
	if f == nil || f.b == nil || f.b.race == nil {
		return nil
	}
	b := f.b
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	resolve := func(h uintptr) (*race.Stream, error) {
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
		rs := raceStreamLocked(s)
		return &rs, nil
	}
	bs, err := resolve(before)
	if err != nil {
		return err
	}
	as, err := resolve(after)
	if err != nil {
		return err
	}
	b.race.Order(bs, as)
	return nil
}
