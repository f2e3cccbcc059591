package memory

import (
	"errors"
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/stream"
)

// Close ends the buffer. What happens to the memory depends on the buffer:
//
//   - Alloc: the memory is freed (cuMemFree). The driver may or may not wait
//     for work still using the memory: make sure none is queued (synchronize)
//     before Close.
//   - AllocAsync: the memory is freed in stream order on its allocation
//     stream (cuMemFreeAsync), after the work already queued there; work on
//     other streams that uses it must be ordered before (events). If that
//     stream has been closed (or is a special stream whose Context was
//     released), Close waits for all work of the buffer's context
//     (cuCtxSynchronize) and frees the memory with cuMemFree, which accepts
//     pool memory. Use FreeAsync to free on another stream.
//   - Borrow: nothing is freed; the owner passed to Borrow is let go.
//   - OpenIPC: the mapping is closed (cuIpcCloseMemHandle); the exporting
//     process's memory stays.
//   - a view (Slice, Bytes): only the view is detached.
//   - an empty Alloc or AllocAsync buffer (n == 0): there is no memory, and
//     no driver call is made.
//
// Close then lets go of the buffer's context (see driver.Context for the
// lifetime rule; an error in ending it is returned too, the buffer being
// freed all the same).
//
// After Close the buffer and all views of the memory return errors wrapping
// driver.ErrClosed and Ptr returns 0. A second Close (or Close after FreeAsync) is a
// no-op returning nil. When the driver call fails, the error is returned and
// the buffer stays usable, holding its context, so Close can be retried.
//
// From inside a host callback (stream.Stream.Callback), which must not call
// into CUDA, Close of a buffer that is not a view fails with an error
// wrapping driver.ErrNotPermitted and changes nothing.
func (b *Buffer[T]) Close() error {
	if b == nil || b.a == nil {
		return fmt.Errorf("memory.Buffer.Close: nil or zero buffer: %w", driver.ErrInvalidInput)
	}
	if b.view {
		b.closed.Store(true)
		return nil
	}
	const op = "memory.Buffer.Close"
	// Before the lock: a Close in progress on another goroutine may hold it
	// while cuMemFree waits for the very callback calling this one.
	if core.InCallback() {
		return fmt.Errorf("%s: %s: %w", op, b, core.ErrInCallback)
	}
	a := b.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.freed.Load() {
		return nil
	}
	desc := b.String()
	if a.kind == kindBorrowed || a.base == 0 {
		// Nothing to free: borrowed memory, or an empty Alloc or AllocAsync
		// buffer, which has no memory.
		a.freed.Store(true)
		a.owner = nil
		return releaseHold(a.hold, op, desc)
	}
	var ferr error
	err := a.hold.Close(func(api backend.API) error { ferr = a.free(api); return ferr })
	return closeWith(a, ferr, err, op, desc)
}

// closeWith finishes freeing a after its hold's Close (core.Hold.Close:
// the calls in progress on the memory ended first, new ones are refused)
// returned err, with free's own error ferr. While the hold is open (nothing
// freed) err is returned and Close can be retried; once it is closed the
// memory is freed, or went with its unusable context, and err says what
// failed: the free, or ending a released context.
func closeWith(a *allocation, ferr, err error, op, desc string) error {
	if err == nil {
		return nil
	}
	if !a.hold.Closed() {
		return fmt.Errorf("%s: %s: %w", op, desc, err)
	}
	if !a.freed.Load() {
		// The hold closed because the context is gone: the memory went
		// with it.
		a.freed.Store(true)
		a.released()
	}
	if ferr == nil {
		return fmt.Errorf("%s: %s: freed, but ending its context failed: %w", op, desc, err)
	}
	return fmt.Errorf("%s: %s: %w", op, desc, err)
}

// free releases the memory of an owned or IPC-mapped allocation with its
// context current. a.mu is held.
func (a *allocation) free(api backend.API) error {
	switch a.kind {
	case kindAsync:
		sb, err := use(a.s)
		if err == nil {
			err = a.release(func() error { return api.MemFreeAsync(a.base, a.s.Handle()) }, "cuMemFreeAsync")
			return unbind(sb, err)
		}
		if !errors.Is(err, driver.ErrClosed) {
			return fmt.Errorf("allocation stream: %w", err)
		}
		// The allocation stream is gone (or, for a special stream, its
		// Context was released): wait for the context's work, then free
		// synchronously (cuMemFree accepts pool memory and does not
		// synchronize by itself).
		if r := api.CtxSynchronize(); r != nil {
			return fmt.Errorf("allocation stream closed: cuCtxSynchronize: %w", r)
		}
		return a.release(func() error { return api.MemFree(a.base) }, "cuMemFree")
	case kindIPC:
		return a.release(func() error { return api.IPCCloseMemHandle(a.base) }, "cuIpcCloseMemHandle")
	}
	return a.release(func() error { return api.MemFree(a.base) }, "cuMemFree")
}

