package fake

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/core"
)

// The fake's mappings (cuMemMap, cuMemUnmap) and their access
// (cuMemSetAccess, cuMemGetAccess), as copies, kernels and pointer
// attributes see them (vmm.go).

// vmmContextLocked is the owner of d's mappings in the allocation table: a
// context of handle 0 that no call names (mappings belong to no context,
// and cuPointerGetAttribute(CONTEXT) is 0 for them).
func (b *fakeBackend) vmmContextLocked(d *device) *context {
	if b.vmm.ctxs == nil {
		b.vmm.ctxs = map[*device]*context{}
	}
	c := b.vmm.ctxs[d]
	if c == nil {
		c = &context{dev: d}
		b.vmm.ctxs[d] = c
	}
	return c
}

// MemMap is cuMemMap: size bytes of the handle's memory from offset, at
// ptr inside one reserved range where nothing is mapped; ptr, size and
// offset multiples of the granularity, offset+size within the allocation.
// The mapping has no access until MemSetAccess.
func (b *fakeBackend) MemMap(ptr, size, offset, handle uintptr, flags uint64) error {
	if err := b.enter(abi.CuMemMap); err != nil || !vmmSupported {
		err = vmmErr(err)
		return err
	}
	if flags != 0 || size == 0 || ptr%vmmGranularity != 0 || size%vmmGranularity != 0 || offset%vmmGranularity != 0 {
		return driver.ErrInvalidValue
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	hd := b.vmm.handles[handle]
	if hd == nil {
		return driver.ErrInvalidValue
	}
	p := hd.phys
	r := b.rangeOfLocked(ptr)
	if offset > p.size || size > p.size-offset || r == nil || size > r.base+r.size-ptr {
		return driver.ErrInvalidValue
	}
	if offset != 0 || size != p.size {
		// A mapping is of a whole allocation: driver 580 answers
		// NOT_SUPPORTED to an offset (which the driver API's docs say must
		// be 0) and to a part from the start (H200 runs S2, S3).
		return driver.ErrNotSupported
	}
	for _, m := range b.vmm.maps {
		if m.r == r && ptr < m.a.end() && m.a.base < ptr+size {
			return driver.ErrInvalidValue
		}
	}
	d, err := b.dev(int(p.prop.Location.ID))
	if err != nil {
		return err
	}
	off := ptr - r.base
	if err := osMapFixed(r.shadow[off:off+size], p.fd, offset); err != nil {
		return driver.ErrOutOfMemory
	}
	a := &alloc{base: ptr, size: size, kind: vmmMapping, dev: d, ctx: b.vmmContextLocked(d)}
	b.insertLocked(a)
	if b.vmm.maps == nil {
		b.vmm.maps = map[uintptr]*vmmMap{}
	}
	b.vmm.maps[ptr] = &vmmMap{a: a, r: r, phys: p, offset: offset, access: map[int32]backend.MemAccessFlags{}}
	r.mapped++
	holdPhys(p)
	return nil
}

// wholeMapsLocked returns the mappings that [ptr, ptr+size) covers, which
// must be whole mappings, one after another with no hole; nil if it is
// not that.
func (b *fakeBackend) wholeMapsLocked(ptr, size uintptr) []*vmmMap {
	if size == 0 || size > ^uintptr(0)-ptr {
		return nil
	}
	var out []*vmmMap
	for at := ptr; at < ptr+size; {
		m := b.vmm.maps[at]
		if m == nil || m.a.size > ptr+size-at {
			return nil
		}
		out = append(out, m)
		at = m.a.end()
	}
	return out
}

// MemUnmap is cuMemUnmap: [ptr, ptr+size) must be whole mappings. Like
// the driver, it first waits for all work queued in the backend.
func (b *fakeBackend) MemUnmap(ptr, size uintptr) error {
	if err := b.enter(abi.CuMemUnmap); err != nil || !vmmSupported {
		err = vmmErr(err)
		return err
	}
	b.mu.RLock()
	ok := b.wholeMapsLocked(ptr, size) != nil
	var ctxs []*context
	for _, c := range b.ctxs {
		if !c.dead {
			ctxs = append(ctxs, c)
		}
	}
	b.mu.RUnlock()
	if !ok {
		return driver.ErrInvalidValue
	}
	if err := b.lockExec(); err != nil {
		return err
	}
	defer b.unlockExec()
	for _, c := range ctxs {
		if err := b.drainContext(c); err != nil {
			return err
		}
	}
	var gone []*vmmPhys
	b.mu.Lock()
	defer func() { b.mu.Unlock(); endPhys(gone) }()
	ms := b.wholeMapsLocked(ptr, size)
	if ms == nil {
		return driver.ErrInvalidValue
	}
	for _, m := range ms {
		off := m.a.base - m.r.base
		if err := osUnmapFixed(m.r.shadow[off : off+m.a.size]); err != nil {
			return driver.ErrInvalidValue
		}
		b.removeLocked(m.a)
		delete(b.vmm.maps, m.a.base)
		m.r.mapped--
		if dropPhys(m.phys) {
			gone = append(gone, m.phys)
		}
	}
	return nil
}

// checkLocation checks a location given to MemSetAccess or MemGetAccess.
func (b *fakeBackend) checkLocation(l backend.MemLocation) error {
	if l.Type != backend.MemLocationDevice {
		return driver.ErrInvalidValue
	}
	_, err := b.dev(int(l.ID))
	return err
}

// MemSetAccess is cuMemSetAccess: [ptr, ptr+size) must be whole
// mappings. A mapping becomes usable by copies and kernels once some
// device may read it (the fake does not tell devices apart, nor catch a
// write through read-only access), and unusable again when no device may.
func (b *fakeBackend) MemSetAccess(ptr, size uintptr, descs []backend.MemAccessDesc) error {
	if err := b.enter(abi.CuMemSetAccess); err != nil || !vmmSupported {
		err = vmmErr(err)
		return err
	}
	if len(descs) == 0 {
		return driver.ErrInvalidValue
	}
	for _, d := range descs {
		if err := b.checkLocation(d.Location); err != nil {
			return err
		}
		switch d.Flags {
		case backend.MemAccessNone, backend.MemAccessRead, backend.MemAccessReadWrite:
		default:
			return driver.ErrInvalidValue
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	ms := b.wholeMapsLocked(ptr, size)
	if ms == nil {
		return driver.ErrInvalidValue
	}
	for _, m := range ms {
		for _, d := range descs {
			m.access[d.Location.ID] = d.Flags
		}
		m.a.data = nil
		for _, f := range m.access {
			if f != backend.MemAccessNone {
				off := m.a.base - m.r.base
				m.a.data = m.r.shadow[off : off+m.a.size : off+m.a.size]
			}
		}
	}
	return nil
}

// MemGetAccess is cuMemGetAccess: what MemSetAccess last gave the location
// on the mapping holding ptr (MemAccessNone before any).
func (b *fakeBackend) MemGetAccess(loc backend.MemLocation, ptr uintptr) (backend.MemAccessFlags, error) {
	if err := b.enter(abi.CuMemGetAccess); err != nil || !vmmSupported {
		err = vmmErr(err)
		return 0, err
	}
	if err := b.checkLocation(loc); err != nil {
		return 0, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	m := b.mapAtLocked(ptr)
	if m == nil {
		return 0, driver.ErrInvalidValue
	}
	return m.access[loc.ID], nil
}

// mapAtLocked returns the mapping holding p, or nil.
func (b *fakeBackend) mapAtLocked(p uintptr) *vmmMap {
	a := b.findLocked(p)
	if a == nil || a.kind != vmmMapping {
		return nil
	}
	return b.vmm.maps[a.base]
}

// vmmSpanLocked is spanLocked for memory that starts in the mapping a:
// n bytes at p, through the following mappings of the same range when
// they follow with no hole, all with access granted.
func (b *fakeBackend) vmmSpanLocked(a *alloc, p, n uintptr) ([]byte, error) {
	m := b.vmm.maps[a.base]
	if m == nil || a.data == nil || n > ^uintptr(0)-p {
		return nil, driver.ErrInvalidValue
	}
	for cur := a; cur.end() < p+n; {
		next := b.vmm.maps[cur.end()]
		if next == nil || next.r != m.r || next.a.data == nil {
			return nil, driver.ErrInvalidValue
		}
		cur = next.a
	}
	off := p - m.r.base
	return m.r.shadow[off : off+n : off+n], nil
}

// vmmPointerAttrLocked answers the pointer attributes of a mapping that
// differ from device memory's: CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES
// (the allocation's requested handle types) and
// CU_POINTER_ATTRIBUTE_ACCESS_FLAGS (the access of the calling thread's
// current context's device, none without one); ok is false for the
// others and for other memory.
func (b *fakeBackend) vmmPointerAttrLocked(a *alloc, attr backend.PointerAttribute) (uint64, bool) {
	if a.kind != vmmMapping {
		return 0, false
	}
	m := b.vmm.maps[a.base]
	switch attr {
	case 14: // CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES
		return uint64(m.phys.prop.RequestedHandleTypes), true
	case 16: // CU_POINTER_ATTRIBUTE_ACCESS_FLAGS
		c, err := b.currentLocked(core.ThreadID())
		if err != nil {
			return uint64(backend.MemAccessNone), true
		}
		return uint64(m.access[int32(c.dev.ordinal)]), true
	}
	return 0, false
}
