package memory

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// Borrow wraps n elements of T at device address ptr, memory allocated by
// someone else (another library's tensor, a runtime-API cudaMalloc, a pool
// allocation), without copying it. The buffer is not owned: Close never frees
// the memory, it only detaches the buffer and lets go of owner. owner (any
// value, may be nil) is kept reachable until Close, so that whatever keeps the
// foreign memory alive (a tensor object, a finalizer's target) is not
// collected while the buffer is in use; the caller must still keep the
// memory itself alive until Close.
//
// Borrow checks the pointer with the driver before wrapping it, and says
// which check failed:
//
//   - ptr is not 0 and is aligned for T;
//   - the driver knows it as device memory (cuPointerGetAttribute
//     MEMORY_TYPE: device or managed memory; host memory is refused);
//   - it is memory of ctx's device (DEVICE_ORDINAL), and of ctx itself
//     (CONTEXT), or of no context, as the driver reports for memory from a
//     stream-ordered pool; memory of another device or context is an error
//     wrapping driver.ErrWrongContext;
//   - [ptr, ptr+n*size) lies inside one allocation (cuMemGetAddressRange).
//
// n must not be negative. With n == 0 the pointer is checked all the same,
// and the buffer is empty (its Ptr is ptr).
func Borrow[T any](ctx *driver.Context, ptr uintptr, n int, owner any) (*Buffer[T], error) {
	e := elemOf[T]()
	op := fmt.Sprintf("memory.Borrow[%s]: ptr %#x", e.name, ptr)
	if ctx == nil {
		return nil, fmt.Errorf("%s: nil context: %w", op, driver.ErrInvalidInput)
	}
	if e.err != nil {
		return nil, fmt.Errorf("%s: %w", op, e.err)
	}
	if ptr == 0 {
		return nil, fmt.Errorf("%s: a NULL device pointer cannot be borrowed: %w", op, driver.ErrInvalidInput)
	}
	if ptr%e.align != 0 {
		return nil, fmt.Errorf("%s: not aligned to %d bytes as %s needs: %w", op, e.align, e.name, driver.ErrInvalidInput)
	}
	size, err := e.byteSize(n)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if ptr+size < ptr {
		return nil, fmt.Errorf("%s: %d bytes from here overflow the address space: %w", op, size, driver.ErrInvalidInput)
	}
	c, err := core.Of(op, ctx)
	if err != nil {
		return nil, err
	}
	hold, err := c.Hold()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if err := borrowCheck(op, ctx, hold, ptr, size, n); err != nil {
		return nil, hold.Drop(err)
	}
	a := &allocation{ctx: ctx, hold: hold, kind: kindBorrowed, base: ptr, size: size, owner: owner}
	return newBuffer[T](a, ptr, n), nil
}

// borrowCheck checks that [ptr, ptr+size) is device memory of ctx's device
// and context, inside one allocation.
func borrowCheck(op string, ctx *driver.Context, hold *core.Hold, ptr, size uintptr, n int) error {
	api := hold.Context().API
	mt, r := api.PointerGetAttribute(backend.PointerAttrMemoryType, ptr)
	if r != nil {
		return fmt.Errorf("%s: not memory the driver knows: cuPointerGetAttribute(MEMORY_TYPE): %w", op, r)
	}
	switch backend.MemoryType(mt) {
	case backend.MemoryTypeDevice, backend.MemoryTypeUnified:
	case backend.MemoryTypeHost:
		return fmt.Errorf("%s: host memory, not device memory (MEMORY_TYPE %d): %w", op, mt, driver.ErrInvalidInput)
	default:
		return fmt.Errorf("%s: memory type %d, not device memory: %w", op, mt, driver.ErrInvalidInput)
	}
	ord, r := api.PointerGetAttribute(backend.PointerAttrDeviceOrdinal, ptr)
	if r != nil {
		return fmt.Errorf("%s: cuPointerGetAttribute(DEVICE_ORDINAL): %w", op, r)
	}
	if want := ctx.Device().Ordinal(); int(ord) != want {
		return fmt.Errorf("%s: memory of device %d, but %s is on device %d: %w", op, ord, ctx, want, driver.ErrWrongContext)
	}
	owning, r := api.PointerGetAttribute(backend.PointerAttrContext, ptr)
	if r != nil {
		return fmt.Errorf("%s: cuPointerGetAttribute(CONTEXT): %w", op, r)
	}
	if owning != 0 && uintptr(owning) != ctx.Handle() {
		return fmt.Errorf("%s: memory of context %#x, not of %s: %w", op, owning, ctx, driver.ErrWrongContext)
	}
	err := hold.Do(func(api backend.API) error {
		base, asize, r := api.MemGetAddressRange(ptr)
		if r != nil {
			return fmt.Errorf("cuMemGetAddressRange: %w", r)
		}
		if ptr < base || ptr+size > base+asize {
			return fmt.Errorf("%d bytes (n=%d) from here do not fit in its allocation [%#x, %#x) of %d bytes: %w",
				size, n, base, base+asize, asize, driver.ErrInvalidInput)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}