// release marks a freed (so that concurrent users see driver.ErrClosed from now
// on), calls free, and undoes the mark if free fails. a.mu is held.
func (a *allocation) release(free func() error, call string) error {
	a.freed.Store(true)
	if r := free(); r != nil {
		if !core.Gone(r) {
			a.freed.Store(false)
			return fmt.Errorf("%s: %w", call, r)
		}
		// The context is unusable or gone, and the memory with it: the
		// buffer is freed all the same, and the error says why. Its pool
		// may still count the memory (see Pool.Close).
		if a.pool != nil {
			a.pool.lost.Store(true)
		}
		a.released()
		return fmt.Errorf("%s: %w", call, core.ClosedAnyway(r))
	}
	a.released()
	return nil
}

// released lets go of what a freed allocation kept: its owner, and its
// place in its pool's count.
func (a *allocation) released() {
	a.owner = nil
	if a.pool != nil {
		a.pool.live.Add(-1)
		a.pool = nil
	}
}

// unbind undoes a stream's binding (see use) after a call that returned err,
// and returns err, or else the unbinding's error.
func unbind(b core.Binding, err error) error {
	if uerr := b.Unbind(); uerr != nil && err == nil {
		return fmt.Errorf("stream binding: %w", uerr)
	}
	return err
}

// FreeAsync frees a stream-ordered buffer (from AllocAsync) in stream order
// on s (cuMemFreeAsync): the memory returns to the pool once the work queued
// on s before this call is done, so work on s may use the buffer up to here,
// and work on other streams must be ordered before it (events). s must be on
// the buffer's device. After FreeAsync the buffer and its views return
// driver.ErrClosed; a second FreeAsync or Close is a no-op returning nil. It is an
// error on buffers that are not stream-ordered (use Close) and on views. An
// empty buffer has no memory: s is checked, and no driver call is made.
// From inside a host callback it fails with an error wrapping
// driver.ErrNotPermitted, as Close does.
func (b *Buffer[T]) FreeAsync(s *stream.Stream) error {
	const op = "memory.Buffer.FreeAsync"
	if b == nil || b.a == nil {
		return fmt.Errorf("%s: nil or zero buffer: %w", op, driver.ErrInvalidInput)
	}
	if core.InCallback() {
		return fmt.Errorf("%s: %s: %w", op, b, core.ErrInCallback)
	}
	a := b.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.freed.Load() || b.closed.Load() {
		return nil
	}
	if b.view {
		return fmt.Errorf("%s: %s: a view never frees memory (its Close only detaches it): %w", op, b, driver.ErrInvalidInput)
	}
	if a.kind != kindAsync {
		return fmt.Errorf("%s: %s: not a stream-ordered allocation (AllocAsync); use Close: %w", op, b, driver.ErrInvalidInput)
	}
	if s == nil || s.Context() == nil {
		return fmt.Errorf("%s: %s: nil or zero stream: %w", op, b, driver.ErrInvalidInput)
	}
	if s.Context().Device() != a.ctx.Device() {
		return fmt.Errorf("%s: %s of %s on stream %#x of %s: another device: %w", op, b, a.ctx, s.Handle(), s.Context(), driver.ErrWrongContext)
	}
	desc := b.String()
	if a.base == 0 {
		if err := streamCheck(op, s); err != nil {
			return err
		}
		a.freed.Store(true)
		return releaseHold(a.hold, op, desc)
	}
	var ferr error
	err := a.hold.Close(func(api backend.API) error {
		sb, err := use(s)
		if err != nil {
			ferr = err
			return err
		}
		err = a.release(func() error { return api.MemFreeAsync(a.base, s.Handle()) }, "cuMemFreeAsync")
		ferr = unbind(sb, err)
		return ferr
	})
	return closeWith(a, ferr, err, op, desc)
}
