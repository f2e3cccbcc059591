// Package stream holds CUDA streams and events: owned ones created here,
// foreign ones wrapped without taking ownership, and the special default
// streams, all usable from any goroutine.
//
// Ownership is in the type's kind:
//
//   - New and NewEvent create objects this package owns; Close destroys them.
//   - Wrap and WrapEvent take handles created elsewhere (another library, the
//     CUDA runtime API); Close only detaches and the owner keeps the object.
//   - Default, Legacy and PerThread name the special streams 0x0, 0x1 and
//     0x2; they are never destroyed.
//   - OpenIPCEvent opens another process's event; Close releases this
//     process's reference (cuEventDestroy).
//
// A second Close is a no-op that returns nil; any other use after Close
// returns an error wrapping ErrClosed.
//
// Objects that own a driver resource (owned streams and events, IPC-opened
// events) hold their context (driver.Context.Hold) from creation until
// Close, and bind it only through that Hold: they keep working, and Close
// still releases them, after the *driver.Context they were made with was
// released; the context itself ends when the last of them is closed.
// Wrapped events and streams and the special streams own nothing and hold
// nothing: what binds on them returns ErrClosed once the Context is
// released.
//
// Stream-scoped calls on a real stream handle (Query, Synchronize, Wait,
// event Record) bind nothing and allocate nothing; only the special streams,
// which the driver resolves through the calling thread's current context,
// bind their context for each call (see driver.Context.Bind).
package stream

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/nocgo/cuda/driver"
)

// ErrClosed is returned by operations on a stream or event after Close.
var ErrClosed = driver.ErrClosed

// ErrWrongContext is returned when a handle belongs to another context.
var ErrWrongContext = driver.ErrWrongContext

// ErrNullHandle is returned by Wrap and WrapEvent for a zero handle. A zero
// handle is never turned into a new stream.
var ErrNullHandle = errors.New("null handle: use stream.Default, stream.Legacy or stream.PerThread for the special streams")

type kind uint8

const (
	owned kind = iota
	wrapped
	special
)

// Stream is a CUDA stream (CUstream) in a context. An owned stream (New) is
// destroyed by Close; a wrapped stream (Wrap) and the special streams
// (Default, Legacy, PerThread) are never destroyed: Close only detaches.
// An owned stream holds its context (driver.Context.Hold) until Close, so it
// keeps working after the Context's Release; the others hold nothing.
//
// A Stream is safe for concurrent use, except that Close must not run while
// other calls on the same Stream are still in progress (calls made after
// Close return ErrClosed). The zero Stream is not usable: every operation on
// it returns an error.
type Stream struct {
	ctx    *driver.Context
	hold   *driver.Hold // owned streams only: keeps ctx alive until Close
	h      uintptr
	kind   kind
	closed atomic.Bool

	// The first panic of a host callback (see Callback), reported by the
	// next Synchronize.
	panicked atomic.Bool
	mu       sync.Mutex
	panicErr *CallbackPanicError
}

