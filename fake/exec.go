package fake

import (
	"cmp"
	"github.com/nocgo/cuda/fake/internal/race"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// The fake's device is its queue runner: work enqueued on streams runs only
// when something forces it (a synchronize, a synchronous copy: on the
// goroutine that forces it; a query: on a goroutine of its own, see
// startHead), one item at a time under the execution lock, with the table
// lock released so that kernel bodies may take their time.
//
// Host callbacks are the exception: the goroutine that reaches one marks its
// stream busy and lets the execution lock go while the callback runs, so that
// a callback that blocks (on a channel, on work of another stream) stalls only
// the work that depends on it, as on a GPU. Whoever then needs a busy stream
// waits for its callback with the execution lock released; a query never
// waits. Without callbacks that block, the order in which items run is the
// same as with one lock for everything: deterministic.

// maxPending is how many items a stream holds before enqueueing blocks and
// runs the oldest ones, as a GPU's full launch queue does.
const maxPending = 1024

type execLock struct {
	mu        sync.Mutex
	starting  atomic.Bool  // a query's runner is on its way (see startHead)
	owner     atomic.Int64 // the OS thread running items, 0 when none
	callbacks sync.Map     // the OS threads running host callbacks (int64 → struct{})
}

// inside reports whether the calling thread runs items or a host callback.
func (l *execLock) inside() bool {
	// Wired to the thread for the check (see core.InCallback: an unwired
	// goroutine's thread ID may be another goroutine's by the time it is
	// compared).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := core.ThreadID()
	if l.owner.Load() == tid {
		return true
	}
	_, ok := l.callbacks.Load(tid)
	return ok
}

// lockExec takes the execution lock. Called from a host callback or kernel
// body (the thread that holds it) it returns ErrNotPermitted, as the driver
// may for CUDA calls from a host function, instead of deadlocking.
func (b *fakeBackend) lockExec() error {
	if b.exec.inside() {
		return driver.ErrNotPermitted
	}
	b.relockExec()
	return nil
}

// relockExec takes the execution lock again after the caller let it go to
// wait for a host callback.
func (b *fakeBackend) relockExec() {
	b.exec.mu.Lock()
	runtime.LockOSThread()
	b.exec.owner.Store(core.ThreadID())
}

// startHead makes progress on s for a query, which never waits, on the
// driver either: the head item of s (and the work it depends on) runs on a
// goroutine of its own, as a GPU runs work while the host polls, and the
// query returns at once. One such runner is on its way at a time; a query
// that finds one makes no more. Called from a host callback or kernel body
// it returns ErrNotPermitted.
func (b *fakeBackend) startHead(s *stream) error {
	if b.exec.inside() {
		return driver.ErrNotPermitted
	}
	if !b.exec.starting.CompareAndSwap(false, true) {
		return nil
	}
	go func() {
		b.relockExec()
		b.exec.starting.Store(false)
		b.runHead(s, runStart)
		b.unlockExec()
	}()
	return nil
}

func (b *fakeBackend) unlockExec() {
	b.exec.owner.Store(0)
	runtime.UnlockOSThread()
	b.exec.mu.Unlock()
}

// item is one piece of enqueued work.
type item struct {
	seq  uint64
	run  func() error // runs with the execution lock held, table lock free
	host func()       // or a host callback, run with neither lock held

	// A wait on an event: before running, run waitS up to waitSeq.
	waitS   *stream
	waitSeq uint64

	race *race.Op // its clock and call stack, when the race detector is on (race.go)

	fn *function // a kernel launch's function, for a capture of it (loadedOnly)
}

// runMode says how runHead treats host callbacks.
type runMode uint8

const (
	runNoWait runMode = iota // never wait for a callback in flight; run one reached
	runWait                  // wait for callbacks in flight and run those reached
	runStart                 // never wait; start a callback reached and return (queries)
)

// pushLocked appends it to s with the next sequence number.
func (b *fakeBackend) pushLocked(s *stream, it *item) uint64 {
	b.seq++
	it.seq = b.seq
	b.raceEnqueuedLocked(s, it)
	s.q = append(s.q, it)
	return it.seq
}

// backpressure runs the oldest items of s when it holds too many.
func (b *fakeBackend) backpressure(s *stream) {
	b.mu.RLock()
	n := len(s.q)
	b.mu.RUnlock()
	if n <= maxPending {
		return
	}
	if b.lockExec() != nil {
		return
	}
	defer b.unlockExec()
	for {
		b.mu.RLock()
		n := len(s.q)
		b.mu.RUnlock()
		if n <= maxPending/2 {
			return
		}
		b.runHead(s, runWait)
	}
}

// runHead runs the first pending item of s, after the work it depends on:
// for the NULL stream, earlier items of the context's blocking streams (the
// per-thread default stream among them); for a blocking stream and the
// per-thread default stream, earlier NULL-stream items; for an event wait, the
// recording stream up to the record. The execution lock is held; it is let
// go and taken again while a host callback runs or is waited for, so the
// caller must look at the queues afresh after.
//
// With mode runNoWait or runStart, runHead does not wait for a host callback
// in flight on another goroutine (on s or on work s depends on) and returns
// false instead; with runStart (a query), a host callback it reaches is
// started on a goroutine of its own and not waited for.
// Otherwise it returns true: it ran an item, waited for one, or found s
// changed or empty.
func (b *fakeBackend) runHead(s *stream, mode runMode) bool {
	b.mu.RLock()
	if len(s.q) == 0 {
		b.mu.RUnlock()
		return true
	}
	if s.busy {
		b.mu.RUnlock()
		if mode != runWait {
			return false
		}
		b.awaitIdle(s)
		return true
	}
	it := s.q[0]
	var deps []*stream
	switch s.kind {
	case nullStream:
		// The legacy stream waits for every blocking stream of its context,
		// the per-thread default stream among them (CUDA's "Default Stream"
		// semantics; measured on the H200).
		if t := s.ctx.perThread; len(t.q) > 0 && t.q[0].seq < it.seq {
			deps = append(deps, t)
		}
		for _, t := range s.ctx.streams {
			if t.flags&backend.StreamNonBlocking == 0 && len(t.q) > 0 && t.q[0].seq < it.seq {
				deps = append(deps, t)
			}
		}
	case userStream, perThreadStream:
		// A blocking stream, and the per-thread default stream (which is
		// one), wait for the legacy stream's earlier work.
		if s.kind == perThreadStream || s.flags&backend.StreamNonBlocking == 0 {
			if n := s.ctx.null; len(n.q) > 0 && n.q[0].seq < it.seq {
				deps = append(deps, n)
			}
		}
	}
	b.mu.RUnlock()
	for _, t := range deps {
		if !b.runUpTo(t, it.seq-1, mode) {
			return false
		}
	}
	if it.waitS != nil && !b.runUpTo(it.waitS, it.waitSeq, mode) {
		return false
	}
	// Running the dependencies may have let the execution lock go: another
	// goroutine may have run it meanwhile.
	b.mu.Lock()
	if len(s.q) == 0 || s.q[0] != it || s.busy {
		b.mu.Unlock()
		return true
	}
	if it.host != nil {
		s.busy = true
		b.mu.Unlock()
		if mode == runStart {
			// A query never waits, on the driver either: the callback
			// starts on its own thread, and the stream stays busy until
			// it returns.
			go func() {
				b.runCallback(it.host)
				b.finish(s, nil)
			}()
			return true
		}
		b.unlockExec()
		b.runCallback(it.host)
		b.finish(s, nil)
		b.relockExec()
		return true
	}
	b.mu.Unlock()
	err := b.runRaced(it)
	b.noteFault(err)
	b.finish(s, err)
	return true
}

// finish removes the head of s, which has run, and wakes those waiting.
func (b *fakeBackend) finish(s *stream, err error) {
	b.mu.Lock()
	if op := s.q[0].race; op != nil {
		defer b.race.Done(op) // after the unlock below
	}
	s.q[0] = nil
	s.q = s.q[1:]
	if len(s.q) == 0 {
		s.q = nil
	}
	s.busy = false
	if err != nil && s.err == nil {
		s.err = err
	}
	b.gen++
	b.finished.Broadcast()
	b.mu.Unlock()
}

// awaitIdle waits, with the execution lock let go, until no host callback
// of s is in flight.
func (b *fakeBackend) awaitIdle(s *stream) {
	b.unlockExec()
	b.mu.Lock()
	for s.busy {
		b.finished.Wait()
	}
	b.mu.Unlock()
	b.relockExec()
}

// awaitFinish waits, with the execution lock let go, until an item finishes
// after the count gen of finished items.
func (b *fakeBackend) awaitFinish(gen uint64) {
	b.unlockExec()
	b.mu.Lock()
	for b.gen == gen {
		b.finished.Wait()
	}
	b.mu.Unlock()
	b.relockExec()
}

func runItem(it *item) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = driver.ErrLaunchFailed
		}
	}()
	return it.run()
}

