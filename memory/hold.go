package memory

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/stream"
)

// Every buffer (and pinned host buffer) holds its context from its making
// until Close (see driver.Context for the lifetime rule); calls made for it
// bind through that hold, so they keep working after the user released the
// *driver.Context, and freeing never touches a dead context.

// holdLink ties a Buffer to the hold of its memory (see core.HoldOf).
type holdLink = core.HoldLink

// queueOf returns the core state of s, or op's error for a nil or zero
// Stream.
func queueOf(op string, s *stream.Stream) (*core.Queue, error) {
	q := core.QueueOf(s)
	if q == nil {
		return nil, fmt.Errorf("%s: nil or zero stream: %w", op, driver.ErrInvalidInput)
	}
	return q, nil
}

// releaseHold lets go of h once the memory it kept is freed; its error (from
// ending a released context) is reported by op about what, which is freed
// all the same.
func releaseHold(h *core.Hold, op, what string) error {
	if r := h.Close(nil); r != nil {
		return fmt.Errorf("%s: %s: freed, but ending its context failed: %w", op, what, r)
	}
	return nil
}

// apiOf returns the backend of ctx, a Context that a live buffer or stream
// holds.
func apiOf(ctx *driver.Context) backend.API { return core.ContextOf(ctx).API }

// use prepares a call that enqueues work on s (see core.Queue.Use).
func use(s *stream.Stream) (core.Binding, error) {
	q := core.QueueOf(s)
	if q == nil {
		return core.Binding{}, fmt.Errorf("nil or zero stream: %w", driver.ErrInvalidInput)
	}
	return q.Use()
}

// queueCheck checks, without a driver call, that a stream can take work: an
// error wrapping driver.ErrClosed after its Close. It is what Queue.Use checks,
// without binding a special stream's context, for calls that have nothing
// to queue.
func queueCheck(q *core.Queue) error { return q.Hold.Check(q.What) }

// streamCheck checks s for op, without a driver call, for a call that has
// nothing to queue (zero elements): a nil or zero stream is an error
// wrapping ErrInvalidValue, a closed one an error wrapping driver.ErrClosed.
func streamCheck(op string, s *stream.Stream) error {
	q := core.QueueOf(s)
	if q == nil {
		return fmt.Errorf("%s: nil or zero stream: %w", op, driver.ErrInvalidInput)
	}
	if err := queueCheck(q); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// hold holds the memory of b (checked by usable) open for one call that
// passes it to the driver: until b.unhold, its Close waits, so the driver
// never gets freed memory. A Close in progress or done makes it fail with
// an error wrapping driver.ErrClosed, as role of op. Every successful hold
// is matched by one unhold.
func (b *Buffer[T]) hold(op, role string) error {
	if err := b.a.hold.Use(b); err != nil {
		return fmt.Errorf("%s: %s: %w", op, role, err)
	}
	return nil
}

// keep retains, for the graph that a capture of s makes, the memory of the
// buffers a call just enqueued on s (see core.Queue.Keep): called after
// the call succeeded, while it still holds them.
func keep(s *stream.Stream, bufs ...*core.Hold) { core.QueueOf(s).Keep(bufs...) }

// unhold ends a call begun by hold.
func (b *Buffer[T]) unhold() { b.a.hold.Unuse() }
