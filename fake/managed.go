package fake

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/core"
)

// Managed (unified) memory on the fake: device memory whose storage the
// host reads and writes at the address cuPointerGetAttribute gives for
// CU_POINTER_ATTRIBUTE_HOST_POINTER (on the driver, the device address
// itself). Prefetches and advice are checked and otherwise change nothing:
// the fake has one copy of the data.

// MemAllocManaged is cuMemAllocManaged in the current context: flags must
// be CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST, size not 0
// (ErrInvalidValue). The memory is poisoned, as MemAlloc's.
func (b *fakeBackend) MemAllocManaged(size uintptr, flags uint32) (uintptr, error) {
	if err := b.enter(abi.CuMemAllocManaged); err != nil {
		return 0, err
	}
	if size == 0 || (flags != backend.MemAttachGlobal && flags != backend.MemAttachHost) {
		return 0, driver.ErrInvalidValue
	}
	tid := core.ThreadID()
	b.mu.Lock()
	c, err := b.currentLocked(tid)
	var base uintptr
	if err == nil {
		base, err = b.reserveLocked(c.dev, size)
	}
	b.mu.Unlock()
	if err != nil {
		return 0, err
	}
	a := &alloc{base: base, size: size, data: newStorage(size), kind: deviceMem, dev: c.dev, ctx: c, managed: true, site: here()}
	b.mu.Lock()
	defer b.mu.Unlock()
	if c.dead {
		c.dev.used -= uint64(size)
		return 0, errDestroyedCurrent
	}
	b.insertLocked(a)
	return base, nil
}

// managedRangeLocked checks that [p, p+n) lies in one managed allocation.
func (b *fakeBackend) managedRangeLocked(p, n uintptr) error {
	a := b.findLocked(p)
	if n == 0 || a == nil || !a.managed || n > a.end()-p {
		return driver.ErrInvalidValue
	}
	return nil
}

// locationLocked checks a prefetch or advice location: the host, or a
// device of the backend (ErrInvalidDevice for another ordinal).
func (b *fakeBackend) locationLocked(loc backend.MemLocation) error {
	switch loc.Type {
	case backend.MemLocationHost:
		return nil
	case backend.MemLocationDevice:
		if _, err := b.dev(int(loc.ID)); err != nil {
			return driver.ErrInvalidDevice
		}
		return nil
	}
	return driver.ErrInvalidValue
}

// MemPrefetchAsync is cuMemPrefetchAsync (CUmemLocation form): the range
// must be managed memory; the prefetch is queued on s and moves nothing.
func (b *fakeBackend) MemPrefetchAsync(p, n uintptr, loc backend.MemLocation, s uintptr) error {
	if err := b.enter(abi.CuMemPrefetchAsync); err != nil {
		return err
	}
	it := &item{run: nop}
	return b.enqueue(s, it, func(*stream) error {
		if err := b.managedRangeLocked(p, n); err != nil {
			return err
		}
		return b.locationLocked(loc)
	})
}

// MemAdvise is cuMemAdvise (CUmemLocation form): the range must be managed
// memory, the advice known, and the location valid for the advice that
// take one.
func (b *fakeBackend) MemAdvise(p, n uintptr, advice backend.MemAdvice, loc backend.MemLocation) error {
	if err := b.enter(abi.CuMemAdvise); err != nil {
		return err
	}
	tid := core.ThreadID()
	b.mu.RLock()
	defer b.mu.RUnlock()
	// Like the driver (H200, driver 580), cuMemAdvise needs a current
	// context: CUDA_ERROR_INVALID_CONTEXT with none.
	if _, err := b.currentLocked(tid); err != nil {
		return err
	}
	if err := b.managedRangeLocked(p, n); err != nil {
		return err
	}
	switch advice {
	case backend.MemAdviseSetReadMostly, backend.MemAdviseUnsetReadMostly:
		return nil
	case backend.MemAdviseSetPreferredLocation, backend.MemAdviseUnsetPreferredLocation,
		backend.MemAdviseSetAccessedBy, backend.MemAdviseUnsetAccessedBy:
		return b.locationLocked(loc)
	}
	return driver.ErrInvalidValue
}

var _ backend.ManagedMemory = (*fakeBackend)(nil)
