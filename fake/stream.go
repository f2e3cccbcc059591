package fake

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/graphs"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/core"
)

type streamKind int

const (
	userStream      streamKind = iota
	nullStream                 // handles 0 and 1: the context's NULL/legacy stream
	perThreadStream            // handle 2
)

type stream struct {
	h     uintptr // 0 for the special streams
	ctx   *context
	kind  streamKind
	flags uint32
	prio  int
	q     []*item // pending work, oldest first
	err   error   // sticky: the first failed item
	busy  bool    // q[0], a host callback, runs outside the execution lock
	dead  bool
	name  string // backend.StreamNamer's name, "" when none
	label string // what race reports call it, made on first use (race.go)

	site callSite // who made it, for Leaks (leak_site.go)

	capture graphs.Slot // the graph room's: the stream's capture, if any (graph.go)
}

// streamLocked resolves a stream handle; 0, 1 and 2 resolve through the
// calling thread's current context.
func (b *fakeBackend) streamLocked(h uintptr, tid int64) (*stream, error) {
	if h <= backend.StreamPerThread {
		c, err := b.currentLocked(tid)
		if err != nil {
			return nil, err
		}
		if h == backend.StreamPerThread {
			return c.perThread, nil
		}
		return c.null, nil
	}
	s := b.streams[h]
	if s == nil {
		return nil, b.goneLocked(h)
	}
	return s, nil
}

// tidFor returns the caller's thread id when h needs it (a special stream).
func tidFor(h uintptr) int64 {
	if h <= backend.StreamPerThread {
		return core.ThreadID()
	}
	return 0
}

func (b *fakeBackend) lookupStream(h uintptr) (*stream, error) {
	tid := tidFor(h)
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.streamLocked(h, tid)
}

// enqueue appends run to stream h (after an optional event wait) and
// returns what validate returned; validate runs under the table lock with
// the resolved stream and may refuse the work, changing nothing.
func (b *fakeBackend) enqueue(h uintptr, it *item, validate func(s *stream) error) error {
	tid := tidFor(h)
	b.mu.Lock()
	s, err := b.streamLocked(h, tid)
	if err == nil && s.kind == nullStream {
		err = b.graphRoom.CaptureImplicit(s.ctx.h)
	}
	if err == nil && validate != nil {
		err = validate(s)
	}
	if err != nil {
		b.mu.Unlock()
		return err
	}
	if b.graphRoom.Capturing(&s.capture) { // it stays so while Backend.mu is held
		_, err := b.graphRoom.CaptureRecord(&s.capture, loadedOnly(it.fn, it.run), it.host)
		b.mu.Unlock()
		return err
	}
	b.pushLocked(s, it)
	b.mu.Unlock()
	b.backpressure(s)
	return nil
}

// StreamCreateWithPriority is cuStreamCreateWithPriority in the current
// context; priorities outside [-5, 0] are clamped as the driver does.
func (b *fakeBackend) StreamCreateWithPriority(flags uint32, priority int) (uintptr, error) {
	if err := b.enter(abi.CuStreamCreateWithPriority); err != nil {
		return 0, err
	}
	if flags&^backend.StreamNonBlocking != 0 {
		return 0, driver.ErrInvalidValue
	}
	priority = min(max(priority, greatestPriority), leastPriority)
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	c, err := b.currentLocked(tid)
	if err != nil {
		return 0, err
	}
	s := &stream{h: newHandle(), ctx: c, flags: flags, prio: priority, site: here()}
	b.streams[s.h] = s
	c.streams = append(c.streams, s)
	return s.h, nil
}

// StreamDestroy is cuStreamDestroy: pending work still completes (the fake
// runs it first). The special streams cannot be destroyed.
func (b *fakeBackend) StreamDestroy(h uintptr) error {
	if err := b.enter(abi.CuStreamDestroy); err != nil {
		return err
	}
	if h <= backend.StreamPerThread {
		return driver.ErrInvalidHandle
	}
	s, err := b.lookupStream(h)
	if err != nil {
		return err
	}
	if err := b.lockExec(); err != nil {
		return err
	}
	defer b.unlockExec()
	b.drain(s)
	b.mu.Lock()
	defer b.mu.Unlock()
	if s.dead || b.streams[h] != s {
		return driver.ErrInvalidHandle
	}
	delete(b.streams, h)
	s.dead = true
	b.graphRoom.CaptureStreamGone(&s.capture)
	c := s.ctx
	for i, t := range c.streams {
		if t == s {
			c.streams = append(c.streams[:i:i], c.streams[i+1:]...)
			break
		}
	}
	return nil
}

// StreamQuery is cuStreamQuery: ErrNotReady while work is pending, and each
// call runs one pending item, so that a polling loop finishes. A failed item
// makes it return that error from then on.
func (b *fakeBackend) StreamQuery(h uintptr) error {
	if err := b.enter(abi.CuStreamQuery); err != nil {
		return err
	}
	s, err := b.lookupStream(h)
	if err != nil {
		return err
	}
	if err := b.graphRoom.CaptureRefuse(&s.capture); err != nil {
		return err
	}
	b.mu.RLock()
	pending, serr := len(s.q) > 0, s.err
	b.mu.RUnlock()
	if !pending {
		b.hostSawStreams(s)
		return serr
	}
	if err := b.startHead(s); err != nil {
		return err
	}
	return driver.ErrNotReady
}

