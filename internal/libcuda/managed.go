//go:build linux && (amd64 || arm64)

package libcuda

import "github.com/nocgo/cuda/driver/backend"

// The methods of backend.ManagedMemory are generated from entrypoints.txt
// (zz_generated.go). cuMemPrefetchAsync and cuMemAdvise are called with the
// CUmemLocation ABI their base names have from CUDA 13.0 on
// (cuMemPrefetchAsync_v2 and cuMemAdvise_v2 in 12.2 to 12.9): older
// drivers give the old ABI for the base names, so they get a SymbolError
// (strict in the table).

// locationArg passes a CUmemLocation by value: an 8-byte struct of two
// 32-bit ints travels in one integer register on amd64 (System V: one
// INTEGER eightbyte) and on arm64 (AAPCS64: a composite of at most 16
// bytes in general registers), type in the low half, id in the high half
// (little-endian memory order, as the struct is laid out).
func locationArg(l backend.MemLocation) uintptr {
	return uintptr(uint32(l.Type)) | uintptr(uint32(l.ID))<<32
}

var _ backend.ManagedMemory = (*libcuda)(nil)
