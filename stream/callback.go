package stream

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/internal/core"
)

// Callback queues fn on the stream (cuLaunchHostFunc): it runs once all work
// queued before it is done, and work queued after it waits for it to
// return. It should return quickly: it holds up the stream.
//
// fn must not call into CUDA: the driver forbids it ("The host function
// must not make any CUDA API calls"), and a call that waits for the stream
// (a Synchronize, a free or copy that synchronizes) would wait for fn
// itself. So every call of this module made from fn that would reach the
// driver, or close an object, or release a context, fails at once with an
// error wrapping driver.ErrNotPermitted, and changes nothing: no
// allocation, copy, launch, synchronisation or Close (Buffer.Close,
// HostBuffer.Close, Stream.Close, ...) from fn; do them after the stream's
// work, from another goroutine. fn runs on a goroutine of its own, wired to
// its OS thread, which is how the library knows (fn must not call
// runtime.UnlockOSThread); goroutines that fn starts are not restricted,
// and fn must not wait for them to make such calls, since those calls may
// wait for fn.
//
// A panic in fn does not crash the program, nor does runtime.Goexit (which
// t.FailNow and testify's require call): it is recovered, and the
// recovered value (for Goexit, an error saying so) and stack are returned
// as a *CallbackPanicError by the
// stream's next Synchronize (on this Stream value; only the first panic
// since the previous Synchronize is kept, later ones are counted). A panic
// in a callback still pending when the Stream is closed is lost.
func (s *Stream) Callback(fn func()) (err error) {
	const op = "stream.Stream.Callback"
	if fn == nil {
		if err := s.check(); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		return fmt.Errorf("%s: %s: nil func: %w", op, s, driver.ErrInvalidInput)
	}
	b, err := s.use()
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer func() {
		if uerr := b.Unbind(); uerr != nil && err == nil {
			err = fmt.Errorf("%s: %s: %w", op, s, uerr)
		}
	}()
	if r := s.api().LaunchHostFunc(s.q.Handle, func() { s.run(fn) }); r != nil {
		return s.errf(op, "cuLaunchHostFunc", r)
	}
	return nil
}

// run calls fn, marked as a host callback (see core.EnterCallback), and
// turns a panic, or a runtime.Goexit (t.FailNow, testify's require), into
// the stream's pending error.
func (s *Stream) run(fn func()) {
	defer core.LeaveCallback(core.EnterCallback())
	returned := false
	defer func() {
		if v := recover(); v != nil {
			s.notePanic(v, debug.Stack())
		} else if !returned {
			s.notePanic(errGoexit, debug.Stack())
		}
	}()
	fn()
	returned = true
}

// errGoexit is the Value of a CallbackPanicError whose callback called
// runtime.Goexit instead of returning.
var errGoexit = errors.New("the callback called runtime.Goexit (t.FailNow, require...) instead of returning")

func (s *Stream) notePanic(v any, stack []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.panicErr != nil {
		s.panicErr.More++
		return
	}
	s.panicErr = &CallbackPanicError{Stream: s.q.Handle, Value: v, Stack: stack}
	s.panicked.Store(true)
}

// takePanic returns the pending panic, if any, and clears it.
func (s *Stream) takePanic() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.panicErr
	s.panicErr = nil
	s.panicked.Store(false)
	if e == nil {
		return nil
	}
	return e
}

// CallbackPanicError reports a host callback (Stream.Callback) that
// panicked. Synchronize returns it; the stream's work itself is not affected.
type CallbackPanicError struct {
	Stream uintptr // the stream's handle
	Value  any     // what the callback panicked with
	Stack  []byte  // the callback's stack at the panic
	More   int     // how many later callbacks also panicked before Synchronize
}

// Error describes the panic; the stack is in the Stack field.
func (e *CallbackPanicError) Error() string {
	if e == nil {
		return "stream.CallbackPanicError: nil"
	}
	msg := fmt.Sprintf("stream.Stream.Synchronize: stream %#x: host callback panicked: %v", e.Stream, e.Value)
	if e.More > 0 {
		msg += fmt.Sprintf(" (and %d more callbacks panicked)", e.More)
	}
	return msg
}

// Unwrap returns the panic value when it is an error, so errors.Is and
// errors.As see through a callback that panicked with an error.
func (e *CallbackPanicError) Unwrap() error {
	if e == nil {
		return nil
	}
	err, _ := e.Value.(error)
	return err
}
