//go:build linux

package libcuda

import (
	"encoding/binary"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"

	"github.com/nocgo/cuda/internal/dl"
)

// callIPCOpen calls fn(out, handle[, flags]) where handle is a
// CUipcMemHandle or CUipcEventHandle passed by value: a 64-byte struct of
// chars. The System V AMD64 ABI classifies a struct over 16 bytes as MEMORY:
// it is copied into the stack argument area, in eight 8-byte slots, while
// the following integer argument (flags) still takes the next free register
// (rsi). dl.Call14 places arguments 7 and on in the stack area in
// order, so the handle goes there, after four unused register slots.
func callIPCOpen(fn uintptr, out unsafe.Pointer, h *backend.IPCHandle, flags uint32, withFlags bool) uintptr {
	var w [8]uintptr
	for i := range w {
		w[i] = uintptr(binary.LittleEndian.Uint64(h[8*i:]))
	}
	second := uintptr(0)
	if withFlags {
		second = uintptr(flags)
	}
	r := dl.Call14(fn, uintptr(out), second, 0, 0, 0, 0,
		w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7])
	return r
}
