package memory

import (
	"fmt"
	"github.com/nocgo/cuda/driver"
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/stream"
)

// CopyToDeviceAsync queues a copy of src into dst on s (cuMemcpyHtoDAsync).
// src must fit (len(src) <= dst.Len(); it fills the first len(src) elements),
// and s must be on dst's device. From pinned
// memory (HostBuffer.Slice) src must not change until s has reached the copy;
// from ordinary Go memory the driver stages src before returning, and it may
// be reused at once (see the package documentation). An empty src queues
// nothing and calls no driver, once dst and s are checked.
func CopyToDeviceAsync[T any](s *stream.Stream, dst *Buffer[T], src []T) error {
	return copyToDeviceAsync("memory.CopyToDeviceAsync", s, dst, src)
}

func copyToDeviceAsync[T any](op string, s *stream.Stream, dst *Buffer[T], src []T) (err error) {
	if err := dst.usable(op, "dst"); err != nil {
		return err
	}
	if len(src) > dst.n {
		return fitError(op, dst.n, len(src))
	}
	ctx := dst.a.ctx
	if len(src) == 0 {
		if err := streamCheck(op, s); err != nil {
			return err
		}
		if s.Context().Device() != ctx.Device() {
			return wrongStream(op, s, dst.String(), ctx.String())
		}
		return nil
	}
	b, err := use(s)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer b.Done(&err)
	if s.Context().Device() != ctx.Device() {
		return wrongStream(op, s, dst.String(), ctx.String())
	}
	if err := dst.hold(op, "dst"); err != nil {
		return err
	}
	defer dst.unhold()
	n := uintptr(len(src)) * dst.elemSize()
	r := apiOf(ctx).MemcpyHtoDAsync(dst.ptr, unsafe.Pointer(unsafe.SliceData(src)), n, s.Handle())
	runtime.KeepAlive(src)
	if r != nil {
		return fmt.Errorf("%s: %d bytes to %s on stream %#x: cuMemcpyHtoDAsync: %w", op, n, dst, s.Handle(), r)
	}
	keep(s, dst.a.hold)
	return nil
}

// CopyToHostAsync queues a copy of src into dst on s (cuMemcpyDtoHAsync).
// src must fit (src.Len() <= len(dst); it fills the first src.Len()
// elements), and s must be on src's device. Whatever dst is (ordinary Go
// memory or a HostBuffer's Slice), it must not be read until s has reached
// the copy (Stream.Synchronize, an event): CUDA may complete a copy into
// pageable memory before returning but does not promise to, and the fake
// driver writes dst only when the stream runs the copy. An empty src queues
// nothing and calls no driver, once src and s are checked.
func CopyToHostAsync[T any](s *stream.Stream, dst []T, src *Buffer[T]) error {
	return copyToHostAsync("memory.CopyToHostAsync", s, dst, src)
}

func copyToHostAsync[T any](op string, s *stream.Stream, dst []T, src *Buffer[T]) (err error) {
	if err := src.usable(op, "src"); err != nil {
		return err
	}
	if src.n > len(dst) {
		return fitError(op, len(dst), src.n)
	}
	ctx := src.a.ctx
	if src.n == 0 {
		if err := streamCheck(op, s); err != nil {
			return err
		}
		if s.Context().Device() != ctx.Device() {
			return wrongStream(op, s, src.String(), ctx.String())
		}
		return nil
	}
	b, err := use(s)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer b.Done(&err)
	if s.Context().Device() != ctx.Device() {
		return wrongStream(op, s, src.String(), ctx.String())
	}
	if err := src.hold(op, "src"); err != nil {
		return err
	}
	defer src.unhold()
	r := apiOf(ctx).MemcpyDtoHAsync(unsafe.Pointer(unsafe.SliceData(dst)), src.ptr, src.bytes(), s.Handle())
	runtime.KeepAlive(dst)
	if r != nil {
		return fmt.Errorf("%s: %d bytes from %s on stream %#x: cuMemcpyDtoHAsync: %w", op, src.bytes(), src, s.Handle(), r)
	}
	keep(s, src.a.hold)
	return nil
}

// CopyDtoDAsync queues a copy of src into dst on s. src must fit (src.Len()
// <= dst.Len(); it fills the first src.Len() elements of dst) and the two
// must not overlap (refused when both are over the same allocation, not
// detected between different buffers: see CopyDtoD). Buffers of the same
// context are
// copied with cuMemcpyDtoDAsync; buffers of different contexts or devices
// with cuMemcpyPeerAsync. s must be on the device of dst or of src. An
// empty src queues nothing and calls no driver, once the buffers and s are
// checked.
func CopyDtoDAsync[T any](s *stream.Stream, dst, src *Buffer[T]) (err error) {
	const op = "memory.CopyDtoDAsync"
	if err := checkDtoD(op, dst, src); err != nil {
		return err
	}
	dctx, sctx := dst.a.ctx, src.a.ctx
	if src.n == 0 {
		if err := streamCheck(op, s); err != nil {
			return err
		}
		if dev := s.Context().Device(); dev != dctx.Device() && dev != sctx.Device() {
			return wrongStream(op, s, dst.String(), dctx.String())
		}
		return nil
	}
	b, err := use(s)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer b.Done(&err)
	if dev := s.Context().Device(); dev != dctx.Device() && dev != sctx.Device() {
		return wrongStream(op, s, dst.String(), dctx.String())
	}
	if err := dst.hold(op, "dst"); err != nil {
		return err
	}
	defer dst.unhold()
	if err := src.hold(op, "src"); err != nil {
		return err
	}
	defer src.unhold()
	n := src.bytes()
	if dctx.Same(sctx) {
		if r := apiOf(dctx).MemcpyDtoDAsync(dst.ptr, src.ptr, n, s.Handle()); r != nil {
			return fmt.Errorf("%s: %d bytes from %s to %s on stream %#x: cuMemcpyDtoDAsync: %w", op, n, src, dst, s.Handle(), r)
		}
		keep(s, dst.a.hold, src.a.hold)
		return nil
	}
	if r := apiOf(dctx).MemcpyPeerAsync(dst.ptr, dctx.Handle(), src.ptr, sctx.Handle(), n, s.Handle()); r != nil {
		return fmt.Errorf("%s: %d bytes from %s of %s to %s of %s on stream %#x: cuMemcpyPeerAsync: %w",
			op, n, src, sctx, dst, dctx, s.Handle(), r)
	}
	keep(s, dst.a.hold, src.a.hold)
	return nil
}

func wrongStream(op string, s *stream.Stream, buf, ctx string) error {
	return fmt.Errorf("%s: stream %#x of %s cannot reach %s of %s on another device: %w", op, s.Handle(), s.Context(), buf, ctx, driver.ErrWrongContext)
}
