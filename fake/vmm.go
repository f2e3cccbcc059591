package fake

import (
	"fmt"
	"sync"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/core"
)

// Virtual memory management (cuMemCreate, cuMemAddressReserve, cuMemMap,
// cuMemSetAccess, shareable handles): see vmm_os_linux.go for how the
// memory is made. A mapping is an allocation of the table (kind
// vmmMapping) that copies, memsets and kernels find as any other; its
// bytes are nil, so that every access faults, until cuMemSetAccess grants
// one, as on the GPU where all mappings start with no access.

// vmmMapping is the allocKind of a cuMemMap mapping.
const vmmMapping allocKind = 16

// vmmGranularity is the minimum and recommended granularity of device
// memory, as the H200 reports for pinned device memory (2 MiB).
const vmmGranularity = 2 << 20

// The fake's reserved virtual address ranges live in their own 16 TiB,
// below the devices' address spaces (device.go).
const (
	vmmSpaceBase = 0x2000_0000_0000
	vmmSpaceSize = 1 << 44
)

// vmmFileKey names the file of a physical allocation: the same for every
// descriptor of it.
type vmmFileKey struct{ dev, ino uint64 }

// vmmPhys is one physical allocation (cuMemCreate), shared by the backends
// that imported it; its holders are the handles of every backend that
// name it and the mappings of it, all counted under vmmFiles's lock. The
// last one to go frees it.
type vmmPhys struct {
	fd      int
	key     vmmFileKey
	size    uintptr
	prop    backend.MemAllocationProp
	owner   *fakeBackend // whose device's memory it is
	dev     *device
	holders int
	// foreign: made by a fake of another process and imported from its
	// descriptor: no device of this process counts it.
	foreign bool
}

// vmmFiles finds a physical allocation from a descriptor of its file, in
// any backend of the process (the fake's kernel-level sharing, as
// ipcReg for cuIpc handles).
var vmmFiles struct {
	sync.Mutex
	m map[vmmFileKey]*vmmPhys
}

// holdPhys adds a holder to p.
func holdPhys(p *vmmPhys) {
	vmmFiles.Lock()
	p.holders++
	vmmFiles.Unlock()
}

// dropPhys removes a holder from p and reports whether it was the last:
// the caller then calls p.free, holding no backend's lock.
func dropPhys(p *vmmPhys) bool {
	vmmFiles.Lock()
	defer vmmFiles.Unlock()
	p.holders--
	if p.holders > 0 {
		return false
	}
	delete(vmmFiles.m, p.key)
	return true
}

// free gives p's memory back to its device.
func (p *vmmPhys) free() {
	osClose(p.fd)
	if p.foreign {
		return
	}
	p.owner.mu.Lock()
	p.dev.used -= uint64(p.size)
	p.owner.mu.Unlock()
}

// vmmState is a backend's virtual memory, guarded by its mu.
type vmmState struct {
	ranges  map[uintptr]*vmmRange  // reserved ranges, by base
	handles map[uintptr]*vmmHandle // live allocation handles
	maps    map[uintptr]*vmmMap    // mappings, by address
	ctxs    map[*device]*context   // the context-less owner of mappings, per device
	next    uintptr                // next free address of the VMM space (0: its base)
}

type vmmRange struct {
	base, size uintptr
	shadow     []byte // the host range the mappings are views into
	mapped     int    // mappings in it
}

type vmmHandle struct {
	h    uintptr
	phys *vmmPhys
	refs int // creations, retains and imports not yet released
}

type vmmMap struct {
	a      *alloc
	r      *vmmRange
	phys   *vmmPhys
	offset uintptr
	access map[int32]backend.MemAccessFlags // by device ordinal
}

// endPhys frees the physical allocations whose last holder went, once the
// caller let go of b.mu.
func endPhys(gone []*vmmPhys) {
	for _, p := range gone {
		p.free()
	}
}

// checkPropLocked checks an allocation's properties as cuMemCreate does.
func (b *fakeBackend) checkPropLocked(prop backend.MemAllocationProp) (*device, error) {
	if prop.Type != backend.MemAllocationTypePinned || prop.Location.Type != backend.MemLocationDevice || prop.CompressionType > 1 {
		return nil, driver.ErrInvalidValue
	}
	d, err := b.dev(int(prop.Location.ID))
	if err != nil {
		return nil, err
	}
	if prop.RequestedHandleTypes&^backend.MemHandlePOSIXFileDescriptor != 0 {
		return nil, driver.ErrNotSupported // Windows handles, fabric handles
	}
	return d, nil
}

// vmmErr is the error of a virtual memory entry point that entered with
// err: err, or ErrNotSupported where the fake has no virtual memory
// (vmm_os_other.go).
func vmmErr(err error) error {
	if err != nil {
		return err
	}
	return driver.ErrNotSupported
}

