package stream

import (
	"context"
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/internal/core"
)

// SynchronizeContext is Synchronize with a Go context.Context (not to be
// confused with the CUDA context, driver.Context): it blocks until all work
// queued on the stream is done or ctx is done, whichever comes first. When
// ctx ends first it returns an error wrapping ctx.Err() (context.Canceled or
// context.DeadlineExceeded): the GPU work is not stopped and nothing is
// undone, only the caller stops waiting, and the stream stays usable.
//
// A ctx already done returns at once, before any driver call. A ctx that can
// never be done (context.Background, context.TODO) costs the same as
// Synchronize: it makes the same blocking call. Any other ctx is waited for
// without a goroutine, by polling Query: back to back at first, then
// sleeping with exponential backoff up to 500µs, so a wait that outlasts
// the first few microseconds returns up to 500µs after the work is done (see
// BenchmarkSynchronizeContext).
//
// A panic of a host callback is reported as Synchronize reports it.
func (s *Stream) SynchronizeContext(ctx context.Context) (err error) {
	const op = "stream.Stream.SynchronizeContext"
	if ctx == nil {
		return fmt.Errorf("%s: nil context.Context: %w", op, driver.ErrInvalidInput)
	}
	if err := s.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %s: %w", op, s, err)
	}
	if ctx.Done() == nil {
		return s.synchronize(op)
	}
	err = core.Await(ctx, func() (bool, error) { return s.query(op) }, nil)
	if err != nil {
		if ctx.Err() == err {
			return fmt.Errorf("%s: %s: %w", op, s, err)
		}
		return err
	}
	if s.panicked.Load() {
		return s.takePanic()
	}
	return nil
}

// SynchronizeContext is Synchronize with a Go context.Context: it blocks
// until the event completes or ctx is done, whichever comes first, and in
// the second case returns an error wrapping ctx.Err(); the event and the
// work it waits for are left as they are. It polls Query as
// Stream.SynchronizeContext does (no goroutine, backoff up to 500µs), makes
// no driver call when ctx is already done, and makes the plain blocking call
// when ctx can never be done (context.Background).
func (e *Event) SynchronizeContext(ctx context.Context) error {
	const op = "stream.Event.SynchronizeContext"
	if ctx == nil {
		return fmt.Errorf("%s: nil context.Context: %w", op, driver.ErrInvalidInput)
	}
	if err := e.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %s: %w", op, e, err)
	}
	if ctx.Done() == nil {
		return e.synchronize(op)
	}
	err := core.Await(ctx, func() (bool, error) { return e.query(op) }, nil)
	if err != nil && ctx.Err() == err {
		return fmt.Errorf("%s: %s: %w", op, e, err)
	}
	return err
}
