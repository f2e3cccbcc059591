package vmm

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
)

// The fake's shareable handles: POSIX file descriptors of the memfds
// (cuMemExportToShareableHandle, cuMemImportFromShareableHandle).

// MemExportToShareableHandle is cuMemExportToShareableHandle for a POSIX
// file descriptor: a new descriptor of the allocation's memfd, the
// caller's to close. The allocation must have asked for that handle type.
func (r *Room) MemExportToShareableHandle(h uintptr, typ backend.MemHandleType, flags uint64) (int, error) {
	if err := r.enter(abi.CuMemExportToShareableHandle); err != nil {
		return -1, err
	}
	if typ != backend.MemHandlePOSIXFileDescriptor {
		return -1, driver.ErrNotSupported
	}
	if flags != 0 {
		return -1, driver.ErrInvalidValue
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	hd := r.handles[h]
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
// osForeignPhys); another file is ErrUnknown, as on driver 580. The
// handle is a new one of this backend's, as the driver's is (not the
// exporter's).
func (r *Room) MemImportFromShareableHandle(fd int, typ backend.MemHandleType) (uintptr, error) {
	if err := r.enter(abi.CuMemImportFromShareableHandle); err != nil {
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
	files.Lock()
	p := files.m[key]
	if p != nil {
		p.holders++ // held while the room looks at it
	}
	files.Unlock()
	if p == nil {
		if p, err = r.adoptForeign(fd, key); err != nil {
			return 0, err
		}
	}
	var gone []*phys
	r.mu.Lock()
	defer func() {
		// The lookup's hold goes after the handle's was taken.
		if dropPhys(p) {
			gone = append(gone, p)
		}
		r.mu.Unlock()
		endPhys(gone)
	}()
	if err := r.core.CheckDevice(int(p.prop.Location.ID)); err != nil {
		return 0, err
	}
	// A handle of its own, also in the exporting process (driver 580, H200
	// run S2: the import's handle is not the exporter's).
	holdPhys(p)
	return r.newHandle(p), nil
}

// adoptForeign makes the physical allocation of a memfd that a fake of
// another process made and exported, registered and held once (for the
// caller to drop).
func (r *Room) adoptForeign(fd int, key fileKey) (*phys, error) {
	dev, types, ok := osForeignPhys(fd)
	if !ok {
		// A file that is no exported CUDA memory: driver 580 answers
		// CUDA_ERROR_UNKNOWN (H200 run S2).
		return nil, driver.ErrUnknown
	}
	_, size, err := osFileKey(fd)
	if err != nil || size == 0 || size%Granularity != 0 {
		return nil, driver.ErrInvalidValue
	}
	if err := r.core.CheckDevice(int(dev)); err != nil {
		return nil, err
	}
	own, err := osDup(fd)
	if err != nil {
		return nil, driver.ErrOutOfMemory
	}
	prop := backend.MemAllocationProp{Type: backend.MemAllocationTypePinned, RequestedHandleTypes: backend.MemHandleType(types),
		Location: backend.MemLocation{Type: backend.MemLocationDevice, ID: dev}}
	p := &phys{fd: own, key: key, size: size, prop: prop, owner: r.core, dev: int(dev), holders: 1, foreign: true}
	files.Lock()
	defer files.Unlock()
	if q := files.m[key]; q != nil { // adopted meanwhile by another backend
		osClose(own)
		q.holders++
		return q, nil
	}
	if files.m == nil {
		files.m = map[fileKey]*phys{}
	}
	files.m[key] = p
	return p, nil
}
