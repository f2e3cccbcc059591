//go:build linux && (amd64 || arm64)

package libcuda

import (
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/cstr"
	"github.com/nocgo/cuda/internal/dl"
)

// ModuleGetGlobal is cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t
// *bytes, CUmodule hmod, const char *name): the address and size of a
// module's device variable. A name with a NUL byte is ErrInvalidValue.
func (l *libcuda) ModuleGetGlobal(mod uintptr, name string) (ptr, size uintptr, err error) {
	cname, err := cstr.Bytes(name)
	if err != nil {
		return 0, 0, backend.ErrInvalidValue
	}
	p, err := l.fn(symModuleGetGlobal)
	if err != nil {
		return 0, 0, err
	}
	r := dl.Call4(p, uintptr(unsafe.Pointer(&ptr)), uintptr(unsafe.Pointer(&size)), mod, uintptr(unsafe.Pointer(&cname[0])))
	runtime.KeepAlive(cname)
	if err := check(r); err != nil {
		return 0, 0, err
	}
	return ptr, size, nil
}

var _ backend.ModuleGlobals = (*libcuda)(nil)
