package memory

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/stream"
)

// kind says where an allocation came from, and so what Close does with it.
type kind uint8

const (
	kindAlloc    kind = iota // cuMemAlloc: owned, Free calls cuMemFree
	kindAsync                // cuMemAllocAsync: owned, freed stream-ordered
	kindBorrowed             // Borrow: foreign, Free only detaches
	kindIPC                  // OpenIPC: Free closes the mapping
	kindManaged              // cuMemAllocManaged: owned, Free calls cuMemFree
	kindMapped               // a Mapping's or Growable's memory (virtual*.go): only views, which never free it
)

// String names the kind for Buffer.String.
func (k kind) String() string {
	switch k {
	case kindAlloc:
		return "owned"
	case kindAsync:
		return "stream-ordered"
	case kindBorrowed:
		return "borrowed"
	case kindIPC:
		return "IPC-mapped"
	case kindManaged:
		return "managed"
	case kindMapped:
		return "VMM-mapped"
	}
	return "unknown"
}

// allocation is one piece of device memory, shared by a buffer and all of
// its views.
type allocation struct {
	ctx   *driver.Context
	hold  *core.Hold // keeps ctx alive until Free
	kind  kind
	base  uintptr // 0 for an empty Alloc or AllocAsync buffer: no memory
	size  uintptr
	s     *stream.Stream // allocation stream of a stream-ordered buffer
	owner any            // kept reachable until Free (borrowed memory)
	pool  *Pool          // the owned pool it came from (AllocFromPool), else nil

	mu    sync.Mutex  // serialises Free and FreeAsync
	freed atomic.Bool // read without the lock on every use
}

// Buffer is device memory holding Len elements of type T in one context.
//
// Who owns the memory depends on how the buffer was made (see Owned): Alloc
// and AllocAsync buffers are owned and Close releases them; Borrow and OpenIPC
// buffers are not, and Close never frees the memory; views (Slice, Bytes)
// never free anything. After Close, every operation returns an error wrapping
// driver.ErrClosed, Ptr returns 0, and so do the views of the freed memory.
//
// Empty buffers are valid, as empty Go slices are: Alloc and AllocAsync of
// zero elements allocate nothing (Ptr is 0), and Borrow and OpenIPC of zero
// elements still check the pointer or handle they are given; an empty view
// (Slice(i, i)) points into the memory it views. Copies and fills of zero
// elements check their arguments and do nothing.
//
// Every buffer, borrowed and empty ones included, holds its context until
// Close: it, and its views, keep working after the *driver.Context is
// released, and the context ends only once the last of them is closed.
//
// A *Buffer passes straight to a kernel launch: the launch reads Ptr, the
// device address of the first element, and checks Context. Methods are safe
// for concurrent use, but using a buffer concurrently with its Close is a
// race the caller must avoid, as is freeing memory the device still uses.
type Buffer[T any] struct {
	holdLink // the hold of a, for the packages above (see core.HoldOf)
	a        *allocation
	ptr      uintptr
	n        int
	view     bool
	closed   atomic.Bool // a view's own Free
}

func newBuffer[T any](a *allocation, ptr uintptr, n int) *Buffer[T] {
	return &Buffer[T]{holdLink: core.LinkHold(a.hold), a: a, ptr: ptr, n: n}
}

// live reports whether b can be used: made by this package, and neither b
// nor the memory it views has been freed.
func (b *Buffer[T]) live() bool {
	return b != nil && b.a != nil && !b.a.freed.Load() && !b.closed.Load()
}

// usable returns nil when b can be used, and otherwise the error op reports
// about its argument role ("dst", "src", "b").
func (b *Buffer[T]) usable(op, role string) error {
	if b == nil || b.a == nil {
		return fmt.Errorf("%s: %s: nil buffer: %w", op, role, driver.ErrInvalidInput)
	}
	if b.a.freed.Load() || b.closed.Load() {
		return fmt.Errorf("%s: %s: %s: %w", op, role, b, driver.ErrClosed)
	}
	return nil
}

// elemSize is unsafe.Sizeof(T), without reflection.
func (b *Buffer[T]) elemSize() uintptr {
	var z T
	return unsafe.Sizeof(z)
}

// bytes is the buffer's size in bytes.
func (b *Buffer[T]) bytes() uintptr { return uintptr(b.n) * b.elemSize() }

