package fake

import (
	"sync"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
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

var _ backend.VirtualMemory = (*fakeBackend)(nil)
