//go:build linux && (amd64 || arm64)

package libcuda

import (
	"github.com/nocgo/cuda/driver/backend"

	"github.com/nocgo/cuda/internal/callback"
	"github.com/nocgo/cuda/internal/dl"
)

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
