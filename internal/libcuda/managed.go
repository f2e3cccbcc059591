//go:build linux && (amd64 || arm64)

package libcuda

import (
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/dl"
	"github.com/nocgo/cuda/loader"
)

// MemAllocManaged is cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize,
// unsigned int flags).
func (l *libcuda) MemAllocManaged(size uintptr, flags uint32) (uintptr, error) {
	p, err := l.fn(symMemAllocManaged)
	if err != nil {
		return 0, err
	}
	var dptr uintptr
	r := dl.Call3(p, uintptr(unsafe.Pointer(&dptr)), size, uintptr(flags))
	return dptr, check(r)
}

// locationArg passes a CUmemLocation by value: an 8-byte struct of two
// 32-bit ints travels in one integer register on amd64 (System V: one
// INTEGER eightbyte) and on arm64 (AAPCS64: a composite of at most 16
// bytes in general registers), type in the low half, id in the high half
// (little-endian memory order, as the struct is laid out).
func locationArg(l backend.MemLocation) uintptr {
	return uintptr(uint32(l.Type)) | uintptr(uint32(l.ID))<<32
}

// v13 returns the entry point s, which this backend calls with the
// CUmemLocation ABI the base name has from CUDA 13.0 on: older drivers
// give the old ABI for the base name, so they get a SymbolError.
func (l *libcuda) v13(s sym) (uintptr, error) {
	if l.version > 0 && l.version < 13000 {
		return 0, &loader.SymbolError{Library: l.lib.Path(), Symbol: syms[s].name, Since: 13000, Have: l.version}
	}
	return l.fn(s)
}

// MemPrefetchAsync is cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count,
// CUmemLocation location, unsigned int flags, CUstream hStream), the CUDA
// 13.0 form (cuMemPrefetchAsync_v2 in 12.2 to 12.9), flags 0.
func (l *libcuda) MemPrefetchAsync(ptr, size uintptr, loc backend.MemLocation, s uintptr) error {
	p, err := l.v13(symMemPrefetchAsync)
	if err != nil {
		return err
	}
	return check(dl.Call5(p, ptr, size, locationArg(loc), 0, s))
}

// MemAdvise is cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise
// advice, CUmemLocation location), the CUDA 13.0 form (cuMemAdvise_v2 in
// 12.2 to 12.9).
func (l *libcuda) MemAdvise(ptr, size uintptr, advice backend.MemAdvice, loc backend.MemLocation) error {
	p, err := l.v13(symMemAdvise)
	if err != nil {
		return err
	}
	return check(dl.Call4(p, ptr, size, uintptr(advice), locationArg(loc)))
}

var _ backend.ManagedMemory = (*libcuda)(nil)
