package memory

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// CopyToDevice copies src into dst (cuMemcpyHtoD, dst's context current).
// src must fit: len(src) <= dst.Len(); it fills the first len(src) elements
// of dst. It returns once the data is in device memory, so src may be
// reused at once (see the package documentation for how synchronous copies
// are ordered). An empty src copies nothing and calls no driver, once dst
// is checked.
func CopyToDevice[T any](dst *Buffer[T], src []T) error {
	return copyToDevice("memory.CopyToDevice", dst, src)
}

// copyToDevice is CopyToDevice for op.
func copyToDevice[T any](op string, dst *Buffer[T], src []T) (err error) {
	if err := dst.usable(op, "dst"); err != nil {
		return err
	}
	if len(src) > dst.n {
		return fitError(op, dst.n, len(src))
	}
	if len(src) == 0 {
		return nil
	}
	ctx := dst.a.ctx
	b, err := dst.a.hold.Bind()
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer b.Done(&err)
	api := apiOf(ctx)
	n := uintptr(len(src)) * dst.elemSize()
	r := api.MemcpyHtoD(dst.ptr, unsafe.Pointer(unsafe.SliceData(src)), n)
	runtime.KeepAlive(src)
	if r != nil {
		return fmt.Errorf("%s: %d bytes to %s: cuMemcpyHtoD: %w", op, n, dst, core.Unusable(r))
	}
	// cuMemcpyHtoD from pageable memory may return once the data is staged;
	// wait for the legacy stream so the copy is complete on return.
	if r := api.StreamSynchronize(backend.StreamLegacy); r != nil {
		return fmt.Errorf("%s: %s: cuStreamSynchronize(CU_STREAM_LEGACY): %w", op, ctx, core.Unusable(r))
	}
	return nil
}

// CopyToHost copies src into dst (cuMemcpyDtoH, src's context current).
// src must fit: src.Len() <= len(dst); it fills the first src.Len() elements
// of dst. It returns once dst holds the data. An empty src copies nothing
// and calls no driver, once it is checked.
func CopyToHost[T any](dst []T, src *Buffer[T]) error {
	return copyToHost("memory.CopyToHost", dst, src)
}

// copyToHost is CopyToHost for op.
func copyToHost[T any](op string, dst []T, src *Buffer[T]) (err error) {
	if err := src.usable(op, "src"); err != nil {
		return err
	}
	if src.n > len(dst) {
		return fitError(op, len(dst), src.n)
	}
	if src.n == 0 {
		return nil
	}
	ctx := src.a.ctx
	b, err := src.a.hold.Bind()
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer b.Done(&err)
	r := apiOf(ctx).MemcpyDtoH(unsafe.Pointer(unsafe.SliceData(dst)), src.ptr, src.bytes())
	runtime.KeepAlive(dst)
	if r != nil {
		return fmt.Errorf("%s: %d bytes from %s: cuMemcpyDtoH: %w", op, src.bytes(), src, core.Unusable(r))
	}
	return nil
}

// CopyDtoD copies src into dst, device to device. src must fit (src.Len() <=
// dst.Len(); it fills the first src.Len() elements of dst), and the two must
// not overlap: an overlap is refused (ErrInvalidValue) when both are over the
// same allocation (a buffer and its views), and not detected between
// different buffers, such as two Borrows of one memory. Buffers of the same
// context are copied with cuMemcpyDtoD (dst's context current) and the call
// waits for the
// legacy stream; buffers of different contexts or devices with cuMemcpyPeer,
// and the call waits for dst's context (cuCtxSynchronize). It returns once the
// copy is complete. An empty src copies nothing and calls no driver, once
// both buffers are checked.
func CopyDtoD[T any](dst, src *Buffer[T]) (err error) {
	const op = "memory.CopyDtoD"
	if err := checkDtoD(op, dst, src); err != nil {
		return err
	}
	if src.n == 0 {
		return nil
	}
	ctx := dst.a.ctx
	b, err := dst.a.hold.Bind()
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer b.Done(&err)
	if err := src.hold(op, "src"); err != nil {
		return err
	}
	defer src.unhold()
	api := apiOf(ctx)
	n := src.bytes()
	if src.a.ctx.Same(ctx) {
		if r := api.MemcpyDtoD(dst.ptr, src.ptr, n); r != nil {
			return fmt.Errorf("%s: %d bytes from %s to %s: cuMemcpyDtoD: %w", op, n, src, dst, core.Unusable(r))
		}
		if r := api.StreamSynchronize(backend.StreamLegacy); r != nil {
			return fmt.Errorf("%s: %s: cuStreamSynchronize(CU_STREAM_LEGACY): %w", op, ctx, core.Unusable(r))
		}
		return nil
	}
	if r := api.MemcpyPeer(dst.ptr, ctx.Handle(), src.ptr, src.a.ctx.Handle(), n); r != nil {
		return fmt.Errorf("%s: %d bytes from %s of %s to %s of %s: cuMemcpyPeer: %w", op, n, src, src.a.ctx, dst, ctx, core.Unusable(r))
	}
	if r := api.CtxSynchronize(); r != nil {
		return fmt.Errorf("%s: %s: cuCtxSynchronize: %w", op, ctx, core.Unusable(r))
	}
	return nil
}

// checkDtoD checks a device-to-device copy: both buffers live, src fits in
// dst, no overlap of the bytes copied.
func checkDtoD[T any](op string, dst, src *Buffer[T]) error {
	if err := dst.usable(op, "dst"); err != nil {
		return err
	}
	if err := src.usable(op, "src"); err != nil {
		return err
	}
	if src.n > dst.n {
		return fitError(op, dst.n, src.n)
	}
	if dd, sd := dst.a.ctx.Driver(), src.a.ctx.Driver(); dd != sd {
		return fmt.Errorf("%s: dst %s and src %s belong to different *driver.Driver values: %w", op, dst, src, driver.ErrWrongContext)
	}
	if dst.a == src.a {
		n := src.bytes()
		if dst.ptr < src.ptr+n && src.ptr < dst.ptr+n {
			return fmt.Errorf("%s: dst %s and src %s overlap: %w", op, dst, src, driver.ErrInvalidInput)
		}
	}
	return nil
}

func fitError(op string, dst, src int) error {
	return fmt.Errorf("%s: src holds %d elements, dst only %d: the copy does not fit: %w", op, src, dst, driver.ErrInvalidInput)
}
