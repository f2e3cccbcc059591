//go:build linux && (amd64 || arm64)

package libcuda

import (
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
)

// The IPC open calls take a 64-byte handle by value, which the calling
// conventions pass differently (callIPCOpen, per architecture).

// IPCOpenEventHandle is cuIpcOpenEventHandle(CUevent*, CUipcEventHandle),
// the 64-byte handle passed by value (see callIPCOpen).
func (l *libcuda) IPCOpenEventHandle(h backend.IPCHandle) (uintptr, error) {
	proc, err := l.fn(symIpcOpenEventHandle)
	if err != nil {
		return 0, err
	}
	var ev uintptr
	res := callIPCOpen(proc, unsafe.Pointer(&ev), &h, 0, false)
	return ev, check(res)
}

// IPCOpenMemHandle is cuIpcOpenMemHandle_v2(CUdeviceptr*, CUipcMemHandle,
// unsigned int flags), the 64-byte handle passed by value (see callIPCOpen).
func (l *libcuda) IPCOpenMemHandle(h backend.IPCHandle, flags uint32) (uintptr, error) {
	proc, err := l.fn(symIpcOpenMemHandle)
	if err != nil {
		return 0, err
	}
	var d uintptr
	res := callIPCOpen(proc, unsafe.Pointer(&d), &h, flags, true)
	return d, check(res)
}
