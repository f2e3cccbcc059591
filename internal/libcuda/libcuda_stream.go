//go:build linux && (amd64 || arm64)

package libcuda

import (
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"

	"github.com/nocgo/cuda/internal/callback"
	"github.com/nocgo/cuda/internal/dl"
)

// StreamCreateWithPriority is cuStreamCreateWithPriority(CUstream*,
// unsigned int flags, int priority).
func (l *libcuda) StreamCreateWithPriority(flags uint32, priority int) (uintptr, error) {
	if !cInt(priority) {
		return 0, backend.ErrInvalidValue
	}
	p, err := l.fn(symStreamCreateWithPriority)
	if err != nil {
		return 0, err
	}
	var s uintptr
	r := dl.Call3(p, uintptr(unsafe.Pointer(&s)), uintptr(flags), uintptr(priority))
	return s, check(r)
}

// StreamDestroy is cuStreamDestroy_v2(CUstream).
func (l *libcuda) StreamDestroy(s uintptr) error {
	p, err := l.fn(symStreamDestroy)
	if err != nil {
		return err
	}
	r := dl.Call1(p, s)
	return check(r)
}

// StreamQuery is cuStreamQuery(CUstream): nil when all work is done,
// ErrNotReady while some is pending. It does not allocate.
func (l *libcuda) StreamQuery(s uintptr) error {
	p, err := l.fn(symStreamQuery)
	if err != nil {
		return err
	}
	r := dl.Call1(p, s)
	return check(r)
}

// StreamSynchronize is cuStreamSynchronize(CUstream). It does not allocate.
func (l *libcuda) StreamSynchronize(s uintptr) error {
	p, err := l.fn(symStreamSynchronize)
	if err != nil {
		return err
	}
	r := dl.Call1(p, s)
	return check(r)
}

// StreamWaitEvent is cuStreamWaitEvent(CUstream, CUevent, unsigned int
// flags). It does not allocate.
func (l *libcuda) StreamWaitEvent(s, ev uintptr, flags uint32) error {
	p, err := l.fn(symStreamWaitEvent)
	if err != nil {
		return err
	}
	r := dl.Call3(p, s, ev, uintptr(flags))
	return check(r)
}

// StreamGetCtx is cuStreamGetCtx(CUstream, CUcontext*), the form without a
// green context (requested at CUDA 12.0: 12.5's _v2 adds a CUgreenCtx*).
func (l *libcuda) StreamGetCtx(s uintptr) (uintptr, error) {
	p, err := l.fn(symStreamGetCtx)
	if err != nil {
		return 0, err
	}
	o := getOuts()
	r := dl.Call2(p, s, uintptr(unsafe.Pointer(&o.v[0])))
	c := uintptr(o.v[0])
	putOuts(o)
	return c, check(r)
}

// StreamGetFlags is cuStreamGetFlags(CUstream, unsigned int*).
func (l *libcuda) StreamGetFlags(s uintptr) (uint32, error) {
	p, err := l.fn(symStreamGetFlags)
	if err != nil {
		return 0, err
	}
	var f uint32
	r := dl.Call2(p, s, uintptr(unsafe.Pointer(&f)))
	return f, check(r)
}

// StreamGetPriority is cuStreamGetPriority(CUstream, int*).
func (l *libcuda) StreamGetPriority(s uintptr) (int, error) {
	p, err := l.fn(symStreamGetPriority)
	if err != nil {
		return 0, err
	}
	var v int32
	r := dl.Call2(p, s, uintptr(unsafe.Pointer(&v)))
	return int(v), check(r)
}

// LaunchHostFunc is cuLaunchHostFunc(CUstream, CUhostFn, void *userData):
// fn is registered with the process's one callback trampoline and its id
// passed as userData; the trampoline runs it once on a driver thread. When
// the driver refuses the launch, fn is unregistered and never runs.
func (l *libcuda) LaunchHostFunc(s uintptr, fn func()) error {
	if fn == nil {
		return backend.ErrInvalidValue
	}
	p, err := l.fn(symLaunchHostFunc)
	if err != nil {
		return err
	}
	tramp, err := callback.Trampoline()
	if err != nil {
		return err
	}
	id := callback.Register(fn)
	r := dl.Call3(p, s, tramp, id)
	if err := check(r); err != nil {
		callback.Unregister(id)
		return err
	}
	return nil
}
