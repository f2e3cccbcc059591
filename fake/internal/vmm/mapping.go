package vmm

import (
	"maps"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
)

// The fake's mappings (cuMemMap, cuMemUnmap) and their access
// (cuMemSetAccess, cuMemGetAccess). The core's memory table holds each
// mapping too (Core.Map), as copies, kernels and pointer attributes see
// it.

// MemMap is cuMemMap: size bytes of the handle's memory from offset, at
// ptr inside one reserved range where nothing is mapped; ptr, size and
// offset multiples of the granularity, offset+size within the allocation.
// The mapping has no access until MemSetAccess.
func (r *Room) MemMap(ptr, size, offset, h uintptr, flags uint64) error {
	if err := r.enter(abi.CuMemMap); err != nil {
		return err
	}
	if flags != 0 || size == 0 || ptr%Granularity != 0 || size%Granularity != 0 || offset%Granularity != 0 {
		return driver.ErrInvalidValue
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	hd := r.handles[h]
	if hd == nil {
		return driver.ErrInvalidValue
	}
	p := hd.phys
	v := r.rangeOf(ptr)
	if offset > p.size || size > p.size-offset || v == nil || size > v.base+v.size-ptr {
		return driver.ErrInvalidValue
	}
	if offset != 0 || size != p.size {
		// A mapping is of a whole allocation: driver 580 answers
		// NOT_SUPPORTED to an offset (which the driver API's docs say must
		// be 0) and to a part from the start (H200 runs S2, S3).
		return driver.ErrNotSupported
	}
	for _, m := range r.maps {
		if m.r == v && ptr < m.end() && m.base < ptr+size {
			return driver.ErrInvalidValue
		}
	}
	dev := int(p.prop.Location.ID)
	if err := r.core.CheckDevice(dev); err != nil {
		return err
	}
	off := ptr - v.base
	if err := osMapFixed(v.shadow[off:off+size], p.fd, offset); err != nil {
		return driver.ErrOutOfMemory
	}
	r.core.Map(Mapping{Base: ptr, Size: size, Device: dev, Range: v.base, Shadow: v.shadow, HandleTypes: p.prop.RequestedHandleTypes})
	r.maps[ptr] = &mapping{base: ptr, size: size, r: v, phys: p, offset: offset, access: map[int32]backend.MemAccessFlags{}}
	v.mapped++
	holdPhys(p)
	return nil
}

// wholeMaps returns the mappings that [ptr, ptr+size) covers, which must
// be whole mappings, one after another with no hole; nil if it is not
// that. The room's lock is held.
func (r *Room) wholeMaps(ptr, size uintptr) []*mapping {
	if size == 0 || size > ^uintptr(0)-ptr {
		return nil
	}
	var out []*mapping
	for at := ptr; at < ptr+size; {
		m := r.maps[at]
		if m == nil || m.size > ptr+size-at {
			return nil
		}
		out = append(out, m)
		at = m.end()
	}
	return out
}

// MemUnmap is cuMemUnmap: [ptr, ptr+size) must be whole mappings. Like
// the driver, it first waits for all work queued in the backend.
func (r *Room) MemUnmap(ptr, size uintptr) error {
	if err := r.enter(abi.CuMemUnmap); err != nil {
		return err
	}
	r.mu.Lock()
	ok := r.wholeMaps(ptr, size) != nil
	r.mu.Unlock()
	if !ok {
		return driver.ErrInvalidValue
	}
	var gone []*phys
	defer func() { endPhys(gone) }()
	return r.core.Quiesce(func() error {
		r.mu.Lock()
		defer r.mu.Unlock()
		ms := r.wholeMaps(ptr, size)
		if ms == nil {
			return driver.ErrInvalidValue
		}
		for _, m := range ms {
			off := m.base - m.r.base
			if err := osUnmapFixed(m.r.shadow[off : off+m.size]); err != nil {
				return driver.ErrInvalidValue
			}
			r.core.Unmap(m.base)
			delete(r.maps, m.base)
			m.r.mapped--
			if dropPhys(m.phys) {
				gone = append(gone, m.phys)
			}
		}
		return nil
	})
}

// checkLocation checks a location given to MemSetAccess or MemGetAccess.
func (r *Room) checkLocation(l backend.MemLocation) error {
	if l.Type != backend.MemLocationDevice {
		return driver.ErrInvalidValue
	}
	return r.core.CheckDevice(int(l.ID))
}

// MemSetAccess is cuMemSetAccess: [ptr, ptr+size) must be whole
// mappings. A mapping becomes usable by copies and kernels once some
// device may read it (the fake does not tell devices apart, nor catch a
// write through read-only access), and unusable again when no device may.
func (r *Room) MemSetAccess(ptr, size uintptr, descs []backend.MemAccessDesc) error {
	if err := r.enter(abi.CuMemSetAccess); err != nil {
		return err
	}
	if len(descs) == 0 {
		return driver.ErrInvalidValue
	}
	for _, d := range descs {
		if err := r.checkLocation(d.Location); err != nil {
			return err
		}
		switch d.Flags {
		case backend.MemAccessNone, backend.MemAccessRead, backend.MemAccessReadWrite:
		default:
			return driver.ErrInvalidValue
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	ms := r.wholeMaps(ptr, size)
	if ms == nil {
		return driver.ErrInvalidValue
	}
	for _, m := range ms {
		for _, d := range descs {
			m.access[d.Location.ID] = d.Flags
		}
		var data []byte
		for _, f := range m.access {
			if f != backend.MemAccessNone {
				off := m.base - m.r.base
				data = m.r.shadow[off : off+m.size : off+m.size]
			}
		}
		r.core.SetAccess(m.base, data, maps.Clone(m.access))
	}
	return nil
}

// MemGetAccess is cuMemGetAccess: what MemSetAccess last gave the location
// on the mapping holding ptr (MemAccessNone before any).
func (r *Room) MemGetAccess(loc backend.MemLocation, ptr uintptr) (backend.MemAccessFlags, error) {
	if err := r.enter(abi.CuMemGetAccess); err != nil {
		return 0, err
	}
	if err := r.checkLocation(loc); err != nil {
		return 0, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.mapAt(ptr)
	if m == nil {
		return 0, driver.ErrInvalidValue
	}
	return m.access[loc.ID], nil
}

// mapAt returns the mapping holding p, or nil. The room's lock is held.
func (r *Room) mapAt(p uintptr) *mapping {
	for _, m := range r.maps {
		if p >= m.base && p-m.base < m.size {
			return m
		}
	}
	return nil
}
