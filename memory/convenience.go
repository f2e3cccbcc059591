package memory

import (
	"errors"
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/stream"
)

// FromSlice allocates device memory for len(src) elements in ctx and
// copies src into it (Alloc, then CopyToDevice): cudarc's clone_htod. The
// caller owns the buffer. If the copy fails, the memory is freed again and
// the error returned. An empty src gives an empty buffer.
//
// The copy is synchronous and ordered on the legacy default stream: work
// queued on a stream created with stream.NonBlocking is not ordered with
// it (the fake's race detector reports the pair). For data used on a
// stream, use [FromSliceOn].
func FromSlice[T any](ctx *driver.Context, src []T) (*Buffer[T], error) {
	const op = "memory.FromSlice"
	b, err := alloc[T](op, ctx, len(src))
	if err != nil {
		return nil, err
	}
	if err := copyToDevice(op, b, src); err != nil {
		return nil, errors.Join(err, b.Close())
	}
	return b, nil
}

// ToSlice copies src into a new Go slice of src.Len() elements
// (CopyToHost): cudarc's clone_dtoh.
//
// The copy is synchronous and ordered on the legacy default stream: it does
// not wait for work queued on a stream created with stream.NonBlocking
// (such as the kernel that wrote src). For a result computed on a stream,
// use [ToSliceOn].
func ToSlice[T any](src *Buffer[T]) ([]T, error) {
	const op = "memory.ToSlice"
	if err := src.usable(op, "src"); err != nil {
		return nil, err
	}
	dst := make([]T, src.n)
	if err := copyToHost(op, dst, src); err != nil {
		return nil, err
	}
	return dst, nil
}

// AllocZeroed is Alloc with the memory set to zero bytes (cuMemsetD8 on the
// NULL stream, waited for): it returns once the zeros are in place, for
// work on any stream. If the memset fails, the memory is freed again and
// the error returned.
func AllocZeroed[T any](ctx *driver.Context, n int) (*Buffer[T], error) {
	const op = "memory.AllocZeroed"
	b, err := alloc[T](op, ctx, n)
	if err != nil || b.a.size == 0 {
		return b, err
	}
	err = b.a.hold.Do(func(api backend.API) error {
		if r := api.MemsetD8(b.ptr, 0, b.a.size); r != nil {
			return fmt.Errorf("%s: cuMemsetD8: %w", b, core.Unusable(r))
		}
		if r := api.StreamSynchronize(backend.StreamLegacy); r != nil {
			return fmt.Errorf("%s: cuStreamSynchronize(CU_STREAM_LEGACY): %w", ctx, core.Unusable(r))
		}
		return nil
	})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("%s[%s]: %w", op, elemOf[T]().name, err), b.Close())
	}
	return b, nil
}

// FromSliceOn allocates device memory for len(src) elements in s's context
// and queues the copy of src into it on s (Alloc, then CopyToDeviceAsync):
// cudarc's memcpy_stod. Work queued on s after it sees the data; src may be
// reused at once (the driver stages ordinary Go memory before returning).
// The caller owns the buffer. If the copy fails, the memory is freed again
// and the error returned. An empty src gives an empty buffer.
func FromSliceOn[T any](s *stream.Stream, src []T) (*Buffer[T], error) {
	const op = "memory.FromSliceOn"
	if err := streamCheck(op, s); err != nil {
		return nil, err
	}
	b, err := alloc[T](op, s.Context(), len(src))
	if err != nil {
		return nil, err
	}
	if err := copyToDeviceAsync(op, s, b, src); err != nil {
		return nil, errors.Join(err, b.Close())
	}
	return b, nil
}

// ToSliceOn queues the copy of src into a new Go slice of src.Len()
// elements on s and waits for s to reach it (CopyToHostAsync, then
// Stream.Synchronize): cudarc's memcpy_dtov. It returns once everything
// queued on s before it, the kernels that wrote src included, is done.
func ToSliceOn[T any](s *stream.Stream, src *Buffer[T]) ([]T, error) {
	const op = "memory.ToSliceOn"
	if err := src.usable(op, "src"); err != nil {
		return nil, err
	}
	dst := make([]T, src.n)
	if err := copyToHostAsync(op, s, dst, src); err != nil {
		return nil, err
	}
	if err := s.Synchronize(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return dst, nil
}
