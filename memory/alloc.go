package memory

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/stream"
)

// Alloc allocates device memory for n elements of T in ctx (cuMemAlloc, with
// ctx made current for the call). The caller owns the buffer: Free releases
// the memory. T must be a fixed-size type without pointers (see the package
// documentation); n must be positive and n elements must fit in an int. The
// memory is not initialised.
func Alloc[T any](ctx *driver.Context, n int) (*Buffer[T], error) {
	e := elemOf[T]()
	op := "memory.Alloc[" + e.name + "]"
	if ctx == nil {
		return nil, fmt.Errorf("%s: nil context: %w", op, driver.ErrInvalidValue)
	}
	size, err := e.sizeOf(op, n)
	if err != nil {
		return nil, err
	}
	b, err := ctx.Bind()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	defer b.Unbind()
	ptr, r := ctx.API().MemAlloc(size)
	if r != nil {
		return nil, fmt.Errorf("%s: n=%d (%d bytes) in %s: cuMemAlloc: %w", op, n, size, ctx, r)
	}
	return newBuffer[T](&allocation{ctx: ctx, kind: kindAlloc, base: ptr, size: size}, ptr, n), nil
}

// AllocAsync allocates device memory for n elements of T in stream order on
// s (cuMemAllocAsync, from the device's default memory pool): the memory may
// be used by work queued on s after this call, or by other streams once they
// wait for s. The buffer belongs to s's context and the caller owns it:
// FreeAsync frees it in stream order on a stream of the caller's choice, and
// Free frees it in stream order on s (see Free).
func AllocAsync[T any](s *stream.Stream, n int) (*Buffer[T], error) {
	e := elemOf[T]()
	op := "memory.AllocAsync[" + e.name + "]"
	if s == nil {
		return nil, fmt.Errorf("%s: nil stream: %w", op, driver.ErrInvalidValue)
	}
	size, err := e.sizeOf(op, n)
	if err != nil {
		return nil, err
	}
	b, err := s.Use()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	defer b.Unbind()
	ctx := s.Context()
	ptr, r := ctx.API().MemAllocAsync(size, s.Handle())
	if r != nil {
		return nil, fmt.Errorf("%s: n=%d (%d bytes) on stream %#x of %s: cuMemAllocAsync: %w", op, n, size, s.Handle(), ctx, r)
	}
	return newBuffer[T](&allocation{ctx: ctx, kind: kindAsync, base: ptr, size: size, s: s}, ptr, n), nil
}
