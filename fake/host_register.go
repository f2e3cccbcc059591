package fake

import (
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/core"
)

// MemHostRegister is cuMemHostRegister in the current context: the caller's
// memory at p counts as page-locked host memory (asynchronous copies read
// and write it when the stream runs them) until MemHostUnregister. A range
// that overlaps memory already registered or allocated is
// ErrHostMemoryAlreadyRegistered; nil, 0 bytes or unknown flags are
// ErrInvalidValue.
func (b *fakeBackend) MemHostRegister(p unsafe.Pointer, size uintptr, flags uint32) error {
	if err := b.enter(abi.CuMemHostRegister); err != nil {
		return err
	}
	known := backend.MemHostRegisterPortable | backend.MemHostRegisterDeviceMap | backend.MemHostRegisterReadOnly
	if p == nil || size == 0 || flags&^known != 0 || uintptr(p) > ^uintptr(0)-size {
		return driver.ErrInvalidValue
	}
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	c, err := b.currentLocked(tid)
	if err != nil {
		return err
	}
	base := uintptr(p)
	if a := b.findLocked(base); a != nil {
		return backend.ErrHostMemoryAlreadyRegistered
	}
	if a := b.findLocked(base + size - 1); a != nil {
		return backend.ErrHostMemoryAlreadyRegistered
	}
	for _, a := range b.mem { // an allocation strictly inside the range
		if a.base > base && a.base < base+size {
			return backend.ErrHostMemoryAlreadyRegistered
		}
	}
	b.insertLocked(&alloc{base: base, size: size, data: hostBytes(p, size), kind: hostMem, ctx: c, registered: true, site: here()})
	return nil
}

// MemHostUnregister is cuMemHostUnregister: p must be what MemHostRegister
// was given (ErrHostMemoryNotRegistered otherwise). Work of its context
// that may still use the memory runs first.
func (b *fakeBackend) MemHostUnregister(p unsafe.Pointer) error {
	if err := b.enter(abi.CuMemHostUnregister); err != nil {
		return err
	}
	b.mu.RLock()
	a := b.findLocked(uintptr(p))
	b.mu.RUnlock()
	if p == nil || a == nil || a.base != uintptr(p) || !a.registered {
		return backend.ErrHostMemoryNotRegistered
	}
	if err := b.lockExec(); err != nil {
		return err
	}
	defer b.unlockExec()
	b.drainContext(a.ctx)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.findLocked(uintptr(p)) != a {
		return backend.ErrHostMemoryNotRegistered
	}
	b.removeLocked(a)
	return nil
}

var _ backend.HostRegistration = (*fakeBackend)(nil)
