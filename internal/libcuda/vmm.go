//go:build linux && (amd64 || arm64)

package libcuda

import (
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/dl"
)

// The hand-written methods of backend.VirtualMemory and the C layout they
// pass; cuMemAddressReserve, cuMemAddressFree and cuMemUnmap are generated
// from entrypoints.txt (zz_generated.go).

// cMemAllocationProp is CUmemAllocationProp (cuda.h 10.2 to 13.0; cudarc's
// sys bindings agree): {CUmemAllocationType type; CUmemAllocationHandleType
// requestedHandleTypes; CUmemLocation location; void *win32HandleMetaData;
// struct {unsigned char compressionType; unsigned char
// gpuDirectRDMACapable; unsigned short usage; unsigned char reserved[4];}
// allocFlags;}: type at 0, requestedHandleTypes at 4, location at 8,
// win32HandleMetaData at 16, compressionType at 24, gpuDirectRDMACapable
// at 25, usage at 26, reserved at 28; 32 bytes. Before 11.0 allocFlags was
// reserved and had to be 0, which zero flags give.
type cMemAllocationProp struct {
	typ                  uint32
	requestedHandleTypes uint32
	location             cMemLocation
	win32HandleMetaData  uintptr
	compressionType      uint8
	gpuDirectRDMACapable uint8
	usage                uint16
	reserved             [4]byte
}

// The layout, checked at compile time: a wrong size or offset fails the
// build (vmm_layout_test.go says which).
var (
	_ [32 - unsafe.Sizeof(cMemAllocationProp{})]byte
	_ [unsafe.Sizeof(cMemAllocationProp{}) - 32]byte
	_ [16 - unsafe.Offsetof(cMemAllocationProp{}.win32HandleMetaData)]byte
	_ [unsafe.Offsetof(cMemAllocationProp{}.win32HandleMetaData) - 16]byte
	_ [26 - unsafe.Offsetof(cMemAllocationProp{}.usage)]byte
	_ [unsafe.Offsetof(cMemAllocationProp{}.usage) - 26]byte
)

func cAllocationProp(p backend.MemAllocationProp) cMemAllocationProp {
	return cMemAllocationProp{
		typ:                  p.Type,
		requestedHandleTypes: uint32(p.RequestedHandleTypes),
		location:             cLocation(p.Location),
		compressionType:      p.CompressionType,
		gpuDirectRDMACapable: p.GPUDirectRDMACapable,
		usage:                p.Usage,
	}
}

func goAllocationProp(c cMemAllocationProp) backend.MemAllocationProp {
	return backend.MemAllocationProp{
		Type:                 c.typ,
		RequestedHandleTypes: backend.MemHandleType(c.requestedHandleTypes),
		Location:             backend.MemLocation{Type: backend.MemLocationType(c.location.typ), ID: c.location.id},
		CompressionType:      c.compressionType,
		GPUDirectRDMACapable: c.gpuDirectRDMACapable,
		Usage:                c.usage,
	}
}

// MemGetAllocationGranularity is cuMemGetAllocationGranularity(size_t
// *granularity, const CUmemAllocationProp *prop,
// CUmemAllocationGranularity_flags option).
func (l *libcuda) MemGetAllocationGranularity(prop backend.MemAllocationProp, option backend.MemGranularity) (uintptr, error) {
	p, err := l.fn(symMemGetAllocationGranularity)
	if err != nil {
		return 0, err
	}
	c := cAllocationProp(prop)
	var g uintptr
	r := dl.Call3(p, uintptr(unsafe.Pointer(&g)), uintptr(unsafe.Pointer(&c)), uintptr(uint32(option)))
	return g, check(r)
}

