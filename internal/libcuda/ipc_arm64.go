//go:build linux

package libcuda

import (
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"

	"github.com/nocgo/cuda/internal/dl"
)

// callIPCOpen calls fn(out, handle[, flags]) where handle is a
// CUipcMemHandle or CUipcEventHandle passed by value: a 64-byte struct of
// chars. The AAPCS64 passes a composite over 16 bytes by reference: the
// caller copies it to memory and passes the copy's address in the next
// general register; flags follows in the register after.
func callIPCOpen(fn uintptr, out unsafe.Pointer, h *backend.IPCHandle, flags uint32, withFlags bool) uintptr {
	c := new(backend.IPCHandle) // the callee may write to its copy
	*c = *h
	if withFlags {
		r := dl.Call3(fn, uintptr(out), uintptr(unsafe.Pointer(c)), uintptr(flags))
		return r
	}
	r := dl.Call2(fn, uintptr(out), uintptr(unsafe.Pointer(c)))
	return r
}
