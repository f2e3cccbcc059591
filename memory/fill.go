package memory

import (
	"fmt"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/stream"
)

// Fill queues on s the setting of every element of b to value
// (cuMemsetD8Async, cuMemsetD16Async or cuMemsetD32Async, by the size of T).
// T must be 1, 2 or 4 bytes long, or 8 bytes long with a value whose two
// 4-byte halves are equal (such as 0, or a [2]float32 of equal halves), which
// is set as twice as many 4-byte words; any other size or value is an error
// that queues nothing. To set a pattern of another width, Fill a Bytes view
// or a view of a smaller type. s is required and must be a stream of b's
// context (unlike copies, a memset does not reach memory of another context
// on the same device: driver.ErrWrongContext). Fill allocates nothing and, on an
// ordinary stream, binds no context. An empty b is set by doing nothing:
// its arguments are checked, and no driver is called.
func Fill[T any](s *stream.Stream, b *Buffer[T], value T) (err error) {
	const op = "memory.Fill"
	if err := b.usable(op, "b"); err != nil {
		return err
	}
	n := uintptr(b.n)
	p := unsafe.Pointer(&value)
	var width uintptr
	var word uint32
	switch size := unsafe.Sizeof(value); size {
	case 1:
		width, word = 1, uint32(*(*uint8)(p))
	case 2:
		width, word = 2, uint32(*(*uint16)(p))
	case 4:
		width, word = 4, *(*uint32)(p)
	case 8:
		lo, hi := *(*uint32)(p), *(*uint32)(unsafe.Add(p, 4))
		if lo != hi {
			return fmt.Errorf("%s: %s: an 8-byte value is set as two 4-byte words and needs equal halves, not %#x and %#x: %w",
				op, b, lo, hi, driver.ErrInvalidInput)
		}
		width, word, n = 4, lo, 2*n
	default:
		return fmt.Errorf("%s: %s: elements of %d bytes: Fill sets elements of 1, 2, 4 (or 8 with equal halves) bytes: %w",
			op, b, size, driver.ErrInvalidInput)
	}
	ctx := b.a.ctx
	if n == 0 {
		if err := streamCheck(op, s); err != nil {
			return err
		}
		if !s.Context().Same(ctx) {
			return wrongFill(op, s, b.String(), ctx)
		}
		return nil
	}
	sb, err := use(s)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer sb.Done(&err)
	if !s.Context().Same(ctx) {
		return wrongFill(op, s, b.String(), ctx)
	}
	if err := b.hold(op, "buffer"); err != nil {
		return err
	}
	defer b.unhold()
	api := apiOf(ctx)
	var r error
	switch width {
	case 1:
		r = api.MemsetD8Async(b.ptr, uint8(word), n, s.Handle())
	case 2:
		r = api.MemsetD16Async(b.ptr, uint16(word), n, s.Handle())
	default:
		r = api.MemsetD32Async(b.ptr, word, n, s.Handle())
	}
	if r != nil {
		return fmt.Errorf("%s: %s on stream %#x: cuMemsetD%dAsync: %w", op, b, s.Handle(), 8*width, r)
	}
	keep(s, b.a.hold)
	return nil
}

func wrongFill(op string, s *stream.Stream, buf string, ctx *driver.Context) error {
	return fmt.Errorf("%s: stream %#x of %s cannot set %s of %s: a memset runs in its stream's context: %w",
		op, s.Handle(), s.Context(), buf, ctx, driver.ErrWrongContext)
}
