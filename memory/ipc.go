package memory

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// IPCHandle exports the buffer's memory to other processes
// (cuIpcGetMemHandle): another process passes the handle to OpenIPC to map the
// same memory. Only whole owned buffers from Alloc can be exported: for
// stream-ordered, borrowed or IPC-mapped buffers, for views and for empty
// buffers (which have no memory) it is an error. The buffer must stay
// allocated while other processes use the mapping; the handle is 64 opaque
// bytes, safe to send as text (hex) or bytes.
func (b *Buffer[T]) IPCHandle() (driver.IPCHandle, error) {
	const op = "memory.Buffer.IPCHandle"
	if err := b.usable(op, "b"); err != nil {
		return driver.IPCHandle{}, err
	}
	if b.view {
		return driver.IPCHandle{}, fmt.Errorf("%s: %s: a view cannot be exported; export the whole buffer: %w", op, b, driver.ErrInvalidInput)
	}
	if b.a.kind != kindAlloc {
		return driver.IPCHandle{}, fmt.Errorf("%s: %s: only memory from memory.Alloc (cuMemAlloc) can be exported: %w", op, b, driver.ErrInvalidInput)
	}
	if b.a.base == 0 {
		return driver.IPCHandle{}, fmt.Errorf("%s: %s: an empty buffer has no memory to export: %w", op, b, driver.ErrInvalidInput)
	}
	var h driver.IPCHandle
	err := b.a.hold.Do(func(api backend.API) error {
		var r error
		if h, r = api.IPCGetMemHandle(b.ptr); r != nil {
			return fmt.Errorf("%s: cuIpcGetMemHandle: %w", b, r)
		}
		return nil
	})
	if err != nil {
		return driver.IPCHandle{}, fmt.Errorf("%s: %w", op, err)
	}
	return h, nil
}

// OpenIPC maps memory that another process exported with IPCHandle
// (cuIpcOpenMemHandle with CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS, ctx current)
// and returns it as a buffer of n elements of T in ctx. The buffer is not
// owned: its Close closes the mapping (cuIpcCloseMemHandle) and never frees
// the exporter's memory, which must stay allocated until then. n elements
// must fit in the exported allocation (checked with cuMemGetAddressRange);
// n == 0 maps the handle all the same (so that a bad handle is an error) and
// gives an empty buffer, whose Close closes the mapping. A process cannot
// open its own handles. The buffer holds ctx until Close, like an Alloc
// buffer: the mapping keeps working after ctx.Close and is closed in a live
// context.
func OpenIPC[T any](ctx *driver.Context, h driver.IPCHandle, n int) (*Buffer[T], error) {
	e := elemOf[T]()
	op := "memory.OpenIPC[" + e.name + "]"
	c, err := core.Of(op, ctx)
	if err != nil {
		return nil, err
	}
	size, err := e.sizeOf(op, n)
	if err != nil {
		return nil, err
	}
	if h == (driver.IPCHandle{}) {
		return nil, fmt.Errorf("%s: the zero handle: %w", op, driver.ErrInvalidInput)
	}
	hold, err := c.Hold()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	var ptr uintptr
	err = hold.Do(func(api backend.API) error {
		var err error
		ptr, err = openIPC(api, ctx, h, size, n)
		return err
	})
	if err != nil {
		if ptr != 0 { // mapped, but unbinding failed
			err = hold.Undo(err, func(api backend.API) error { return api.IPCCloseMemHandle(ptr) })
		}
		return nil, hold.Drop(fmt.Errorf("%s: %w", op, err))
	}
	a := &allocation{ctx: ctx, hold: hold, kind: kindIPC, base: ptr, size: size}
	return newBuffer[T](a, ptr, n), nil
}

// openIPC maps h (the context is current) and checks that size bytes fit in
// the exported allocation; on failure nothing stays mapped.
func openIPC(api backend.API, ctx *driver.Context, h driver.IPCHandle, size uintptr, n int) (uintptr, error) {
	ptr, r := api.IPCOpenMemHandle(h, backend.IPCMemLazyEnablePeerAccess)
	if r != nil {
		return 0, fmt.Errorf("in %s: cuIpcOpenMemHandle: %w", ctx, r)
	}
	base, asize, r := api.MemGetAddressRange(ptr)
	if r != nil {
		api.IPCCloseMemHandle(ptr)
		return 0, fmt.Errorf("mapped at %#x: cuMemGetAddressRange: %w", ptr, r)
	}
	if ptr+size > base+asize {
		api.IPCCloseMemHandle(ptr)
		return 0, fmt.Errorf("n=%d (%d bytes) do not fit in the exported allocation of %d bytes: %w",
			n, size, base+asize-ptr, driver.ErrInvalidInput)
	}
	return ptr, nil
}
