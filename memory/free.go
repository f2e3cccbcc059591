package memory

import (
	"errors"
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/stream"
)

// Free ends the buffer. What happens to the memory depends on the buffer:
//
//   - Alloc: the memory is freed (cuMemFree). The driver may or may not wait
//     for work still using the memory: make sure none is queued (synchronize)
//     before Free.
//   - AllocAsync: the memory is freed in stream order on its allocation
//     stream (cuMemFreeAsync), after the work already queued there; work on
//     other streams that uses it must be ordered before (events). If that
//     stream has been closed, Free waits for all work of the buffer's context
//     (cuCtxSynchronize) and frees the memory with cuMemFree, which accepts
//     pool memory. Use FreeAsync to free on another stream.
//   - Borrow: nothing is freed; the owner passed to Borrow is let go.
//   - OpenIPC: the mapping is closed (cuIpcCloseMemHandle); the exporting
//     process's memory stays.
//   - a view (Slice, Bytes): only the view is detached.
//
// The buffer's context is made current for the driver call while it is
// open; a buffer that outlives its *driver.Context reference (Release came
// first) is freed without binding, and the driver decides.
//
// After Free the buffer and all views of the memory return errors wrapping
// ErrClosed and Ptr returns 0. A second Free (or Free after FreeAsync) is a
// no-op returning nil. When the driver call fails, the error is returned and
// the buffer stays usable, so Free can be retried.
func (b *Buffer[T]) Free() error {
	if b == nil || b.a == nil {
		return nil
	}
	if b.view {
		b.closed.Store(true)
		return nil
	}
	a := b.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.freed.Load() {
		return nil
	}
	const op = "memory.Buffer.Free"
	api := a.ctx.API()
	switch a.kind {
	case kindBorrowed:
		a.freed.Store(true)
		a.owner = nil
		return nil
	case kindAsync:
		sb, err := a.s.Use()
		if err == nil {
			defer sb.Unbind()
			return a.release(func() error { return api.MemFreeAsync(a.base, a.s.Handle()) }, op, b, "cuMemFreeAsync")
		}
		if !errors.Is(err, driver.ErrClosed) {
			return fmt.Errorf("%s: %s: allocation stream: %w", op, b, err)
		}
		// The allocation stream is gone: wait for the context's work, then
		// free synchronously (cuMemFree accepts pool memory and does not
		// synchronize by itself).
		cb, bound := bindOpen(a.ctx)
		defer cb.Unbind()
		if bound {
			if r := api.CtxSynchronize(); r != nil {
				return fmt.Errorf("%s: %s: allocation stream closed: cuCtxSynchronize: %w", op, b, r)
			}
		}
		return a.release(func() error { return api.MemFree(a.base) }, op, b, "cuMemFree")
	case kindIPC:
		cb, _ := bindOpen(a.ctx)
		defer cb.Unbind()
		return a.release(func() error { return api.IpcCloseMemHandle(a.base) }, op, b, "cuIpcCloseMemHandle")
	}
	cb, _ := bindOpen(a.ctx)
	defer cb.Unbind()
	return a.release(func() error { return api.MemFree(a.base) }, op, b, "cuMemFree")
}

// bindOpen binds ctx for a release call while ctx is open; after its
// Release (or if binding fails) it binds nothing and the call goes to the
// driver as it is, so that memory outliving its context reference can still
// be released. bound reports which.
func bindOpen(ctx *driver.Context) (b driver.Binding, bound bool) {
	if ctx.Closed() {
		return driver.Binding{}, false
	}
	b, err := ctx.Bind()
	if err != nil {
		return driver.Binding{}, false
	}
	return b, true
}

// release marks a freed (so that concurrent users see ErrClosed from now
// on), calls free, and undoes the mark if free fails. a.mu is held.
func (a *allocation) release(free func() error, op string, b fmt.Stringer, call string) error {
	desc := b.String()
	a.freed.Store(true)
	if r := free(); r != nil {
		a.freed.Store(false)
		return fmt.Errorf("%s: %s: %s: %w", op, desc, call, r)
	}
	a.owner = nil
	return nil
}

// FreeAsync frees a stream-ordered buffer (from AllocAsync) in stream order
// on s (cuMemFreeAsync): the memory returns to the pool once the work queued
// on s before this call is done, so work on s may use the buffer up to here,
// and work on other streams must be ordered before it (events). s must be on
// the buffer's device. After FreeAsync the buffer and its views return
// ErrClosed; a second FreeAsync or Free is a no-op returning nil. It is an
// error on buffers that are not stream-ordered (use Free) and on views.
func (b *Buffer[T]) FreeAsync(s *stream.Stream) error {
	if b == nil || b.a == nil {
		return nil
	}
	const op = "memory.Buffer.FreeAsync"
	a := b.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.freed.Load() || b.closed.Load() {
		return nil
	}
	if b.view {
		return fmt.Errorf("%s: %s: a view never frees memory (Free detaches it): %w", op, b, driver.ErrInvalidValue)
	}
	if a.kind != kindAsync {
		return fmt.Errorf("%s: %s: not a stream-ordered allocation (AllocAsync); use Free: %w", op, b, driver.ErrInvalidValue)
	}
	sb, err := s.Use()
	if err != nil {
		return fmt.Errorf("%s: %s: %w", op, b, err)
	}
	defer sb.Unbind()
	if s.Context().Device() != a.ctx.Device() {
		return fmt.Errorf("%s: %s of %s on stream %#x of %s: another device: %w", op, b, a.ctx, s.Handle(), s.Context(), ErrWrongContext)
	}
	return a.release(func() error { return a.ctx.API().MemFreeAsync(a.base, s.Handle()) }, op, b, "cuMemFreeAsync")
}
