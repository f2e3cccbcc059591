package vmm

import (
	"sync"

	"github.com/nocgo/cuda/driver/backend"
)

// fileKey names the file of a physical allocation: the same for every
// descriptor of it.
type fileKey struct{ dev, ino uint64 }

// phys is one physical allocation (cuMemCreate), shared by the backends
// that imported it; its holders are the handles of every backend that
// name it and the mappings of it, all counted under files's lock. The
// last one to go frees it.
type phys struct {
	fd      int
	key     fileKey
	size    uintptr
	prop    backend.MemAllocationProp
	owner   Core // the core of the backend whose device's memory it is
	dev     int
	holders int
	// foreign: made by a fake of another process and imported from its
	// descriptor: no device of this process counts it.
	foreign bool
}

// files finds a physical allocation from a descriptor of its file, in any
// backend of the process (the fake's kernel-level sharing, as the core's
// registry for cuIpc handles).
var files struct {
	sync.Mutex
	m map[fileKey]*phys
}

// holdPhys adds a holder to p.
func holdPhys(p *phys) {
	files.Lock()
	p.holders++
	files.Unlock()
}

// dropPhys removes a holder from p and reports whether it was the last:
// the caller then calls p.free, holding no lock.
func dropPhys(p *phys) bool {
	files.Lock()
	defer files.Unlock()
	p.holders--
	if p.holders > 0 {
		return false
	}
	delete(files.m, p.key)
	return true
}

// free gives p's memory back to its device.
func (p *phys) free() {
	osClose(p.fd)
	if p.foreign {
		return
	}
	p.owner.Unreserve(p.dev, p.size)
}

// endPhys frees the physical allocations whose last holder went, once the
// caller let go of the room's lock.
func endPhys(gone []*phys) {
	for _, p := range gone {
		p.free()
	}
}
