package vmm

import (
	"fmt"
	"sync"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
)

// A mapping is an allocation of the core's memory table ([Mapping]) that
// copies, memsets and kernels find as any other; its bytes are nil, so
// that every access faults, until cuMemSetAccess grants one, as on the GPU
// where all mappings start with no access.

// Granularity is the minimum and recommended granularity of device
// memory, as the H200 reports for pinned device memory (2 MiB).
const Granularity = 2 << 20

// The fake's reserved virtual address ranges live in their own 16 TiB,
// below the devices' address spaces, with a gap of unmapped bytes after
// each.
const (
	spaceBase = 0x2000_0000_0000
	spaceSize = 1 << 44
	rangeGap  = 64 << 10
)

// Room is one fake backend's virtual memory. It is safe for concurrent use.
type Room struct {
	core Core
	fill byte // what fresh physical memory holds (the fake's poison byte)

	mu      sync.Mutex
	ranges  map[uintptr]*vrange  // reserved ranges, by base
	handles map[uintptr]*handle  // live allocation handles
	maps    map[uintptr]*mapping // mappings, by address
	next    uintptr              // next free address of the VMM space (0: its base)
}

// New returns the virtual memory of a backend whose core is core; fresh
// physical memory is filled with the byte fill.
func New(core Core, fill byte) *Room {
	return &Room{core: core, fill: fill,
		ranges: map[uintptr]*vrange{}, handles: map[uintptr]*handle{}, maps: map[uintptr]*mapping{}}
}

// vrange is a reserved address range.
type vrange struct {
	base, size uintptr
	shadow     []byte // the host range the mappings are views into
	mapped     int    // mappings in it
}

// handle is an allocation handle of this backend.
type handle struct {
	h    uintptr
	phys *phys
	refs int // creations, retains and imports not yet released
}

// mapping is a cuMemMap mapping, in the core's memory table at base.
type mapping struct {
	base, size uintptr
	r          *vrange
	phys       *phys
	offset     uintptr
	access     map[int32]backend.MemAccessFlags // by device ordinal
}

func (m *mapping) end() uintptr { return m.base + m.size }

// checkProp checks an allocation's properties as cuMemCreate does.
func (r *Room) checkProp(prop backend.MemAllocationProp) error {
	if prop.Type != backend.MemAllocationTypePinned || prop.Location.Type != backend.MemLocationDevice || prop.CompressionType > 1 {
		return driver.ErrInvalidValue
	}
	if err := r.core.CheckDevice(int(prop.Location.ID)); err != nil {
		return err
	}
	if prop.RequestedHandleTypes&^backend.MemHandlePOSIXFileDescriptor != 0 {
		return driver.ErrNotSupported // Windows handles, fabric handles
	}
	return nil
}

// enter is the prologue of every entry point: the core's, and
// ErrNotSupported where the fake has no virtual memory (os_other.go).
func (r *Room) enter(op string) error {
	if err := r.core.Enter(op); err != nil {
		return err
	}
	if !Supported {
		return driver.ErrNotSupported
	}
	return nil
}

// MemGetAllocationGranularity is cuMemGetAllocationGranularity: 2 MiB for
// both options, as on the H200.
func (r *Room) MemGetAllocationGranularity(prop backend.MemAllocationProp, option backend.MemGranularity) (uintptr, error) {
	if err := r.enter(abi.CuMemGetAllocationGranularity); err != nil {
		return 0, err
	}
	if option != backend.MemGranularityMinimum && option != backend.MemGranularityRecommended {
		return 0, driver.ErrInvalidValue
	}
	if err := r.checkProp(prop); err != nil {
		return 0, err
	}
	return Granularity, nil
}

// Leaks lists the reserved ranges not freed, the mappings not unmapped and
// the allocation handles not released.
func (r *Room) Leaks() (ranges, mappings, handles []backend.Leak) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range r.ranges {
		ranges = append(ranges, backend.Leak{Kind: backend.LeakAddressRange, Handle: v.base, Size: v.size,
			Detail: fmt.Sprintf("%d bytes reserved, %d mappings in it: not freed", v.size, v.mapped)})
	}
	for _, m := range r.maps {
		dev := int(m.phys.prop.Location.ID)
		mappings = append(mappings, backend.Leak{Kind: backend.LeakMapping, Handle: m.base, Size: m.size, Device: dev,
			Detail: fmt.Sprintf("%d bytes of device %d's memory: not unmapped", m.size, dev)})
	}
	for _, hd := range r.handles {
		handles = append(handles, backend.Leak{Kind: backend.LeakPhysicalMemory, Handle: hd.h, Size: hd.phys.size,
			Device: int(hd.phys.prop.Location.ID), Refs: hd.refs,
			Detail: fmt.Sprintf("%d bytes on device %d, %d references not released", hd.phys.size, hd.phys.prop.Location.ID, hd.refs)})
	}
	return ranges, mappings, handles
}

var _ backend.VirtualMemory = (*Room)(nil)
