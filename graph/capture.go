package graph

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/stream"
)

// Mode is a stream capture mode (CUstreamCaptureMode): which calls the
// driver refuses while the capture runs.
type Mode uint32

// Capture modes.
const (
	// Global refuses calls that are unsafe during capture (such as
	// synchronous allocation and copies) on every thread while the capture
	// runs. It is the safest, and the driver's default.
	Global Mode = Mode(backend.CaptureModeGlobal)
	// ThreadLocal refuses them on the capturing thread only; the capture
	// must end on the thread that began it.
	ThreadLocal Mode = Mode(backend.CaptureModeThreadLocal)
	// Relaxed refuses nothing beyond what is always invalid.
	Relaxed Mode = Mode(backend.CaptureModeRelaxed)
)

// Status is a stream's capture status (CUstreamCaptureStatus).
type Status uint32

// Capture statuses.
const (
	None        Status = Status(backend.CaptureStatusNone)        // not capturing
	Active      Status = Status(backend.CaptureStatusActive)      // capturing
	Invalidated Status = Status(backend.CaptureStatusInvalidated) // capturing, but failed: EndCapture will fail
)

// String names the status.
func (s Status) String() string {
	switch s {
	case None:
		return "none"
	case Active:
		return "active"
	case Invalidated:
		return "invalidated"
	}
	return fmt.Sprintf("status %d", uint32(s))
}

// use checks s for a capture call and returns its graph API and binding.
func use(s *stream.Stream) (backend.Graphs, core.Binding, error) {
	q := core.QueueOf(s)
	if q == nil {
		return nil, core.Binding{}, fmt.Errorf("nil or zero stream: %w", driver.ErrInvalidInput)
	}
	api, err := graphs(q.Hold.Context().API)
	if err != nil {
		return nil, core.Binding{}, err
	}
	b, err := q.Use()
	if err != nil {
		return nil, core.Binding{}, err
	}
	return api, b, nil
}

// BeginCapture puts s in capture mode (cuStreamBeginCapture): work enqueued
// on it from now on is recorded, not run, until EndCapture. s may be owned
// or wrapped; the NULL and legacy streams cannot capture.
//
// Unless mode is Relaxed, the driver requires EndCapture on the same OS
// thread: lock the goroutine to its thread (runtime.LockOSThread) from
// BeginCapture to EndCapture, or use Capture, which does.
func BeginCapture(s *stream.Stream, mode Mode) (err error) {
	const op = "graph.BeginCapture"
	api, b, err := use(s)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer b.Done(&err)
	if r := api.StreamBeginCapture(s.Handle(), backend.CaptureMode(mode)); r != nil {
		return fmt.Errorf("%s: %s: cuStreamBeginCapture: %w", op, s, r)
	}
	// What the captured work refers to is retained for the graph (see
	// Retention).
	core.QueueOf(s).CaptureBegun()
	return nil
}

// EndCapture ends the capture begun on s (cuStreamEndCapture) and returns
// the graph recorded, owned by the caller. It fails, with no graph, when
// the capture was invalidated (ErrCaptureInvalidated), when a stream that
// joined the capture was not joined back (ErrCaptureUnjoined), or when s
// did not begin it (ErrCaptureUnmatched); the streams leave capture mode
// all the same, except for ErrCaptureUnmatched.
func EndCapture(s *stream.Stream) (_ *Graph, err error) {
	const op = "graph.EndCapture"
	api, b, err := use(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	q := core.QueueOf(s)
	g, r := api.StreamEndCapture(s.Handle())
	if err := b.Unbind(); err != nil && r == nil {
		r = err
	}
	// What the capture retained goes to the graph, or is let go once the
	// capture ended without one; a capture that goes on (EndCapture on a
	// stream that did not begin it, or on another thread) keeps it.
	var kept []*core.Hold
	switch {
	case r == nil:
		kept = q.CaptureEnded()
	case errors.Is(r, backend.ErrStreamCaptureUnmatched), errors.Is(r, backend.ErrStreamCaptureWrongThread):
	default:
		if st, _, sr := api.StreamGetCaptureInfo(s.Handle()); sr == nil && st == backend.CaptureStatusNone {
			kept = q.CaptureEnded()
		}
	}
	if r != nil {
		if g != 0 {
			_ = api.GraphDestroy(g)
		}
		release(kept)
		return nil, fmt.Errorf("%s: %s: cuStreamEndCapture: %w", op, s, r)
	}
	out, err := adopt(s.Context(), api, g)
	if err != nil {
		release(kept)
		return nil, fmt.Errorf("%s: %s: %w", op, s, err)
	}
	out.keep.holds = append(out.keep.holds, kept...)
	return out, nil
}

// release ends the retentions of hs.
func release(hs []*core.Hold) {
	for _, h := range hs {
		h.Release()
	}
}

// endCapture is EndCapture for Capture, which promises that the capture
// ends: when cuStreamEndCapture fails and s is still capturing (a transient
// driver failure), it is called once more, and that call's graph, if any,
// is dropped; the first error is returned.
func endCapture(s *stream.Stream) (*Graph, error) {
	g, err := EndCapture(s)
	if err == nil {
		return g, nil
	}
	if st, _, serr := CaptureStatus(s); serr == nil && st != None {
		if g2, err2 := EndCapture(s); err2 == nil {
			_ = g2.Close()
		}
	}
	return nil, err
}

// Capture records what fn enqueues on s (and on streams that join the
// capture) and returns it as a graph. The goroutine stays on its OS thread
// meanwhile, as the driver requires of Global and ThreadLocal captures. The
// capture always ends: when fn fails, its error is returned (joined with
// EndCapture's, if any) and no graph. When fn panics or calls
// runtime.Goexit (t.FailNow, testify's require), the capture is ended and
// its graph destroyed before the panic goes on to the caller: the stream is
// never left capturing.
func Capture(s *stream.Stream, mode Mode, fn func() error) (*Graph, error) {
	const op = "graph.Capture"
	if fn == nil {
		return nil, fmt.Errorf("%s: nil function: %w", op, driver.ErrInvalidInput)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := BeginCapture(s, mode); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	returned := false
	defer func() {
		if !returned {
			// fn panicked or called runtime.Goexit: end the capture (on
			// this thread, still locked) and drop what it recorded; the
			// panic goes on.
			if g, err := endCapture(s); err == nil {
				_ = g.Close()
			}
		}
	}()
	ferr := fn()
	returned = true
	g, err := endCapture(s)
	if ferr != nil {
		if g != nil {
			err = g.Close()
		}
		return nil, fmt.Errorf("%s: %w", op, errors.Join(ferr, err))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return g, nil
}

// CaptureStatus reports whether s is capturing, and the unique id of its
// capture sequence (0 when none) (cuStreamGetCaptureInfo).
func CaptureStatus(s *stream.Stream) (_ Status, id uint64, err error) {
	const op = "graph.CaptureStatus"
	api, b, err := use(s)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", op, err)
	}
	defer b.Done(&err)
	st, id, r := api.StreamGetCaptureInfo(s.Handle())
	if r != nil {
		return 0, 0, fmt.Errorf("%s: %s: cuStreamGetCaptureInfo: %w", op, s, r)
	}
	return Status(st), id, nil
}
