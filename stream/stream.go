package stream

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// ErrNullHandle is returned by Wrap and WrapEvent for a zero handle. A zero
// handle is never turned into a new stream.
var ErrNullHandle = errors.New("stream: null handle: use stream.Default, stream.Legacy or stream.PerThread for the special streams")

type kind uint8

const (
	owned kind = iota
	wrapped
	special
)

// Stream is a CUDA stream (CUstream) in a context. An owned stream (New) is
// destroyed by Close; a wrapped stream (Wrap) and the special streams
// (Default, Legacy, PerThread) are never destroyed: Close only detaches.
// Every Stream holds its context until Close (see driver.Context).
//
// A Stream is safe for concurrent use, except that Close must not run while
// other calls on the same Stream are still in progress (calls made after
// Close return driver.ErrClosed). The zero Stream is not usable: every operation on
// it returns an error.
type Stream struct {
	queueLink // &q (core.QueueOf), for the packages that enqueue work
	ctx       *driver.Context
	q         core.Queue // its hold on ctx, handle, and whether it is special
	kind      kind
	name      string // Options.Name, WrapOptions.Name

	// The first panic of a host callback (see Callback), reported by the
	// next Synchronize.
	panicked atomic.Bool
	mu       sync.Mutex
	panicErr *CallbackPanicError

	// Internal events of WaitStream (in this stream's context) whose
	// cuEventDestroy failed: destroyed by the next WaitStream on this
	// stream, or by Close, which fails (and can be retried) while one
	// remains.
	orphanMu sync.Mutex
	orphans  []uintptr
}

// keepOrphan keeps ev, an internal event that could not be destroyed, for
// a later try.
func (s *Stream) keepOrphan(ev uintptr) {
	s.orphanMu.Lock()
	defer s.orphanMu.Unlock()
	s.orphans = append(s.orphans, ev)
}

// destroyOrphans destroys the kept internal events, with the stream's
// context current; those the driver still refuses stay kept, and the first
// refusal is returned.
func (s *Stream) destroyOrphans(api backend.API) error {
	s.orphanMu.Lock()
	defer s.orphanMu.Unlock()
	var first error
	kept := s.orphans[:0]
	for _, ev := range s.orphans {
		if r := api.EventDestroy(ev); r != nil {
			kept = append(kept, ev)
			if first == nil {
				first = fmt.Errorf("%s: an internal event of WaitStream: cuEventDestroy: %w", s, r)
			}
		}
	}
	s.orphans = kept
	return first
}

// newStream returns a Stream of kind k for handle h, holding ctx through hold.
func newStream(ctx *driver.Context, hold *core.Hold, h uintptr, k kind) *Stream {
	s := &Stream{ctx: ctx, kind: k}
	s.q = core.Queue{Hold: hold, Handle: h, Special: k == special, What: s}
	s.queueLink = core.LinkQueue(&s.q)
	return s
}

// queueLink names the embedded link unexported: users see nothing of it.
type queueLink = core.QueueLink

// api is the backend of the stream's context.
func (s *Stream) api() backend.API { return s.q.Hold.Context().API }

// Handle returns the raw CUstream (0x0, 0x1 or 0x2 for the special streams,
// and 0 for a nil Stream).
func (s *Stream) Handle() uintptr {
	if s == nil {
		return 0
	}
	return s.q.Handle
}

// Context returns the stream's context (nil for a nil Stream). For an owned
// stream it may already be released (see driver.Context.Closed): the stream
// holds the context in the driver until Close.
func (s *Stream) Context() *driver.Context {
	if s == nil {
		return nil
	}
	return s.ctx
}

// Name returns the name the stream was made or wrapped with (Options.Name,
// WrapOptions.Name); "" for a stream made or wrapped without one, a
// special stream, and a nil Stream.
func (s *Stream) Name() string {
	if s == nil {
		return ""
	}
	return s.name
}

// Owned reports whether Close destroys the stream (false for a nil or zero
// Stream).
func (s *Stream) Owned() bool { return s != nil && s.ctx != nil && s.kind == owned }

