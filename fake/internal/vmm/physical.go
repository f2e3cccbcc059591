package vmm

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
)

// The fake's physical allocations and their handles (cuMemCreate,
// cuMemRelease, cuMemRetainAllocationHandle, their properties).

// MemCreate is cuMemCreate: size bytes (a multiple of the granularity) of
// the device's memory, poisoned as cuMemAlloc's is, counted in its used
// memory until the last handle is released and the last mapping unmapped.
func (r *Room) MemCreate(size uintptr, prop backend.MemAllocationProp, flags uint64) (uintptr, error) {
	if err := r.enter(abi.CuMemCreate); err != nil {
		return 0, err
	}
	if flags != 0 || size == 0 || size%Granularity != 0 {
		return 0, driver.ErrInvalidValue
	}
	if err := r.checkProp(prop); err != nil {
		return 0, err
	}
	dev := int(prop.Location.ID)
	if err := r.core.Reserve(dev, size); err != nil {
		return 0, err
	}
	p := &phys{size: size, prop: prop, owner: r.core, dev: dev, holders: 1}
	var err error
	p.fd, err = osPhysCreate(size, prop.Location.ID, uint32(prop.RequestedHandleTypes), r.fill)
	if err == nil {
		p.key, _, err = osFileKey(p.fd)
		if err != nil {
			osClose(p.fd)
		}
	}
	if err != nil {
		r.core.Unreserve(dev, size)
		return 0, driver.ErrOutOfMemory
	}
	files.Lock()
	if files.m == nil {
		files.m = map[fileKey]*phys{}
	}
	files.m[p.key] = p
	files.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.newHandle(p), nil
}

// newHandle makes a new handle of p, with one reference (the caller
// counted it as p's holder). The room's lock is held.
func (r *Room) newHandle(p *phys) uintptr {
	h := r.core.NewHandle()
	r.handles[h] = &handle{h: h, phys: p, refs: 1}
	return h
}

// handleOf returns the room's handle of p, or nil. The room's lock is
// held.
func (r *Room) handleOf(p *phys) *handle {
	var first *handle // the oldest: handles are made in increasing order
	for _, hd := range r.handles {
		if hd.phys == p && (first == nil || hd.h < first.h) {
			first = hd
		}
	}
	return first
}

// MemRelease is cuMemRelease: one reference of the handle; the memory
// stays while mapped.
func (r *Room) MemRelease(h uintptr) error {
	if err := r.enter(abi.CuMemRelease); err != nil {
		return err
	}
	var gone []*phys
	r.mu.Lock()
	defer func() { r.mu.Unlock(); endPhys(gone) }()
	hd := r.handles[h]
	if hd == nil {
		return driver.ErrInvalidValue
	}
	if hd.refs--; hd.refs == 0 {
		delete(r.handles, h)
		if dropPhys(hd.phys) {
			gone = append(gone, hd.phys)
		}
	}
	return nil
}

// MemGetAllocationPropertiesFromHandle is
// cuMemGetAllocationPropertiesFromHandle.
func (r *Room) MemGetAllocationPropertiesFromHandle(h uintptr) (backend.MemAllocationProp, error) {
	if err := r.enter(abi.CuMemGetAllocationPropertiesFromHandle); err != nil {
		return backend.MemAllocationProp{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	hd := r.handles[h]
	if hd == nil {
		return backend.MemAllocationProp{}, driver.ErrInvalidValue
	}
	return hd.phys.prop, nil
}

// MemRetainAllocationHandle is cuMemRetainAllocationHandle: the handle of
// the allocation mapped at addr, one reference more (a new handle if every
// handle of it here was released).
func (r *Room) MemRetainAllocationHandle(addr uintptr) (uintptr, error) {
	if err := r.enter(abi.CuMemRetainAllocationHandle); err != nil {
		return 0, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.mapAt(addr)
	if m == nil {
		return 0, driver.ErrInvalidValue
	}
	return r.retain(m.phys), nil
}

// retain returns the room's handle of p with one more reference, or a new
// one holding p. The room's lock is held.
func (r *Room) retain(p *phys) uintptr {
	if hd := r.handleOf(p); hd != nil {
		hd.refs++
		return hd.h
	}
	holdPhys(p)
	return r.newHandle(p)
}
