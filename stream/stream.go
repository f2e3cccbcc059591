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
//
// A Stream is safe for concurrent use, except that Close must not run while
// other calls on the same Stream are still in progress (calls made after
// Close return ErrClosed). The zero Stream is not usable: every operation on
// it returns an error.
type Stream struct {
	ctx    *driver.Context
	h      uintptr
	kind   kind
	closed atomic.Bool

	// The first panic of a host callback (see Callback), reported by the
	// next Synchronize.
	panicked atomic.Bool
	mu       sync.Mutex
	panicErr *CallbackPanicError
}

// Handle returns the raw CUstream (0x0, 0x1 or 0x2 for the special streams).
func (s *Stream) Handle() uintptr { return s.h }

// Context returns the stream's context.
func (s *Stream) Context() *driver.Context { return s.ctx }

// Owned reports whether Close destroys the stream.
func (s *Stream) Owned() bool { return s.kind == owned }

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
// work already queued on it still completes); a wrapped or special stream is
// only detached, and stays alive for its owner. Afterwards every operation
// returns an error wrapping ErrClosed; a second Close is a no-op that
// returns nil.
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
	return destroy(s.ctx, func(api driver.API) error { return api.StreamDestroy(s.h) }, s, "cuStreamDestroy")
}

// destroy runs a destroy call with ctx bound while ctx is still open (the
// handle's context stays alive as long as it is), and unbound otherwise, so
// that an object outliving its *driver.Context reference is still released.
func destroy(ctx *driver.Context, call func(driver.API) error, what fmt.Stringer, op string) error {
	defer bindIfOpen(ctx).Unbind()
	if r := call(ctx.API()); r != nil {
		return fmt.Errorf("stream: %s: %s: %w", what, op, r)
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

// bindIfOpen binds ctx for a call that names its objects (so works on any
// thread) but is not on a hot path, so as not to depend on whether the
// driver reads the current context there. A released ctx, or a failed bind,
// binds nothing: the call is made anyway and the driver decides.
func bindIfOpen(ctx *driver.Context) driver.Binding {
	if ctx.Closed() {
		return driver.Binding{}
	}
	b, err := ctx.Bind()
	if err != nil {
		return driver.Binding{}
	}
	return b
}
