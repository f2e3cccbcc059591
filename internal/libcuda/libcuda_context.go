//go:build linux && (amd64 || arm64)

package libcuda

import (
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"

	"github.com/nocgo/cuda/internal/dl"
)

// DevicePrimaryCtxRetain is cuDevicePrimaryCtxRetain(CUcontext*, CUdevice).
func (l *libcuda) DevicePrimaryCtxRetain(dev int) (uintptr, error) {
	if !cInt(dev) {
		return 0, backend.ErrInvalidDevice
	}
	p, err := l.fn(symDevicePrimaryCtxRetain)
	if err != nil {
		return 0, err
	}
	var c uintptr
	r := dl.Call2(p, uintptr(unsafe.Pointer(&c)), uintptr(dev))
	return c, check(r)
}

// DevicePrimaryCtxRelease is cuDevicePrimaryCtxRelease_v2(CUdevice).
func (l *libcuda) DevicePrimaryCtxRelease(dev int) error {
	if !cInt(dev) {
		return backend.ErrInvalidDevice
	}
	p, err := l.fn(symDevicePrimaryCtxRelease)
	if err != nil {
		return err
	}
	r := dl.Call1(p, uintptr(dev))
	return check(r)
}

// DevicePrimaryCtxGetState is cuDevicePrimaryCtxGetState(CUdevice,
// unsigned int *flags, int *active).
func (l *libcuda) DevicePrimaryCtxGetState(dev int) (uint32, bool, error) {
	if !cInt(dev) {
		return 0, false, backend.ErrInvalidDevice
	}
	p, err := l.fn(symDevicePrimaryCtxGetState)
	if err != nil {
		return 0, false, err
	}
	var st struct {
		flags  uint32
		active int32
	}
	r := dl.Call3(p, uintptr(dev), uintptr(unsafe.Pointer(&st.flags)), uintptr(unsafe.Pointer(&st.active)))
	return st.flags, st.active != 0, check(r)
}

// CtxCreate is cuCtxCreate_v2(CUcontext*, unsigned int flags, CUdevice); it
// pushes the new context on the calling thread, as the driver does.
func (l *libcuda) CtxCreate(flags uint32, dev int) (uintptr, error) {
	if !cInt(dev) {
		return 0, backend.ErrInvalidDevice
	}
	p, err := l.fn(symCtxCreate)
	if err != nil {
		return 0, err
	}
	var c uintptr
	r := dl.Call3(p, uintptr(unsafe.Pointer(&c)), uintptr(flags), uintptr(dev))
	return c, check(r)
}

// CtxDestroy is cuCtxDestroy_v2(CUcontext).
func (l *libcuda) CtxDestroy(ctx uintptr) error {
	p, err := l.fn(symCtxDestroy)
	if err != nil {
		return err
	}
	r := dl.Call1(p, ctx)
	return check(r)
}

// CtxGetCurrent is cuCtxGetCurrent(CUcontext*). It does not allocate.
func (l *libcuda) CtxGetCurrent() (uintptr, error) {
	p, err := l.fn(symCtxGetCurrent)
	if err != nil {
		return 0, err
	}
	o := getOuts()
	r := dl.Call1(p, uintptr(unsafe.Pointer(&o.v[0])))
	c := uintptr(o.v[0])
	putOuts(o)
	return c, check(r)
}

// CtxSetCurrent is cuCtxSetCurrent(CUcontext).
func (l *libcuda) CtxSetCurrent(ctx uintptr) error {
	p, err := l.fn(symCtxSetCurrent)
	if err != nil {
		return err
	}
	r := dl.Call1(p, ctx)
	return check(r)
}

// CtxPushCurrent is cuCtxPushCurrent_v2(CUcontext). It does not allocate.
func (l *libcuda) CtxPushCurrent(ctx uintptr) error {
	p, err := l.fn(symCtxPushCurrent)
	if err != nil {
		return err
	}
	r := dl.Call1(p, ctx)
	return check(r)
}

// CtxPopCurrent is cuCtxPopCurrent_v2(CUcontext*). It does not allocate.
func (l *libcuda) CtxPopCurrent() (uintptr, error) {
	p, err := l.fn(symCtxPopCurrent)
	if err != nil {
		return 0, err
	}
	o := getOuts()
	r := dl.Call1(p, uintptr(unsafe.Pointer(&o.v[0])))
	c := uintptr(o.v[0])
	putOuts(o)
	return c, check(r)
}

// CtxGetDevice is cuCtxGetDevice(CUdevice*), the current-context form
// (requested at CUDA 12.0: 13.0's default takes a CUcontext).
func (l *libcuda) CtxGetDevice() (int, error) {
	p, err := l.fn(symCtxGetDevice)
	if err != nil {
		return 0, err
	}
	var d int32
	r := dl.Call1(p, uintptr(unsafe.Pointer(&d)))
	return int(d), check(r)
}

// CtxSynchronize is cuCtxSynchronize(void), the current-context form
// (requested at CUDA 12.0: 13.0's default takes a CUcontext).
func (l *libcuda) CtxSynchronize() error {
	p, err := l.fn(symCtxSynchronize)
	if err != nil {
		return err
	}
	r := dl.Call0(p)
	return check(r)
}

// CtxGetAPIVersion is cuCtxGetApiVersion(CUcontext, unsigned int*).
func (l *libcuda) CtxGetAPIVersion(ctx uintptr) (uint32, error) {
	p, err := l.fn(symCtxGetApiVersion)
	if err != nil {
		return 0, err
	}
	o := getOuts()
	r := dl.Call2(p, ctx, uintptr(unsafe.Pointer(&o.v[0])))
	v := *(*uint32)(unsafe.Pointer(&o.v[0]))
	putOuts(o)
	return v, check(r)
}

// CtxGetStreamPriorityRange is cuCtxGetStreamPriorityRange(int *least,
// int *greatest).
func (l *libcuda) CtxGetStreamPriorityRange() (int, int, error) {
	p, err := l.fn(symCtxGetStreamPriorityRange)
	if err != nil {
		return 0, 0, err
	}
	var pr struct{ least, greatest int32 }
	r := dl.Call2(p, uintptr(unsafe.Pointer(&pr.least)), uintptr(unsafe.Pointer(&pr.greatest)))
	return int(pr.least), int(pr.greatest), check(r)
}

// CtxEnablePeerAccess is cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags).
func (l *libcuda) CtxEnablePeerAccess(peer uintptr, flags uint32) error {
	p, err := l.fn(symCtxEnablePeerAccess)
	if err != nil {
		return err
	}
	r := dl.Call2(p, peer, uintptr(flags))
	return check(r)
}
