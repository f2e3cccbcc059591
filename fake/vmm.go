package fake

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/vmm"
	"github.com/nocgo/cuda/internal/core"
)

// Virtual memory management is a room of its own (fake/internal/vmm): the
// reserved ranges, the allocation handles and the mappings. The core keeps
// each mapping in its memory table (an alloc of kind vmmMapping, with a
// mappingView), where copies, memsets, kernels and pointer attributes find
// it; the room reaches the core through vmmCore, and its own methods are
// backend.VirtualMemory's entry points (vmmRoom, embedded in fakeBackend).

// vmmMapping is the allocKind of a cuMemMap mapping.
const vmmMapping allocKind = 16

// mappingView is what the memory table keeps of a mapping: the reserved
// range whose host bytes it views (a copy runs on into the next mapping of
// the same range), and what its pointer attributes answer.
type mappingView struct {
	rangeBase   uintptr
	shadow      []byte
	handleTypes backend.MemHandleType
	access      map[int32]backend.MemAccessFlags // by device ordinal
}

// vmmRoom is the virtual memory room, embedded in fakeBackend: its methods
// are backend.VirtualMemory's entry points (see vmm.Room for what each
// does).
type vmmRoom = vmm.Room

// vmmCore is the core as the virtual memory room sees it (vmm.Core).
type vmmCore struct{ b *fakeBackend }

func (c vmmCore) Enter(op string) error { return c.b.enter(op) }

func (c vmmCore) CheckDevice(ordinal int) error {
	_, err := c.b.dev(ordinal)
	return err
}

func (c vmmCore) Reserve(dev int, size uintptr) error {
	d, err := c.b.dev(dev)
	if err != nil {
		return err
	}
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	if uint64(size) > d.total-d.used || size > maxStorage {
		return driver.ErrOutOfMemory
	}
	d.used += uint64(size)
	return nil
}

func (c vmmCore) Unreserve(dev int, size uintptr) {
	d, err := c.b.dev(dev)
	if err != nil {
		return
	}
	c.b.mu.Lock()
	d.used -= uint64(size)
	c.b.mu.Unlock()
}

func (c vmmCore) Map(m vmm.Mapping) {
	b := c.b
	b.mu.Lock()
	defer b.mu.Unlock()
	d := b.devs[m.Device]
	b.insertLocked(&alloc{base: m.Base, size: m.Size, kind: vmmMapping, dev: d, ctx: b.vmmContextLocked(d),
		mapping: &mappingView{rangeBase: m.Range, shadow: m.Shadow, handleTypes: m.HandleTypes}})
}

func (c vmmCore) SetAccess(base uintptr, data []byte, access map[int32]backend.MemAccessFlags) {
	b := c.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if a := b.findLocked(base); a != nil && a.kind == vmmMapping && a.base == base {
		a.data = data
		a.mapping.access = access
	}
}

func (c vmmCore) Unmap(base uintptr) {
	b := c.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if a := b.findLocked(base); a != nil && a.kind == vmmMapping && a.base == base {
		b.removeLocked(a)
	}
}

// Quiesce takes the execution lock, runs all work queued in every live
// context, and runs fn before any more runs.
func (c vmmCore) Quiesce(fn func() error) error {
	b := c.b
	b.mu.RLock()
	var ctxs []*context
	for _, c := range b.ctxs {
		if !c.dead {
			ctxs = append(ctxs, c)
		}
	}
	b.mu.RUnlock()
	if err := b.lockExec(); err != nil {
		return err
	}
	defer b.unlockExec()
	for _, c := range ctxs {
		if err := b.drainContext(c); err != nil {
			return err
		}
	}
	return fn()
}

func (vmmCore) NewHandle() uintptr { return newHandle() }

// vmmContextLocked is the owner of d's mappings in the allocation table: a
// context of handle 0 that no call names (mappings belong to no context,
// and cuPointerGetAttribute(CONTEXT) is 0 for them).
func (b *fakeBackend) vmmContextLocked(d *device) *context {
	if b.vmmCtxs == nil {
		b.vmmCtxs = map[*device]*context{}
	}
	c := b.vmmCtxs[d]
	if c == nil {
		c = &context{dev: d}
		b.vmmCtxs[d] = c
	}
	return c
}

// vmmSpanLocked is spanLocked for memory that starts in the mapping a:
// n bytes at p, through the following mappings of the same range when
// they follow with no hole, all with access granted.
func (b *fakeBackend) vmmSpanLocked(a *alloc, p, n uintptr) ([]byte, error) {
	m := a.mapping
	if a.data == nil || n > ^uintptr(0)-p {
		return nil, driver.ErrInvalidValue
	}
	for cur := a; cur.end() < p+n; {
		next := b.findLocked(cur.end())
		if next == nil || next.base != cur.end() || next.kind != vmmMapping || next.mapping.rangeBase != m.rangeBase || next.data == nil {
			return nil, driver.ErrInvalidValue
		}
		cur = next
	}
	off := p - m.rangeBase
	return m.shadow[off : off+n : off+n], nil
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
	switch attr {
	case 14: // CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES
		return uint64(a.mapping.handleTypes), true
	case 16: // CU_POINTER_ATTRIBUTE_ACCESS_FLAGS
		c, err := b.currentLocked(core.ThreadID())
		if err != nil {
			return uint64(backend.MemAccessNone), true
		}
		return uint64(a.mapping.access[int32(c.dev.ordinal)]), true
	}
	return 0, false
}

var _ backend.VirtualMemory = (*fakeBackend)(nil)
