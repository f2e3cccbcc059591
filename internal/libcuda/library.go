//go:build linux && (amd64 || arm64)

package libcuda

import (
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
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

var _ backend.Libraries = (*libcuda)(nil)