// StreamSynchronize is cuStreamSynchronize: it runs the stream's work and
// returns the stream's sticky error, if any.
func (b *fakeBackend) StreamSynchronize(h uintptr) error {
	if err := b.enter(abi.CuStreamSynchronize); err != nil {
		return err
	}
	s, err := b.lookupStream(h)
	if err != nil {
		return err
	}
	if err := b.graphRoom.CaptureRefuse(&s.capture); err != nil {
		return err
	}
	if s.kind == nullStream {
		// Synchronizing the legacy stream is one of the calls a capture
		// prohibits (see graphs.Room.CaptureUnsafe): on the H200, memory.CopyToDevice
		// (cuMemcpyHtoD, then this) fails inside a global capture of a
		// non-blocking stream, where cuMemcpyHtoD alone succeeds.
		if err := b.graphRoom.CaptureUnsafe(core.ThreadID()); err != nil {
			return err
		}
	}
	if err := b.lockExec(); err != nil {
		return err
	}
	defer b.unlockExec()
	b.hostSawStreams(s)
	return b.drain(s)
}

// StreamWaitEvent is cuStreamWaitEvent: later work on the stream waits for
// the event's latest record (a no-op when never recorded).
func (b *fakeBackend) StreamWaitEvent(h, ev uintptr, flags uint32) error {
	if err := b.enter(abi.CuStreamWaitEvent); err != nil {
		return err
	}
	if flags > 1 {
		return driver.ErrInvalidValue
	}
	it := &item{run: nop}
	return capturedOK(b.enqueue(h, it, func(s *stream) error {
		e := b.events[ev]
		if e == nil {
			return b.goneLocked(ev)
		}
		if handled, err := b.graphRoom.CaptureWait(s.slot(), e.h); handled {
			return errCaptured{err}
		}
		rb, rs, seq, pending := e.st.snapshot()
		if rb == b {
			b.raceWaits(s, e.st)
		}
		switch {
		case !pending:
		case rb == b:
			it.waitS, it.waitSeq = rs, seq
		default: // recorded in another backend (IPC)
			it.run = func() error { runRecord(rb, rs, seq); return nil }
		}
		return nil
	}))
}

func nop() error { return nil }

// StreamGetCtx is cuStreamGetCtx; for the special streams, the current context.
func (b *fakeBackend) StreamGetCtx(h uintptr) (uintptr, error) {
	if err := b.enter(abi.CuStreamGetCtx); err != nil {
		return 0, err
	}
	s, err := b.lookupStream(h)
	if err != nil {
		return 0, err
	}
	return s.ctx.h, nil
}

// StreamGetFlags is cuStreamGetFlags.
func (b *fakeBackend) StreamGetFlags(h uintptr) (uint32, error) {
	if err := b.enter(abi.CuStreamGetFlags); err != nil {
		return 0, err
	}
	s, err := b.lookupStream(h)
	if err != nil {
		return 0, err
	}
	return s.flags, nil
}

// StreamGetPriority is cuStreamGetPriority.
func (b *fakeBackend) StreamGetPriority(h uintptr) (int, error) {
	if err := b.enter(abi.CuStreamGetPriority); err != nil {
		return 0, err
	}
	s, err := b.lookupStream(h)
	if err != nil {
		return 0, err
	}
	return s.prio, nil
}

// LaunchHostFunc is cuLaunchHostFunc: fn runs when the stream reaches it,
// forced by some goroutine's call, on a thread of its own and outside the
// execution lock: while fn blocks, only the work that depends on it waits. A panic in fn is recovered
// and fails the stream with CUDA_ERROR_LAUNCH_FAILED. fn must not call into
// the fake (calls that would run work return ErrNotPermitted).
func (b *fakeBackend) LaunchHostFunc(h uintptr, fn func()) error {
	if err := b.enter(abi.CuLaunchHostFunc); err != nil {
		return err
	}
	if fn == nil {
		return driver.ErrInvalidValue
	}
	return b.enqueue(h, &item{host: fn}, nil)
}

// runCallback runs a host function as the driver does, on a thread of its
// own, with neither the table lock nor the execution lock held: a panic or
// runtime.Goexit in fn ends only that thread's work (a panic is reported on
// stderr, as the real backend's trampoline does), and a CUDA call from fn
// gets ErrNotPermitted (its thread is marked in exec.callbacks).
func (b *fakeBackend) runCallback(fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid := core.ThreadID()
		b.exec.callbacks.Store(tid, struct{}{})
		defer b.exec.callbacks.Delete(tid)
		defer func() {
			if r := recover(); r != nil {
				fmt.Fprintf(os.Stderr, "nocgo/cuda/fake: host callback panicked: %v\n%s", r, debug.Stack())
			}
		}()
		fn()
	}()
	<-done
}
