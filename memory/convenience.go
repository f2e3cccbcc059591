package memory

import (
	"errors"
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// FromSlice allocates device memory for len(src) elements in ctx and
// copies src into it (Alloc, then CopyToDevice): cudarc's clone_htod. The
// caller owns the buffer. If the copy fails, the memory is freed again and
// the error returned. An empty src gives an empty buffer.
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