// Handle returns the raw CUstream (0x0, 0x1 or 0x2 for the special streams,
// and 0 for a nil Stream).
func (s *Stream) Handle() uintptr {
	if s == nil {
		return 0
	}
	return s.h
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

// Owned reports whether Close destroys the stream (false for a nil or zero
// Stream).
func (s *Stream) Owned() bool { return s != nil && s.ctx != nil && s.kind == owned }

// Use prepares a call that enqueues work on the stream: it returns an error
// wrapping ErrClosed after Close (or an error for a nil stream), and, for the
// special streams only, binds the stream's context on the calling OS thread,
// since the driver resolves 0x0, 0x1 and 0x2 through the current context.
// For every other stream it costs one atomic load and binds nothing. The
// caller must Unbind the result:
//
//	b, err := s.Use()
//	if err != nil { return err }
//	defer b.Unbind()
//
// Packages that enqueue work on a stream (memory, module) call it first.
func (s *Stream) Use() (driver.Binding, error) {
	if s == nil || s.ctx == nil {
		return driver.Binding{}, errNilStream
	}
	if s.closed.Load() {
		return driver.Binding{}, s.closedErr()
	}
	if s.kind != special {
		return driver.Binding{}, nil
	}
	return s.ctx.Bind()
}

var errNilStream = fmt.Errorf("stream: nil or zero stream: %w", driver.ErrInvalidValue)

func (s *Stream) closedErr() error {
	return fmt.Errorf("stream %#x: %w", s.h, ErrClosed)
}

// Equal reports whether s and o name the same stream: the same handle in
// the same context. Two wraps of one handle are Equal; the special streams
// are Equal only to the same special stream of the same context. Closing a
// Stream does not change what it is Equal to.
func (s *Stream) Equal(o *Stream) bool {
	if s == nil || o == nil || s.ctx == nil || o.ctx == nil {
		return s == o
	}
	return s.h == o.h && s.ctx.Handle() == o.ctx.Handle()
}

// Close ends this Stream. An owned stream is destroyed (cuStreamDestroy;
// work already queued on it still completes) and then lets go of its
// context, which ends here if the Context was released and nothing else
// holds it (that error is returned too). A wrapped or special stream is only
// detached, and stays alive for its owner. Afterwards every operation
// returns an error wrapping ErrClosed; a second Close is a no-op that
// returns nil. If the driver fails to destroy the stream, the error is
// returned and the Stream stays open, so that Close can be retried.
func (s *Stream) Close() error {
	if s == nil || s.ctx == nil {
		return errNilStream
	}
	if !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	if s.kind != owned {
		return nil
	}
	if err := destroy(s.hold, s.ctx.API(), s.h, driver.API.StreamDestroy, s, "cuStreamDestroy"); err != nil {
		s.closed.Store(false)
		return err
	}
	return releaseHold(s.hold, s)
}

// destroy calls the driver's destroy entry point for handle h with the
// object's context bound through its Hold, which keeps the context alive
// until releaseHold. It unbinds before returning, so that the Hold may then
// end the context.
func destroy(hold *driver.Hold, api driver.API, h uintptr, call func(driver.API, uintptr) error, what fmt.Stringer, op string) error {
	b, err := hold.Bind()
	if err != nil {
		return fmt.Errorf("stream: %s: %s: %w", what, op, err)
	}
	r := call(api, h)
	b.Unbind()
	if r != nil {
		return fmt.Errorf("stream: %s: %s: %w", what, op, r)
	}
	return nil
}

// releaseHold lets go of a closed object's context; when that ends the
// context (cuCtxDestroy, cuDevicePrimaryCtxRelease) its error is returned.
func releaseHold(hold *driver.Hold, what fmt.Stringer) error {
	if err := hold.Release(); err != nil {
		return fmt.Errorf("stream: %s: releasing its context: %w", what, err)
	}
	return nil
}

// dropHold releases the Hold taken for an object whose creation failed, and
// adds the error of that, if any, to err.
func dropHold(hold *driver.Hold, err error) error {
	if r := hold.Release(); r != nil {
		return errors.Join(err, r)
	}
	return err
}

// bind makes the stream's context current for a call that needs it: through
// the stream's Hold for an owned stream (which works after the Context's
// Release, until Close), through the Context otherwise.
func (s *Stream) bind() (driver.Binding, error) {
	if s.hold != nil {
		return s.hold.Bind()
	}
	return s.ctx.Bind()
}

// String describes the stream, for errors and logs, such as
// "owned stream 0x1c2d3e0 (primary context 0x5a0 on device 0)".
func (s *Stream) String() string {
	if s == nil || s.ctx == nil {
		return "nil stream"
	}
	var what string
	switch {
	case s.kind == special && s.h == driver.StreamNull:
		what = "NULL stream 0x0"
	case s.kind == special && s.h == driver.StreamLegacy:
		what = "legacy default stream 0x1"
	case s.kind == special && s.h == driver.StreamPerThread:
		what = "per-thread default stream 0x2"
	case s.kind == wrapped:
		what = fmt.Sprintf("wrapped stream %#x", s.h)
	default:
		what = fmt.Sprintf("owned stream %#x", s.h)
	}
	if s.closed.Load() {
		what = "closed " + what
	}
	return what + " (" + s.ctx.String() + ")"
}

// errf wraps a driver error with the stream and the entry point.
func (s *Stream) errf(op string, r error) error {
	return fmt.Errorf("stream: %s: %s: %w", s, op, r)
}
