//go:build linux && (amd64 || arm64)

package libcuda

import (
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"

	"github.com/nocgo/cuda/internal/dl"
)

// PointerGetAttribute is cuPointerGetAttribute(void *data,
// CUpointer_attribute, CUdeviceptr). The driver writes a value whose size
// depends on the attribute, so it writes into zeroed scratch of 64 bytes,
// more than any attribute value (the largest, CU_POINTER_ATTRIBUTE_P2P_TOKENS,
// is 16 bytes). 4-byte attributes (memory type, flags) read back
// zero-extended; the device ordinal, a C int, is sign-extended.
func (l *libcuda) PointerGetAttribute(attr backend.PointerAttribute, ptr uintptr) (uint64, error) {
	proc, err := l.fn(symPointerGetAttribute)
	if err != nil {
		return 0, err
	}
	var data [8]uint64
	res := dl.Call3(proc, uintptr(unsafe.Pointer(&data)), uintptr(attr), ptr)
	v := data[0]
	if attr == backend.PointerAttrDeviceOrdinal {
		v = uint64(int64(int32(uint32(data[0]))))
	}
	return v, check(res)
}
