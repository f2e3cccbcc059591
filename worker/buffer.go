package worker

import (
	"fmt"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
)

// Buffer is a reference to the parent's device memory, for an argument
// field: the parent makes it with Share, and the function, in the worker,
// opens it with Open. It is plain data (it holds no Go pointer), so it
// travels with the argument. The parent owns the memory: it must stay
// allocated until the call returns, and the worker never frees it.
//
// What travels is the allocation's IPC handle (cuIpcGetMemHandle) and the
// buffer's place in it; the worker maps each allocation once
// (cuIpcOpenMemHandle) and keeps the mapping for later calls, so only the
// first call on an allocation pays for the mapping.
type Buffer[T any] struct {
	ref bufferRef
}

// bufferRef is Buffer's untyped content. The parent fills handle, off and
// alloc for each call, in the frame's copy of the argument.
type bufferRef struct {
	handle driver.IPCHandle
	ptr    uintptr // the parent's pointer
	off    uint64  // ptr - the allocation's base
	alloc  uint64  // the allocation's size
	n      int64   // elements
	elem   uint64  // bytes per element
	dev    int32   // the device's ordinal + 1; 0 for the zero Buffer
}

// Share returns a reference to b for a call's argument. b must be device
// memory that cuIpcGetMemHandle exports: a buffer of memory.Alloc, a view
// of one (Slice, Bytes), or a Borrow of memory that cuMemAlloc allocated;
// stream-ordered memory (memory.AllocAsync, pools) cannot be exported, and
// the call says so. A nil, closed or empty b gives the zero Buffer, which a
// call refuses. Share makes no driver call and does not allocate: the
// handle is taken when the call is made.
func Share[T any](b *memory.Buffer[T]) Buffer[T] {
	if b == nil || b.Ptr() == 0 || b.Len() == 0 {
		return Buffer[T]{}
	}
	ctx := b.Context()
	if ctx == nil {
		return Buffer[T]{}
	}
	var z T
	return Buffer[T]{bufferRef{
		ptr:  b.Ptr(),
		n:    int64(b.Len()),
		elem: uint64(unsafe.Sizeof(z)),
		dev:  int32(ctx.Device().Ordinal()) + 1,
	}}
}

// Len returns the number of elements of the buffer referred to.
func (b Buffer[T]) Len() int { return int(b.ref.n) }

// Device returns the ordinal of the device of the memory referred to, or
// -1 for the zero Buffer.
func (b Buffer[T]) Device() int { return int(b.ref.dev) - 1 }

// Open returns the buffer in the worker, for the function's use during the
// call: Len elements of T in env's context, over the worker's mapping of
// the parent's memory. Writes land in the parent's buffer. The returned
// buffer is valid for the call only (it is closed after the function
// returns; closing it earlier is fine) and never frees the parent's
// memory. Open outside a worker, or of a Buffer that did not travel with
// the call, is an error.
func (b Buffer[T]) Open(env *Env) (*memory.Buffer[T], error) {
	const op = "worker.Buffer.Open"
	if env == nil || env.calls == nil {
		return nil, fmt.Errorf("%s: not in a worker's call (nil Env): %w", op, driver.ErrInvalidInput)
	}
	if b.ref.dev == 0 || b.ref.handle == (driver.IPCHandle{}) {
		return nil, fmt.Errorf("%s: the zero Buffer, or one that did not travel in the call's argument: %w", op, driver.ErrInvalidInput)
	}
	var z T
	if b.ref.elem != uint64(unsafe.Sizeof(z)) {
		return nil, fmt.Errorf("%s: element size %d, the shared buffer's is %d: %w", op, unsafe.Sizeof(z), b.ref.elem, driver.ErrInvalidInput)
	}
	m, err := env.mapping(b.ref.handle, b.ref.alloc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	buf, err := memory.Borrow[T](env.ctx, m.Ptr()+uintptr(b.ref.off), int(b.ref.n), m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	env.calls = append(env.calls, buf)
	return buf, nil
}