// MemCreate is cuMemCreate(CUmemGenericAllocationHandle *handle, size_t
// size, const CUmemAllocationProp *prop, unsigned long long flags).
func (l *libcuda) MemCreate(size uintptr, prop backend.MemAllocationProp, flags uint64) (uintptr, error) {
	p, err := l.fn(symMemCreate)
	if err != nil {
		return 0, err
	}
	c := cAllocationProp(prop)
	var h uint64
	r := dl.Call4(p, uintptr(unsafe.Pointer(&h)), size, uintptr(unsafe.Pointer(&c)), uintptr(flags))
	if err := check(r); err != nil {
		return 0, err
	}
	return uintptr(h), nil
}

// MemSetAccess is cuMemSetAccess(CUdeviceptr ptr, size_t size, const
// CUmemAccessDesc *desc, size_t count).
func (l *libcuda) MemSetAccess(ptr, size uintptr, descs []backend.MemAccessDesc) error {
	if len(descs) == 0 {
		return backend.ErrInvalidValue
	}
	p, err := l.fn(symMemSetAccess)
	if err != nil {
		return err
	}
	c := make([]cMemAccessDesc, len(descs))
	for i, d := range descs {
		c[i] = cMemAccessDesc{location: cLocation(d.Location), flags: int32(d.Flags)}
	}
	return check(dl.Call4(p, ptr, size, uintptr(unsafe.Pointer(&c[0])), uintptr(len(c))))
}

// MemGetAllocationPropertiesFromHandle is
// cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
// CUmemGenericAllocationHandle handle).
func (l *libcuda) MemGetAllocationPropertiesFromHandle(handle uintptr) (backend.MemAllocationProp, error) {
	p, err := l.fn(symMemGetAllocationPropertiesFromHandle)
	if err != nil {
		return backend.MemAllocationProp{}, err
	}
	var c cMemAllocationProp
	if err := check(dl.Call2(p, uintptr(unsafe.Pointer(&c)), handle)); err != nil {
		return backend.MemAllocationProp{}, err
	}
	return goAllocationProp(c), nil
}

// MemExportToShareableHandle is cuMemExportToShareableHandle(void
// *shareableHandle, CUmemGenericAllocationHandle handle,
// CUmemAllocationHandleType handleType, unsigned long long flags): for
// CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR the driver writes an int (the
// new descriptor) at shareableHandle. Other handle types write other
// shapes (a HANDLE, a 64-byte fabric handle) and are refused here.
func (l *libcuda) MemExportToShareableHandle(handle uintptr, typ backend.MemHandleType, flags uint64) (int, error) {
	if typ != backend.MemHandlePOSIXFileDescriptor {
		return -1, backend.ErrNotSupported
	}
	p, err := l.fn(symMemExportToShareableHandle)
	if err != nil {
		return -1, err
	}
	fd := int32(-1)
	if err := check(dl.Call4(p, uintptr(unsafe.Pointer(&fd)), handle, uintptr(typ), uintptr(flags))); err != nil {
		return -1, err
	}
	return int(fd), nil
}

// MemImportFromShareableHandle is
// cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle,
// void *osHandle, CUmemAllocationHandleType shHandleType): for a POSIX
// file descriptor, osHandle is the descriptor's value itself, cast to a
// pointer ((void *)(uintptr_t)fd, as NVIDIA's memMapIPCDrv sample passes
// it), not a pointer to it.
func (l *libcuda) MemImportFromShareableHandle(fd int, typ backend.MemHandleType) (uintptr, error) {
	if typ != backend.MemHandlePOSIXFileDescriptor {
		return 0, backend.ErrNotSupported
	}
	if fd < 0 || !cInt(fd) {
		return 0, backend.ErrInvalidValue
	}
	p, err := l.fn(symMemImportFromShareableHandle)
	if err != nil {
		return 0, err
	}
	var h uint64
	if err := check(dl.Call3(p, uintptr(unsafe.Pointer(&h)), uintptr(fd), uintptr(typ))); err != nil {
		return 0, err
	}
	return uintptr(h), nil
}

var _ backend.VirtualMemory = (*libcuda)(nil)