// runUpTo runs the items of s numbered seq or lower. Execution lock held.
// With a mode other than runWait it returns false when that needs a host callback in flight
// on another goroutine to finish.
func (b *fakeBackend) runUpTo(s *stream, seq uint64, mode runMode) bool {
	for {
		b.mu.RLock()
		more := len(s.q) > 0 && s.q[0].seq <= seq
		b.mu.RUnlock()
		if !more {
			return true
		}
		if !b.runHead(s, mode) {
			return false
		}
	}
}

// drain runs everything s holds now and returns its sticky error.
func (b *fakeBackend) drain(s *stream) error {
	b.mu.RLock()
	target := b.seq
	b.mu.RUnlock()
	b.runUpTo(s, target, runWait)
	b.mu.RLock()
	defer b.mu.RUnlock()
	return s.err
}

// drainContext runs all work queued in c and returns the first sticky
// stream error there. Execution lock held.
func (b *fakeBackend) drainContext(c *context) error {
	b.mu.RLock()
	target := b.seq
	all := append([]*stream{c.null, c.perThread}, c.streams...)
	b.hostSawStreams(all...)
	b.mu.RUnlock()
	// Oldest item first, across the context's streams; but a stream held
	// up by a host callback in flight does not hold up the others: their
	// callback may be what it waits for.
	for {
		var next []*stream
		b.mu.RLock()
		gen := b.gen
		for _, s := range all {
			if len(s.q) > 0 && s.q[0].seq <= target {
				next = append(next, s)
			}
		}
		slices.SortFunc(next, func(s, t *stream) int { return cmp.Compare(s.q[0].seq, t.q[0].seq) })
		b.mu.RUnlock()
		if len(next) == 0 {
			break
		}
		ran := false
		for _, s := range next {
			if b.runHead(s, runNoWait) {
				ran = true
				break
			}
		}
		if !ran {
			b.awaitFinish(gen)
		}
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	for _, s := range all {
		if s.err != nil {
			return s.err
		}
	}
	return nil
}

// runSync enqueues fn on the current context's NULL stream and runs it (and
// what it depends on) before returning its error: the fake's synchronous
// copy or memset. The table lock is not held.
func (b *fakeBackend) runSync(c *context, fn func() error) error {
	var res error
	it := &item{run: func() error { res = fn(); return res }}
	if err := b.lockExec(); err != nil {
		return err
	}
	defer b.unlockExec()
	b.mu.Lock()
	if c.dead {
		b.mu.Unlock()
		return errDestroyedCurrent
	}
	if err := b.graphRoom.CaptureImplicit(c.h); err != nil {
		b.mu.Unlock()
		return err
	}
	seq := b.pushLocked(c.null, it)
	b.mu.Unlock()
	b.runUpTo(c.null, seq, runWait)
	b.race.HostSawOp(it.race)
	return res
}