// MemGetAllocationGranularity is cuMemGetAllocationGranularity: 2 MiB for
// both options, as on the H200.
func (b *fakeBackend) MemGetAllocationGranularity(prop backend.MemAllocationProp, option backend.MemGranularity) (uintptr, error) {
	if err := b.enter(abi.CuMemGetAllocationGranularity); err != nil || !vmmSupported {
		err = vmmErr(err)
		return 0, err
	}
	if option != backend.MemGranularityMinimum && option != backend.MemGranularityRecommended {
		return 0, driver.ErrInvalidValue
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	if _, err := b.checkPropLocked(prop); err != nil {
		return 0, err
	}
	return vmmGranularity, nil
}

// MemAddressReserve is cuMemAddressReserve: size (a multiple of the
// granularity) bytes of address space aligned to alignment (a power of
// two; 0 or less than the granularity: the granularity), at addr when that
// is aligned and free, else anywhere. No memory is taken.
func (b *fakeBackend) MemAddressReserve(size, alignment, addr uintptr, flags uint64) (uintptr, error) {
	if err := b.enter(abi.CuMemAddressReserve); err != nil || !vmmSupported {
		err = vmmErr(err)
		return 0, err
	}
	if flags != 0 || size == 0 || size%vmmGranularity != 0 || alignment&(alignment-1) != 0 {
		return 0, driver.ErrInvalidValue
	}
	alignment = max(alignment, vmmGranularity)
	b.mu.Lock()
	defer b.mu.Unlock()
	st := &b.vmm
	if st.next == 0 {
		st.next = vmmSpaceBase
	}
	const end = vmmSpaceBase + vmmSpaceSize
	fits := func(base uintptr) bool { return base >= vmmSpaceBase && base <= end && size <= end-base }
	base := uintptr(0)
	if addr != 0 && addr%alignment == 0 && fits(addr) && !b.vmmOverlapsLocked(addr, size) {
		base = addr
	} else {
		base = (st.next + alignment - 1) &^ (alignment - 1)
		if base < st.next || !fits(base) {
			return 0, driver.ErrOutOfMemory
		}
	}
	shadow, err := osReserve(size)
	if err != nil {
		return 0, driver.ErrOutOfMemory
	}
	if base+size > st.next {
		st.next = min(base+size+allocGap, end)
	}
	if st.ranges == nil {
		st.ranges = map[uintptr]*vmmRange{}
	}
	st.ranges[base] = &vmmRange{base: base, size: size, shadow: shadow}
	return base, nil
}

// vmmOverlapsLocked reports whether [base, base+size) meets a reserved
// range.
func (b *fakeBackend) vmmOverlapsLocked(base, size uintptr) bool {
	for _, r := range b.vmm.ranges {
		if base < r.base+r.size && r.base < base+size {
			return true
		}
	}
	return false
}

// rangeOfLocked returns the reserved range holding p, or nil.
func (b *fakeBackend) rangeOfLocked(p uintptr) *vmmRange {
	for _, r := range b.vmm.ranges {
		if p >= r.base && p-r.base < r.size {
			return r
		}
	}
	return nil
}

// MemAddressFree is cuMemAddressFree: the whole range, by its base and
// size, with nothing mapped in it (ErrInvalidValue otherwise, and the
// range stays).
func (b *fakeBackend) MemAddressFree(ptr, size uintptr) error {
	if err := b.enter(abi.CuMemAddressFree); err != nil || !vmmSupported {
		err = vmmErr(err)
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	r := b.vmm.ranges[ptr]
	if r == nil || r.size != size || r.mapped > 0 {
		return driver.ErrInvalidValue
	}
	if err := osRelease(r.shadow); err != nil {
		return driver.ErrInvalidValue
	}
	delete(b.vmm.ranges, ptr)
	return nil
}

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
	for _, hd := range b.vmm.handles {
		if hd.phys == p {
			return hd
		}
	}
	return nil
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

// MemExportToShareableHandle is cuMemExportToShareableHandle for a POSIX
// file descriptor: a new descriptor of the allocation's memfd, the
// caller's to close. The allocation must have asked for that handle type.
func (b *fakeBackend) MemExportToShareableHandle(handle uintptr, typ backend.MemHandleType, flags uint64) (int, error) {
	if err := b.enter(abi.CuMemExportToShareableHandle); err != nil || !vmmSupported {
		err = vmmErr(err)
		return -1, err
	}
	if typ != backend.MemHandlePOSIXFileDescriptor {
		return -1, driver.ErrNotSupported
	}
	if flags != 0 {
		return -1, driver.ErrInvalidValue
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	hd := b.vmm.handles[handle]
	if hd == nil || hd.phys.prop.RequestedHandleTypes&typ == 0 {
		return -1, driver.ErrInvalidValue
	}
	fd, err := osDup(hd.phys.fd)
	if err != nil {
		return -1, driver.ErrOutOfMemory
	}
	return fd, nil
}

// MemImportFromShareableHandle is cuMemImportFromShareableHandle of a
// descriptor exported by any fake backend of this process (the file is
// recognised, whichever descriptor of it is given), or by a fake of
// another process (its memfd names the device and handle types: see
// osForeignPhys); anything else is ErrInvalidValue. The handle is b's
// handle of that allocation, with one reference more.
func (b *fakeBackend) MemImportFromShareableHandle(fd int, typ backend.MemHandleType) (uintptr, error) {
	if err := b.enter(abi.CuMemImportFromShareableHandle); err != nil || !vmmSupported {
		err = vmmErr(err)
		return 0, err
	}
	if typ != backend.MemHandlePOSIXFileDescriptor {
		return 0, driver.ErrNotSupported
	}
	if fd < 0 {
		return 0, driver.ErrInvalidValue
	}
	key, _, err := osFileKey(fd)
	if err != nil {
		return 0, driver.ErrInvalidValue
	}
	vmmFiles.Lock()
	p := vmmFiles.m[key]
	if p != nil {
		p.holders++ // held while b looks at it
	}
	vmmFiles.Unlock()
	if p == nil {
		if p, err = b.adoptForeign(fd, key); err != nil {
			return 0, err
		}
	}
	var gone []*vmmPhys
	b.mu.Lock()
	defer func() {
		// The lookup's hold goes after the handle's was taken.
		if dropPhys(p) {
			gone = append(gone, p)
		}
		b.mu.Unlock()
		endPhys(gone)
	}()
	if _, err := b.dev(int(p.prop.Location.ID)); err != nil {
		return 0, err
	}
	return b.retainLocked(p), nil
}

// adoptForeign makes the physical allocation of a memfd that a fake of
// another process made and exported, registered and held once (for the
// caller to drop).
func (b *fakeBackend) adoptForeign(fd int, key vmmFileKey) (*vmmPhys, error) {
	dev, types, ok := osForeignPhys(fd)
	if !ok {
		return nil, driver.ErrInvalidValue
	}
	_, size, err := osFileKey(fd)
	if err != nil || size == 0 || size%vmmGranularity != 0 {
		return nil, driver.ErrInvalidValue
	}
	d, err := b.dev(int(dev))
	if err != nil {
		return nil, err
	}
	own, err := osDup(fd)
	if err != nil {
		return nil, driver.ErrOutOfMemory
	}
	prop := backend.MemAllocationProp{Type: backend.MemAllocationTypePinned, RequestedHandleTypes: backend.MemHandleType(types),
		Location: backend.MemLocation{Type: backend.MemLocationDevice, ID: dev}}
	p := &vmmPhys{fd: own, key: key, size: size, prop: prop, owner: b, dev: d, holders: 1, foreign: true}
	vmmFiles.Lock()
	defer vmmFiles.Unlock()
	if q := vmmFiles.m[key]; q != nil { // adopted meanwhile by another backend
		osClose(own)
		q.holders++
		return q, nil
	}
	if vmmFiles.m == nil {
		vmmFiles.m = map[vmmFileKey]*vmmPhys{}
	}
	vmmFiles.m[key] = p
	return p, nil
}

// Ranks of the fake's virtual memory leaks in Leaks, after the pools.
const (
	leakRankRange   = 12
	leakRankMapping = 13
	leakRankHandle  = 14
)

// vmmLeaksLocked lists the reserved ranges not freed, the mappings not
// unmapped and the allocation handles not released.
func (b *fakeBackend) vmmLeaksLocked(add func(rank int, l Leak)) {
	for _, r := range b.vmm.ranges {
		add(leakRankRange, Leak{Kind: backend.LeakAddressRange, Handle: r.base, Size: r.size,
			Detail: fmt.Sprintf("%d bytes reserved, %d mappings in it: not freed", r.size, r.mapped)})
	}
	for _, m := range b.vmm.maps {
		add(leakRankMapping, Leak{Kind: backend.LeakMapping, Handle: m.a.base, Size: m.a.size, Device: m.a.dev.ordinal,
			Detail: fmt.Sprintf("%d bytes of device %d's memory: not unmapped", m.a.size, m.a.dev.ordinal)})
	}
	for _, hd := range b.vmm.handles {
		add(leakRankHandle, Leak{Kind: backend.LeakPhysicalMemory, Handle: hd.h, Size: hd.phys.size,
			Device: int(hd.phys.prop.Location.ID), Refs: hd.refs,
			Detail: fmt.Sprintf("%d bytes on device %d, %d references not released", hd.phys.size, hd.phys.prop.Location.ID, hd.refs)})
	}
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

var _ backend.VirtualMemory = (*fakeBackend)(nil)
