package memory

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// Mapping is [PhysicalMemory] put at addresses of an [AddressRange]
// (cuMemMap), made by [AddressRange.Map]. A new mapping cannot be used by
// anything, on any device, until [Mapping.SetAccess] grants access (a kernel that
// touches it faults with CUDA_ERROR_ILLEGAL_ADDRESS; copies fail). Its
// memory is reached through [MappedBuffer], whose buffers are views that
// never free anything and stop working (driver.ErrClosed) once the
// mapping is closed.
//
// The caller owns the mapping: Close unmaps it (cuMemUnmap). It holds the
// context of its PhysicalMemory until Close; the AddressRange cannot be
// closed before it. Methods are safe for concurrent use, except Close
// with other calls.
type Mapping struct {
	r       *AddressRange
	phys    string // the PhysicalMemory's description, for String
	vm      backend.VirtualMemory
	a       *allocation // kindMapped: the memory the views see; a.hold is the mapping's
	ptr     uintptr
	size    uintptr
	physOff uintptr
}

// Map maps size bytes of p, from physOffset, at offset bytes into r
// (cuMemMap), and returns the Mapping; it has no access yet (see
// SetAccess). The driver maps whole allocations only: physOffset must be
// 0 and size p's size (an error wrapping driver.ErrNotSupported
// otherwise, as the driver answers). offset and size are multiples of the granularity
// (size positive), the mapping lies inside r and inside p, and no other
// open mapping of r overlaps it: all checked before the driver call. p may
// be mapped several times, in r or other ranges: all its mappings show
// the same bytes. p and r must be of the same *driver.Driver; p may be
// closed right after Map (the mapping keeps its memory).
func (r *AddressRange) Map(offset int, p *PhysicalMemory, physOffset, size int) (*Mapping, error) {
	const op = "memory.AddressRange.Map"
	if err := r.check(op); err != nil {
		return nil, err
	}
	if err := p.check(op); err != nil {
		return nil, err
	}
	if err := sameDriver(op, r.ctx, p.ctx, p.String()); err != nil {
		return nil, err
	}
	g := max(r.g, p.g)
	off, err := vmSize("offset", offset, g, false)
	if err == nil {
		_, err = vmSize("size", size, g, true)
	}
	var poff uintptr
	if err == nil {
		poff, err = vmSize("physical offset", physOffset, g, false)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	n := uintptr(size)
	if off > r.size || n > r.size-off {
		return nil, fmt.Errorf("%s: [%d, %d) is outside %s: %w", op, off, off+n, r, driver.ErrInvalidInput)
	}
	if poff > p.size || n > p.size-poff {
		return nil, fmt.Errorf("%s: bytes [%d, %d) are outside %s: %w", op, poff, poff+n, p, driver.ErrInvalidInput)
	}
	if poff != 0 || n != p.size {
		return nil, fmt.Errorf("%s: bytes [%d, %d) of %s: the driver maps whole allocations only: %w", op, poff, poff+n, p, driver.ErrNotSupported)
	}
	ptr := r.base + off
	// r.mu orders the overlap check with other Maps and with r.Close
	// (taken first, as Close does: Close waits for r's users holding it);
	// r and p stay open for the call.
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.hold.Use(r); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	defer r.hold.Unuse()
	if err := p.hold.Use(p); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	defer p.hold.Unuse()
	for _, m := range r.maps {
		if ptr < m.ptr+m.size && m.ptr < ptr+n {
			return nil, fmt.Errorf("%s: [%#x, %#x) overlaps %s: %w", op, ptr, ptr+n, m, driver.ErrInvalidInput)
		}
	}
	c, err := core.Of(op, p.ctx)
	if err != nil {
		return nil, err
	}
	h, err := c.Hold()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	mapped := false
	err = h.Do(func(backend.API) error {
		if e := r.vm.MemMap(ptr, n, poff, p.h, 0); e != nil {
			return fmt.Errorf("cuMemMap(%#x, %d bytes of %s from %d): %w", ptr, n, p, poff, e)
		}
		mapped = true
		return nil
	})
	if err != nil {
		if mapped {
			err = h.Undo(err, func(backend.API) error { return r.vm.MemUnmap(ptr, n) })
		}
		return nil, h.Drop(fmt.Errorf("%s: %w", op, err))
	}
	m := &Mapping{r: r, phys: p.String(), vm: r.vm, ptr: ptr, size: n, physOff: poff,
		a: &allocation{ctx: p.ctx, hold: h, kind: kindMapped, base: ptr, size: n}}
	r.maps = append(r.maps, m)
	return m, nil
}

// Ptr returns the mapping's first address, or 0 once closed.
func (m *Mapping) Ptr() uintptr {
	if m == nil || m.a == nil || m.a.freed.Load() {
		return 0
	}
	return m.ptr
}

// Size returns the mapping's size in bytes.
func (m *Mapping) Size() int {
	if m == nil {
		return 0
	}
	return int(m.size)
}

// Range returns the AddressRange the mapping is in.
func (m *Mapping) Range() *AddressRange {
	if m == nil {
		return nil
	}
	return m.r
}

// String describes the mapping, for errors and logs.
func (m *Mapping) String() string {
	if m == nil || m.a == nil {
		return "nil mapping"
	}
	s := fmt.Sprintf("mapping [%#x, %#x) of %s from byte %d", m.ptr, m.ptr+m.size, m.phys, m.physOff)
	if m.a.freed.Load() {
		s = "closed " + s
	}
	return s
}

// do runs call with the mapping's context bound, for op.
func (m *Mapping) do(op string, call func() error) error {
	if m == nil || m.a == nil {
		return fmt.Errorf("%s: nil mapping: %w", op, driver.ErrInvalidInput)
	}
	if m.a.freed.Load() {
		return fmt.Errorf("%s: %s: %w", op, m, driver.ErrClosed)
	}
	if err := m.a.hold.Do(func(backend.API) error { return call() }); err != nil {
		return fmt.Errorf("%s: %s: %w", op, m, err)
	}
	return nil
}

// accessDevice checks a device given to SetAccess or Access.
func (m *Mapping) accessDevice(op string, dev *driver.Device) error {
	if dev == nil || dev.Driver() == nil {
		return fmt.Errorf("%s: nil or zero device: %w", op, driver.ErrInvalidInput)
	}
	if m != nil && m.a != nil && dev.Driver() != m.a.ctx.Driver() {
		return fmt.Errorf("%s: device %d belongs to another *driver.Driver: %w", op, dev.Ordinal(), driver.ErrWrongContext)
	}
	return nil
}

func deviceLocation(dev *driver.Device) backend.MemLocation {
	return backend.MemLocation{Type: backend.MemLocationDevice, ID: int32(dev.Ordinal())}
}

// SetAccess sets what dev may do with the mapping's memory
// (cuMemSetAccess): AccessReadWrite, AccessRead or AccessNone. Nothing
// can use a mapping before access is set, not even the device the memory
// is on; another device needs peer access to it (Device.CanAccessPeer).
func (m *Mapping) SetAccess(dev *driver.Device, a Access) error {
	const op = "memory.Mapping.SetAccess"
	if err := m.accessDevice(op, dev); err != nil {
		return err
	}
	if a != AccessNone && a != AccessRead && a != AccessReadWrite {
		return fmt.Errorf("%s: access %s: want AccessNone, AccessRead or AccessReadWrite: %w", op, a, driver.ErrInvalidInput)
	}
	desc := []backend.MemAccessDesc{{Location: deviceLocation(dev), Flags: backend.MemAccessFlags(a)}}
	return m.do(op, func() error {
		if r := m.vm.MemSetAccess(m.ptr, m.size, desc); r != nil {
			return fmt.Errorf("cuMemSetAccess(device %d, %s): %w", dev.Ordinal(), a, r)
		}
		return nil
	})
}

// Access returns what dev may do with the mapping's memory
// (cuMemGetAccess).
func (m *Mapping) Access(dev *driver.Device) (Access, error) {
	const op = "memory.Mapping.Access"
	if err := m.accessDevice(op, dev); err != nil {
		return 0, err
	}
	var a Access
	err := m.do(op, func() error {
		f, r := m.vm.MemGetAccess(deviceLocation(dev), m.ptr)
		if r != nil {
			return fmt.Errorf("cuMemGetAccess(device %d): %w", dev.Ordinal(), r)
		}
		a = Access(f)
		return nil
	})
	return a, err
}

// Close unmaps the mapping (cuMemUnmap, which waits for the device's
// work). Its buffers (MappedBuffer) stop working, and the memory is freed
// if its PhysicalMemory was closed and no other mapping shows it. A
// second Close is a no-op returning nil; if the driver refuses, the error
// is returned and the mapping stays, so that Close can be retried.
func (m *Mapping) Close() error {
	const op = "memory.Mapping.Close"
	if m == nil || m.a == nil {
		return fmt.Errorf("%s: nil mapping: %w", op, driver.ErrInvalidInput)
	}
	// Before the lock: a Close in progress elsewhere may hold it while
	// cuMemUnmap waits for the very callback calling this one.
	if core.InCallback() {
		return fmt.Errorf("%s: %s: %w", op, m, core.ErrInCallback)
	}
	a := m.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.freed.Load() {
		return nil
	}
	desc := m.String()
	var uerr error
	err := a.hold.Close(func(backend.API) error {
		uerr = a.release(func() error { return m.vm.MemUnmap(m.ptr, m.size) }, "cuMemUnmap")
		return uerr
	})
	if a.hold.Closed() {
		a.freed.Store(true)
		m.r.forget(m, uerr)
	}
	return closeWith(a, uerr, err, op, desc)
}

// MappedBuffer returns the mapping's memory as a buffer of T: as many
// whole elements as fit in it. The buffer is a view: it never frees the
// memory (its Close only detaches it), and it stops working once the
// mapping is closed. Copies, fills and kernel launches take it as any
// device buffer; without access (Mapping.SetAccess) they fail as on the
// GPU.
func MappedBuffer[T any](m *Mapping) (*Buffer[T], error) {
	e := elemOf[T]()
	op := "memory.MappedBuffer[" + e.name + "]"
	if e.err != nil {
		return nil, fmt.Errorf("%s: %w", op, e.err)
	}
	if m == nil || m.a == nil {
		return nil, fmt.Errorf("%s: nil mapping: %w", op, driver.ErrInvalidInput)
	}
	if m.a.freed.Load() {
		return nil, fmt.Errorf("%s: %s: %w", op, m, driver.ErrClosed)
	}
	return viewOf[T](m.a, m.ptr, int(m.size/e.size)), nil
}

// viewOf is a view of n elements of T at ptr in a.
func viewOf[T any](a *allocation, ptr uintptr, n int) *Buffer[T] {
	return &Buffer[T]{holdLink: core.LinkHold(a.hold), a: a, ptr: ptr, n: n, view: true}
}
