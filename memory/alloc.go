package memory

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/stream"
)

// Alloc allocates device memory for n elements of T in ctx (cuMemAlloc, with
// ctx made current for the call). The caller owns the buffer: Close releases
// the memory. T must be a fixed-size type without pointers (see the package
// documentation); n must not be negative and n elements must fit in an int.
// The memory is not initialised. For n == 0 nothing is allocated: the buffer
// is empty, its Ptr is 0, and it works (and holds ctx) like any other. The
// buffer holds ctx until Close: it keeps working after ctx.Close, which then
// ends the context only when the buffer is freed.
func Alloc[T any](ctx *driver.Context, n int) (*Buffer[T], error) {
	return alloc[T]("memory.Alloc", ctx, n)
}

// alloc is Alloc for op (errors start "op[T]: ").
func alloc[T any](op string, ctx *driver.Context, n int) (*Buffer[T], error) {
	e := elemOf[T]()
	op += "[" + e.name + "]"
	c, err := core.Of(op, ctx)
	if err != nil {
		return nil, err
	}
	size, err := e.sizeOf(op, n)
	if err != nil {
		return nil, err
	}
	h, err := c.Hold()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	var ptr uintptr
	if size == 0 {
		return newBuffer[T](&allocation{ctx: ctx, hold: h, kind: kindAlloc}, 0, 0), nil
	}
	err = h.Do(func(api backend.API) error {
		var r error
		if ptr, r = api.MemAlloc(size); r != nil {
			return fmt.Errorf("n=%d (%d bytes) in %s: cuMemAlloc: %w", n, size, ctx, r)
		}
		return nil
	})
	if err != nil {
		if ptr != 0 { // allocated, but unbinding failed
			err = h.Undo(err, func(api backend.API) error { return api.MemFree(ptr) })
		}
		return nil, h.Drop(fmt.Errorf("%s: %w", op, err))
	}
	return newBuffer[T](&allocation{ctx: ctx, hold: h, kind: kindAlloc, base: ptr, size: size}, ptr, n), nil
}

// AllocAsync allocates device memory for n elements of T in stream order on
// s (cuMemAllocAsync, from the device's default memory pool): the memory may
// be used by work queued on s after this call, or by other streams once they
// wait for s. The buffer belongs to s's context and the caller owns it:
// FreeAsync frees it in stream order on a stream of the caller's choice, and
// Close frees it in stream order on s (see Close). The buffer holds s's context
// until it is freed, so s's *driver.Context must still be open
// here (driver.ErrClosed otherwise), but may be released before Close. For n == 0
// nothing is allocated nor queued: the buffer is empty, its Ptr is 0, and
// freeing it calls no driver.
func AllocAsync[T any](s *stream.Stream, n int) (*Buffer[T], error) {
	e := elemOf[T]()
	op := "memory.AllocAsync[" + e.name + "]"
	q, err := queueOf(op, s)
	if err != nil {
		return nil, err
	}
	size, err := e.sizeOf(op, n)
	if err != nil {
		return nil, err
	}
	// The memory of a Pool of this package made current is counted in it,
	// so that the pool is not destroyed under it (ErrPoolInUse): which pool
	// is asked first, so that a failed question allocates nothing.
	var pool *Pool
	if size > 0 {
		if pool, err = currentOwnedPool(s.Context()); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
	}
	ptr, h, err := allocAsync(s, q, size, op, n)
	if err != nil {
		return nil, err
	}
	a := &allocation{ctx: s.Context(), hold: h, kind: kindAsync, base: ptr, size: size, s: s}
	if ptr != 0 && pool != nil {
		a.pool = pool
		pool.live.Add(1)
	}
	return newBuffer[T](a, ptr, n), nil
}

// allocAsync checks s (Queue.Use, which binds the context of the special
// streams only), takes the hold of the buffer to be on its context, queues
// cuMemAllocAsync (unless size is 0: nothing to allocate) and unbinds; when
// the allocation fails it lets go of the hold, after unbinding.
func allocAsync(s *stream.Stream, q *core.Queue, size uintptr, op string, n int) (uintptr, *core.Hold, error) {
	api := q.Hold.Context().API
	return allocAsyncWith(s, q, size, op, n, "cuMemAllocAsync", func(size uintptr) (uintptr, error) {
		return api.MemAllocAsync(size, s.Handle())
	})
}

// allocAsyncWith is allocAsync with the driver call (named call) made by
// alloc.
func allocAsyncWith(s *stream.Stream, q *core.Queue, size uintptr, op string, n int, call string, alloc func(size uintptr) (uintptr, error)) (uintptr, *core.Hold, error) {
	if size == 0 {
		if err := queueCheck(q); err != nil {
			return 0, nil, fmt.Errorf("%s: %w", op, err)
		}
		h, err := q.Hold.Context().Hold()
		if err != nil {
			return 0, nil, fmt.Errorf("%s: stream %#x: %w", op, s.Handle(), err)
		}
		return 0, h, nil
	}
	b, err := q.Use()
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %w", op, err)
	}
	ctx := s.Context()
	h, err := q.Hold.Context().Hold()
	if err != nil {
		b.Unbind()
		return 0, nil, fmt.Errorf("%s: stream %#x: %w", op, s.Handle(), err)
	}
	ptr, r := alloc(size)
	b.Unbind()
	if r != nil {
		return 0, nil, h.Drop(fmt.Errorf("%s: n=%d (%d bytes) on stream %#x of %s: %s: %w", op, n, size, s.Handle(), ctx, call, r))
	}
	return ptr, h, nil
}
