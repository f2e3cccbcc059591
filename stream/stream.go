// Package stream holds CUDA streams and events: owned ones created here,
// foreign ones wrapped without taking ownership, and the special default
// streams, all usable from any goroutine.
package stream

import (
	"errors"
	"fmt"
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
type Stream struct {
	ctx    *driver.Context
	h      uintptr
	kind   kind
	closed atomic.Bool
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
	if s == nil {
		return driver.Binding{}, fmt.Errorf("stream: nil stream: %w", driver.ErrInvalidValue)
	}
	if s.closed.Load() {
		return driver.Binding{}, fmt.Errorf("stream %#x: %w", s.h, ErrClosed)
	}
	if s.kind != special {
		return driver.Binding{}, nil
	}
	return s.ctx.Bind()
}
