//go:build linux && (amd64 || arm64)

package libcuda

import (
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"

	"github.com/nocgo/cuda/internal/dl"
)

// EventCreate is cuEventCreate(CUevent*, unsigned int flags).
func (l *libcuda) EventCreate(flags uint32) (uintptr, error) {
	p, err := l.fn(symEventCreate)
	if err != nil {
		return 0, err
	}
	var ev uintptr
	r := dl.Call2(p, uintptr(unsafe.Pointer(&ev)), uintptr(flags))
	return ev, check(r)
}

// EventDestroy is cuEventDestroy_v2(CUevent).
func (l *libcuda) EventDestroy(ev uintptr) error {
	p, err := l.fn(symEventDestroy)
	if err != nil {
		return err
	}
	r := dl.Call1(p, ev)
	return check(r)
}

// EventRecord is cuEventRecord(CUevent, CUstream). It does not allocate.
func (l *libcuda) EventRecord(ev, s uintptr) error {
	p, err := l.fn(symEventRecord)
	if err != nil {
		return err
	}
	r := dl.Call2(p, ev, s)
	return check(r)
}

// EventSynchronize is cuEventSynchronize(CUevent).
func (l *libcuda) EventSynchronize(ev uintptr) error {
	p, err := l.fn(symEventSynchronize)
	if err != nil {
		return err
	}
	r := dl.Call1(p, ev)
	return check(r)
}

// EventQuery is cuEventQuery(CUevent). It does not allocate.
func (l *libcuda) EventQuery(ev uintptr) error {
	p, err := l.fn(symEventQuery)
	if err != nil {
		return err
	}
	r := dl.Call1(p, ev)
	return check(r)
}

// EventElapsedTime is cuEventElapsedTime(float *ms, CUevent, CUevent); the
// float comes back through memory, never a float register.
func (l *libcuda) EventElapsedTime(start, end uintptr) (float32, error) {
	p, err := l.fn(symEventElapsedTime)
	if err != nil {
		return 0, err
	}
	var ms float32
	r := dl.Call3(p, uintptr(unsafe.Pointer(&ms)), start, end)
	return ms, check(r)
}

// IPCGetEventHandle is cuIpcGetEventHandle(CUipcEventHandle*, CUevent).
func (l *libcuda) IPCGetEventHandle(ev uintptr) (backend.IPCHandle, error) {
	var h backend.IPCHandle
	p, err := l.fn(symIpcGetEventHandle)
	if err != nil {
		return h, err
	}
	r := dl.Call2(p, uintptr(unsafe.Pointer(&h[0])), ev)
	return h, check(r)
}

// IPCOpenEventHandle is cuIpcOpenEventHandle(CUevent*, CUipcEventHandle),
// the 64-byte handle passed by value (see callIPCOpen).
func (l *libcuda) IPCOpenEventHandle(h backend.IPCHandle) (uintptr, error) {
	p, err := l.fn(symIpcOpenEventHandle)
	if err != nil {
		return 0, err
	}
	var ev uintptr
	r := callIPCOpen(p, unsafe.Pointer(&ev), &h, 0, false)
	return ev, check(r)
}
