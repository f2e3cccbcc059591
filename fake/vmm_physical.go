package fake

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
)

// The fake's physical allocations and their handles (cuMemCreate,
// cuMemRelease, cuMemRetainAllocationHandle, their properties; vmm.go).

// MemCreate is cuMemCreate: size bytes (a multiple of the granularity) of
// the device's memory, poisoned as cuMemAlloc's is, counted in its used
// memory until the last handle is released and the last mapping unmapped.
func (b *fakeBackend) MemCreate(size uintptr, prop backend.MemAllocationProp, flags uint64) (uintptr, error) {
	if err := b.enter(abi.CuMemCreate); err != nil || !vmmSupported {
		err = vmmErr(err)
		return 0, err
	}
	if flags != 0 || size == 0 || size%vmmGranularity != 0 {
		return 0, driver.ErrInvalidValue
	}
	b.mu.Lock()
	d, err := b.checkPropLocked(prop)
	if err == nil && (uint64(size) > d.total-d.used || size > maxStorage) {
		err = driver.ErrOutOfMemory
	}
	if err != nil {
		b.mu.Unlock()
		return 0, err
	}
	d.used += uint64(size)
	b.mu.Unlock()
	p := &vmmPhys{size: size, prop: prop, owner: b, dev: d, holders: 1}
	p.fd, err = osPhysCreate(size, prop.Location.ID, uint32(prop.RequestedHandleTypes))
	if err == nil {
		p.key, _, err = osFileKey(p.fd)
		if err != nil {
			osClose(p.fd)
		}
	}
	if err != nil {
		b.mu.Lock()
		d.used -= uint64(size)
		b.mu.Unlock()
		return 0, driver.ErrOutOfMemory
	}
	vmmFiles.Lock()
	if vmmFiles.m == nil {
		vmmFiles.m = map[vmmFileKey]*vmmPhys{}
	}
	vmmFiles.m[p.key] = p
	vmmFiles.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.newVMMHandleLocked(p), nil
}

// newVMMHandleLocked makes a new handle of p in b, with one reference
// (the caller counted it as p's holder).
func (b *fakeBackend) newVMMHandleLocked(p *vmmPhys) uintptr {
	st := &b.vmm
	if st.handles == nil {
		st.handles = map[uintptr]*vmmHandle{}
	}
	h := newHandle()
	st.handles[h] = &vmmHandle{h: h, phys: p, refs: 1}
	return h
}

// handleOfLocked returns b's handle of p, or nil.
func (b *fakeBackend) handleOfLocked(p *vmmPhys) *vmmHandle {
	var first *vmmHandle // the oldest: handles are made in increasing order
	for _, hd := range b.vmm.handles {
		if hd.phys == p && (first == nil || hd.h < first.h) {
			first = hd
		}
	}
	return first
}

// MemRelease is cuMemRelease: one reference of the handle; the memory
// stays while mapped.
func (b *fakeBackend) MemRelease(handle uintptr) error {
	if err := b.enter(abi.CuMemRelease); err != nil || !vmmSupported {
		err = vmmErr(err)
		return err
	}
	var gone []*vmmPhys
	b.mu.Lock()
	defer func() { b.mu.Unlock(); endPhys(gone) }()
	hd := b.vmm.handles[handle]
	if hd == nil {
		return driver.ErrInvalidValue
	}
	if hd.refs--; hd.refs == 0 {
		delete(b.vmm.handles, handle)
		if dropPhys(hd.phys) {
			gone = append(gone, hd.phys)
		}
	}
	return nil
}

// MemGetAllocationPropertiesFromHandle is
// cuMemGetAllocationPropertiesFromHandle.
func (b *fakeBackend) MemGetAllocationPropertiesFromHandle(handle uintptr) (backend.MemAllocationProp, error) {
	if err := b.enter(abi.CuMemGetAllocationPropertiesFromHandle); err != nil || !vmmSupported {
		err = vmmErr(err)
		return backend.MemAllocationProp{}, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	hd := b.vmm.handles[handle]
	if hd == nil {
		return backend.MemAllocationProp{}, driver.ErrInvalidValue
	}
	return hd.phys.prop, nil
}

// MemRetainAllocationHandle is cuMemRetainAllocationHandle: the handle of
// the allocation mapped at addr, one reference more (a new handle if every
// handle of it here was released).
func (b *fakeBackend) MemRetainAllocationHandle(addr uintptr) (uintptr, error) {
	if err := b.enter(abi.CuMemRetainAllocationHandle); err != nil || !vmmSupported {
		err = vmmErr(err)
		return 0, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	m := b.mapAtLocked(addr)
	if m == nil {
		return 0, driver.ErrInvalidValue
	}
	return b.retainLocked(m.phys), nil
}

// retainLocked returns b's handle of p with one more reference, or a new
// one holding p.
func (b *fakeBackend) retainLocked(p *vmmPhys) uintptr {
	if hd := b.handleOfLocked(p); hd != nil {
		hd.refs++
		return hd.h
	}
	holdPhys(p)
	return b.newVMMHandleLocked(p)
}
