//go:build linux && (amd64 || arm64)

package libcuda

import (
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/cstr"
	"github.com/nocgo/cuda/internal/dl"
)

// LibraryLoadData is cuLibraryLoadData(CUlibrary *library, const void
// *code, CUjit_option *jitOptions, void **jitOptionsValues, unsigned int
// numJitOptions, CUlibraryOption *libraryOptions, void
// **libraryOptionValues, unsigned int numLibraryOptions), with no options:
// the image is checked as ModuleLoadData checks it (see moduleImage), and
// the driver copies it (CU_LIBRARY_BINARY_IS_PRESERVED is not given). An
// empty image is ErrInvalidValue.
func (l *libcuda) LibraryLoadData(image []byte) (uintptr, error) {
	if len(image) == 0 {
		return 0, backend.ErrInvalidValue
	}
	p, err := l.fn(symLibraryLoadData)
	if err != nil {
		return 0, err
	}
	img, err := moduleImage(image)
	if err != nil {
		return 0, err
	}
	var lib uintptr
	r := dl.Call8(p, uintptr(unsafe.Pointer(&lib)), uintptr(unsafe.Pointer(&img[0])), 0, 0, 0, 0, 0, 0)
	runtime.KeepAlive(img)
	if err := check(r); err != nil {
		return 0, err
	}
	return lib, nil
}

// LibraryUnload is cuLibraryUnload(CUlibrary library).
func (l *libcuda) LibraryUnload(lib uintptr) error {
	p, err := l.fn(symLibraryUnload)
	if err != nil {
		return err
	}
	return check(dl.Call1(p, lib))
}

// LibraryGetKernel is cuLibraryGetKernel(CUkernel *pKernel, CUlibrary
// library, const char *name). A name with a NUL byte is ErrInvalidValue.
func (l *libcuda) LibraryGetKernel(lib uintptr, name string) (uintptr, error) {
	cname, err := cstr.Bytes(name)
	if err != nil {
		return 0, backend.ErrInvalidValue
	}
	p, err := l.fn(symLibraryGetKernel)
	if err != nil {
		return 0, err
	}
	var k uintptr
	r := dl.Call3(p, uintptr(unsafe.Pointer(&k)), lib, uintptr(unsafe.Pointer(&cname[0])))
	runtime.KeepAlive(cname)
	if err := check(r); err != nil {
		return 0, err
	}
	return k, nil
}

// LibraryGetModule is cuLibraryGetModule(CUmodule *pMod, CUlibrary
// library), in the current context.
func (l *libcuda) LibraryGetModule(lib uintptr) (uintptr, error) {
	p, err := l.fn(symLibraryGetModule)
	if err != nil {
		return 0, err
	}
	var m uintptr
	if err := check(dl.Call2(p, uintptr(unsafe.Pointer(&m)), lib)); err != nil {
		return 0, err
	}
	return m, nil
}

// LibraryGetGlobal is cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes,
// CUlibrary library, const char *name), in the current context. A name
// with a NUL byte is ErrInvalidValue.
func (l *libcuda) LibraryGetGlobal(lib uintptr, name string) (ptr, size uintptr, err error) {
	cname, err := cstr.Bytes(name)
	if err != nil {
		return 0, 0, backend.ErrInvalidValue
	}
	p, err := l.fn(symLibraryGetGlobal)
	if err != nil {
		return 0, 0, err
	}
	r := dl.Call4(p, uintptr(unsafe.Pointer(&ptr)), uintptr(unsafe.Pointer(&size)), lib, uintptr(unsafe.Pointer(&cname[0])))
	runtime.KeepAlive(cname)
	if err := check(r); err != nil {
		return 0, 0, err
	}
	return ptr, size, nil
}

// KernelGetFunction is cuKernelGetFunction(CUfunction *pFunc, CUkernel
// kernel), in the current context.
func (l *libcuda) KernelGetFunction(kernel uintptr) (uintptr, error) {
	p, err := l.fn(symKernelGetFunction)
	if err != nil {
		return 0, err
	}
	var f uintptr
	if err := check(dl.Call2(p, uintptr(unsafe.Pointer(&f)), kernel)); err != nil {
		return 0, err
	}
	return f, nil
}

// KernelGetAttribute is cuKernelGetAttribute(int *pi, CUfunction_attribute
// attrib, CUkernel kernel, CUdevice dev). A device ordinal that does not
// fit a C int is ErrInvalidDevice.
func (l *libcuda) KernelGetAttribute(attr backend.FunctionAttribute, kernel uintptr, dev int) (int, error) {
	if dev < 0 || int64(dev) > int64(^uint32(0)>>1) {
		return 0, backend.ErrInvalidDevice
	}
	p, err := l.fn(symKernelGetAttribute)
	if err != nil {
		return 0, err
	}
	var v int32
	if err := check(dl.Call4(p, uintptr(unsafe.Pointer(&v)), uintptr(attr), kernel, uintptr(dev))); err != nil {
		return 0, err
	}
	return int(v), nil
}

var _ backend.Libraries = (*libcuda)(nil)
