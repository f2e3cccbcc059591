//go:build linux && (amd64 || arm64)

package libcuda

import (
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/dl"
)

// MemHostRegister is cuMemHostRegister(void *p, size_t bytesize, unsigned
// int Flags) (the _v2 ABI of 6.5). The caller keeps p's memory in place
// until MemHostUnregister.
func (l *libcuda) MemHostRegister(p unsafe.Pointer, size uintptr, flags uint32) error {
	fn, err := l.fn(symMemHostRegister)
	if err != nil {
		return err
	}
	return check(dl.Call3(fn, uintptr(p), size, uintptr(flags)))
}

// MemHostUnregister is cuMemHostUnregister(void *p).
func (l *libcuda) MemHostUnregister(p unsafe.Pointer) error {
	fn, err := l.fn(symMemHostUnregister)
	if err != nil {
		return err
	}
	return check(dl.Call1(fn, uintptr(p)))
}

var _ backend.HostRegistration = (*libcuda)(nil)
