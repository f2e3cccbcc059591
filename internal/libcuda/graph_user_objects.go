//go:build linux && (amd64 || arm64)

package libcuda

import (
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/callback"
	"github.com/nocgo/cuda/internal/dl"
)

// UserObjectCreate (hand-written: its destructor is a Go function) and the
// generated UserObjectRelease and GraphRetainUserObject are
// backend.UserObjects.
var _ backend.UserObjects = (*libcuda)(nil)

// UserObjectCreate is cuUserObjectCreate(CUuserObject*, void* ptr, CUhostFn
// destroy, unsigned int initialRefcount, unsigned int flags) with one
// reference and CU_USER_OBJECT_NO_DESTRUCTOR_SYNC: destroy is registered
// with the process's one callback trampoline, whose id is ptr, and runs
// once, on a driver thread, when the last reference goes.
func (l *libcuda) UserObjectCreate(destroy func()) (uintptr, error) {
	if destroy == nil {
		return 0, backend.ErrInvalidValue
	}
	proc, err := l.strictFn(symUserObjectCreate)
	if err != nil {
		return 0, err
	}
	tramp, err := callback.Trampoline()
	if err != nil {
		return 0, err
	}
	id := callback.Register(destroy)
	var obj uintptr
	r := dl.Call5(proc, uintptr(unsafe.Pointer(&obj)), id, tramp, 1, uintptr(backend.UserObjectNoDestructorSync))
	if err := check(r); err != nil {
		callback.Unregister(id)
		return 0, err
	}
	return obj, nil
}