// Ptr returns the device address of the buffer's first element (a
// CUdeviceptr), or 0 once the buffer, or the memory it views, is freed. An
// empty Alloc or AllocAsync buffer has no memory and its Ptr is 0; an empty
// view's is the address it was sliced at. It is what a kernel launch passes
// for the buffer.
func (b *Buffer[T]) Ptr() uintptr {
	if !b.live() {
		return 0
	}
	return b.ptr
}

// Closed reports whether the buffer can no longer be used: it, or the memory
// it views, was closed or freed (true for a nil or zero Buffer). An empty
// buffer that is open is not closed, though its Ptr is 0.
func (b *Buffer[T]) Closed() bool { return !b.live() }

// Len returns the number of elements of type T the buffer holds.
func (b *Buffer[T]) Len() int {
	if b == nil {
		return 0
	}
	return b.n
}

// Size returns the buffer's size in bytes: Len times the size of T.
func (b *Buffer[T]) Size() int {
	if b == nil {
		return 0
	}
	return int(b.bytes())
}

// Context returns the context the memory belongs to: the context of Alloc,
// Borrow and OpenIPC, or the allocation stream's context for AllocAsync.
func (b *Buffer[T]) Context() *driver.Context {
	if b == nil || b.a == nil {
		return nil
	}
	return b.a.ctx
}

// Owned reports whether Close releases the memory: true for buffers from
// Alloc, AllocAsync, AllocFromPool and AllocManaged, false for borrowed memory, IPC mappings and views.
func (b *Buffer[T]) Owned() bool {
	return b != nil && b.a != nil && !b.view && (b.a.kind == kindAlloc || b.a.kind == kindAsync || b.a.kind == kindManaged)
}

// StreamOrdered reports whether the memory comes from AllocAsync (a
// stream-ordered pool allocation), for the buffer and its views.
func (b *Buffer[T]) StreamOrdered() bool {
	return b != nil && b.a != nil && b.a.kind == kindAsync
}

// IsView reports whether b is a view made by Slice or Bytes.
func (b *Buffer[T]) IsView() bool { return b != nil && b.view }

// String describes the buffer for errors and logs.
func (b *Buffer[T]) String() string {
	if b == nil || b.a == nil {
		return "nil buffer"
	}
	var z T
	what := b.a.kind.String()
	if b.view {
		what = "view of " + what
	}
	state := ""
	if !b.live() {
		state = "freed "
	}
	return fmt.Sprintf("%s%s buffer %#x (%d x %d bytes)", state, what, b.ptr, b.n, unsafe.Sizeof(z))
}

// Slice returns a view of elements [i, j) of b, bounded as Go slices are:
// 0 <= i <= j <= b.Len(). The view is a Buffer over the same memory that
// never frees it; it becomes unusable (driver.ErrClosed) when the memory it views
// is freed, or by its own Close, which only detaches it. An empty view
// (i == j) is valid: copies and fills of it do nothing. Bounds out of range
// are an error wrapping ErrInvalidValue, a freed b an error wrapping
// driver.ErrClosed, and a nil or zero b one wrapping ErrInvalidValue; the view is
// then nil.
func (b *Buffer[T]) Slice(i, j int) (*Buffer[T], error) {
	const op = "memory.Buffer.Slice"
	if err := b.usable(op, "b"); err != nil {
		return nil, err
	}
	if i < 0 || i > j || j > b.n {
		return nil, fmt.Errorf("%s: [%d:%d] of %s: want 0 <= i <= j <= len %d: %w", op, i, j, b, b.n, driver.ErrInvalidInput)
	}
	return &Buffer[T]{holdLink: b.holdLink, a: b.a, ptr: b.ptr + uintptr(i)*b.elemSize(), n: j - i, view: true}, nil
}

// Bytes returns a view of b's memory as Size bytes, for copies and fills
// between buffers of different element types. Like Slice, the view never
// frees the memory and stops working once it is freed; a freed b is an
// error wrapping driver.ErrClosed (a nil or zero one, ErrInvalidValue), and the
// view is then nil.
func (b *Buffer[T]) Bytes() (*Buffer[byte], error) {
	const op = "memory.Buffer.Bytes"
	if err := b.usable(op, "b"); err != nil {
		return nil, err
	}
	return &Buffer[byte]{a: b.a, ptr: b.ptr, n: int(b.bytes()), view: true}, nil
}
