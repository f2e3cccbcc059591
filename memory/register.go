package memory

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// RegisterFlag is a cuMemHostRegister flag; flags are or-ed.
type RegisterFlag uint32

// Registration flags.
const (
	// RegisterPortable: page-locked for every context, not only the one
	// registering (CU_MEMHOSTREGISTER_PORTABLE).
	RegisterPortable = RegisterFlag(backend.MemHostRegisterPortable)
	// RegisterReadOnly: the device only reads the memory
	// (CU_MEMHOSTREGISTER_READ_ONLY).
	RegisterReadOnly = RegisterFlag(backend.MemHostRegisterReadOnly)
)

// ErrAlreadyRegistered is the driver's answer when part of the memory is
// registered already (CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED): the
// driver registers whole pages, so two small slices on one page cannot
// both be registered.
var ErrAlreadyRegistered = backend.ErrHostMemoryAlreadyRegistered

// Registered is a Go slice page-locked for DMA (cuMemHostRegister), so
// that asynchronous copies to and from it run truly asynchronously, as
// with AllocHost memory, without copying the data into a new buffer.
//
// The slice is pinned with a runtime.Pinner for as long as it is
// registered: Go's collector does not move heap memory, but it frees
// memory nothing refers to and moves goroutine stacks; the pin keeps the
// backing array alive and on the heap until Close, whatever the caller
// does with its own references. Register only slices from make or new
// (heap memory), best large ones of whole pages: the driver locks whole
// pages, and two slices sharing a page cannot both be registered
// (ErrAlreadyRegistered). Memory from syscall.Mmap works too and needs no
// pin. Do not let the slice's memory be reused (append beyond its
// capacity makes a new array; the registered one stays registered).
//
// Close unregisters (cuMemHostUnregister, which waits for the context's
// work using the memory) and unpins; it holds the context (see
// driver.Context) until then. A second Close is a no-op returning nil.
type Registered[T any] struct {
	ctx    *driver.Context
	hold   *core.Hold
	s      []T
	pin    runtime.Pinner
	mu     sync.Mutex
	closed bool
}

// Register page-locks the memory of s in ctx (cuMemHostRegister) and pins
// it (see Registered). s must not be empty; T must be a fixed-size type
// without pointers. The caller keeps using s, and must Close the
// registration before the memory is reused for anything else.
func Register[T any](ctx *driver.Context, s []T, flags RegisterFlag) (*Registered[T], error) {
	e := elemOf[T]()
	op := "memory.Register[" + e.name + "]"
	c, err := core.Of(op, ctx)
	if err != nil {
		return nil, err
	}
	size, err := e.sizeOf(op, len(s))
	if err != nil {
		return nil, err
	}
	if size == 0 {
		return nil, fmt.Errorf("%s: an empty slice cannot be registered: %w", op, driver.ErrInvalidInput)
	}
	if flags&^(RegisterPortable|RegisterReadOnly) != 0 {
		return nil, fmt.Errorf("%s: unknown flags %#x: %w", op, uint32(flags), driver.ErrInvalidInput)
	}
	hr, ok := c.API.(backend.HostRegistration)
	if !ok {
		return nil, fmt.Errorf("%s: the backend cannot register host memory (backend.HostRegistration): %w", op, errors.ErrUnsupported)
	}
	h, err := c.Hold()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	r := &Registered[T]{ctx: ctx, hold: h, s: s}
	p := unsafe.Pointer(unsafe.SliceData(s))
	r.pin.Pin(p)
	registered := false
	err = h.Do(func(backend.API) error {
		if r := hr.MemHostRegister(p, size, uint32(flags)); r != nil {
			return fmt.Errorf("%d bytes at %p in %s: cuMemHostRegister: %w", size, p, ctx, r)
		}
		registered = true
		return nil
	})
	if err != nil {
		if registered { // registered, but unbinding failed
			err = h.Undo(err, func(backend.API) error { return hr.MemHostUnregister(p) })
		}
		r.pin.Unpin()
		return nil, h.Drop(fmt.Errorf("%s: %w", op, err))
	}
	return r, nil
}

// Slice returns the registered slice (nil after Close).
func (r *Registered[T]) Slice() []T {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	return r.s
}

// Close unregisters the memory (cuMemHostUnregister) and unpins it. If the
// driver refuses, the error is returned and the registration stays, so
// Close can be retried.
func (r *Registered[T]) Close() error {
	const op = "memory.Registered.Close"
	if r == nil || r.hold == nil {
		return fmt.Errorf("%s: nil registration: %w", op, driver.ErrInvalidInput)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	p := unsafe.Pointer(unsafe.SliceData(r.s))
	err := r.hold.Close(func(api backend.API) error {
		if e := api.(backend.HostRegistration).MemHostUnregister(p); e != nil {
			return fmt.Errorf("%p: cuMemHostUnregister: %w", p, e)
		}
		return nil
	})
	if r.hold.Closed() { // unregistered, or gone with its context
		r.closed = true
		r.pin.Unpin()
		r.s = nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}