// errNilStream is what the checks say of a nil or zero Stream; the
// exported methods prefix it with their name.
var errNilStream = fmt.Errorf("nil or zero stream: %w", driver.ErrInvalidInput)

func (s *Stream) closedErr() error {
	return fmt.Errorf("stream %#x: %w", s.q.Handle, driver.ErrClosed)
}

// Equal reports whether s and o name the same stream: the same handle in
// the same context. Two wraps of one handle are Equal; the special streams
// are Equal only to the same special stream of the same context. Closing a
// Stream does not change what it is Equal to.
func (s *Stream) Equal(o *Stream) bool {
	if s == nil || o == nil || s.ctx == nil || o.ctx == nil {
		return s == o
	}
	return s.q.Handle == o.q.Handle && s.ctx.Same(o.ctx)
}

// Close ends this Stream and lets go of its context (see driver.Context
// for the lifetime rule). An owned stream is destroyed (cuStreamDestroy; work
// already queued on it still completes); a wrapped or special stream is only
// detached, and stays alive for its owner. Afterwards every operation
// returns an error wrapping driver.ErrClosed; a second Close is a no-op that
// returns nil. If the driver fails to destroy the stream, the error is
// returned and the Stream stays open, so that Close can be retried.
func (s *Stream) Close() error {
	const op = "stream.Stream.Close"
	if s == nil || s.ctx == nil {
		return fmt.Errorf("%s: %w", op, errNilStream)
	}
	destroy := func(api backend.API) error {
		if err := s.destroyOrphans(api); err != nil {
			return err
		}
		if s.kind != owned {
			return nil // a wrapped or special stream is only detached
		}
		if r := api.StreamDestroy(s.q.Handle); r != nil {
			return fmt.Errorf("%s: cuStreamDestroy: %w", s, r)
		}
		return nil
	}
	if s.kind != owned {
		s.orphanMu.Lock()
		if len(s.orphans) == 0 {
			destroy = nil // nothing to do in the driver: no binding
		}
		s.orphanMu.Unlock()
	}
	err := s.q.Hold.Close(destroy)
	if s.kind == owned && s.q.Hold.Closed() {
		s.q.CapturesGone() // a capture of the stream ended with it
	}
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// String describes the stream, for errors and logs, such as
// "owned stream 0x1c2d3e0 (primary context 0x5a0 on device 0)".
func (s *Stream) String() string {
	if s == nil || s.ctx == nil {
		return "nil stream"
	}
	var what string
	switch {
	case s.kind == special && s.q.Handle == backend.StreamNull:
		what = "NULL stream 0x0"
	case s.kind == special && s.q.Handle == backend.StreamLegacy:
		what = "legacy default stream 0x1"
	case s.kind == special && s.q.Handle == backend.StreamPerThread:
		what = "per-thread default stream 0x2"
	case s.kind == wrapped && s.name != "":
		what = fmt.Sprintf("wrapped stream %q %#x", s.name, s.q.Handle)
	case s.kind == wrapped:
		what = fmt.Sprintf("wrapped stream %#x", s.q.Handle)
	case s.name != "":
		what = fmt.Sprintf("owned stream %q %#x", s.name, s.q.Handle)
	default:
		what = fmt.Sprintf("owned stream %#x", s.q.Handle)
	}
	if s.q.Hold.Closed() {
		what = "closed " + what
	}
	return what + " (" + s.ctx.String() + ")"
}

// errf is op's error for the driver call on the stream that failed with r.
func (s *Stream) errf(op, call string, r error) error {
	return fmt.Errorf("%s: %s: %s: %w", op, s, call, r)
}

// use prepares a call that enqueues work on the stream (see core.Queue.Use),
// with an error for a nil or zero Stream.
func (s *Stream) use() (core.Binding, error) {
	if s == nil || s.ctx == nil {
		return core.Binding{}, errNilStream
	}
	return s.q.Use()
}
