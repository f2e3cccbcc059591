//go:build linux && (amd64 || arm64)

package libcuda

import (
	"bytes"
	"debug/elf"
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"

	"github.com/nocgo/cuda/internal/cstr"
	"github.com/nocgo/cuda/internal/dl"
)

// Magic numbers of the binary images cuModuleLoadData takes besides PTX.
var (
	elfMagic    = []byte{0x7f, 'E', 'L', 'F'}    // CUBIN
	fatbinMagic = []byte{0x50, 0xed, 0x55, 0xba} // fatbin (0xBA55ED50, little-endian)
)

// moduleImage returns image ready for cuModuleLoadData: a CUBIN or fatbin
// as is, once its headers (a fatbin's entries too) are checked to lie
// inside the slice, else ErrInvalidImage (the driver
// takes no length and would read past a truncated image), and PTX text
// NUL-terminated (a copy with a NUL appended when the text lacks one; the
// driver reads text up to the NUL).
func moduleImage(image []byte) ([]byte, error) {
	switch {
	case bytes.HasPrefix(image, elfMagic):
		return image, checkELF(image)
	case bytes.HasPrefix(image, fatbinMagic):
		return image, CheckFatbin(image)
	}
	if image[len(image)-1] == 0 {
		return image, nil
	}
	img := make([]byte, len(image)+1)
	copy(img, image)
	return img, nil
}

// Fatbin layout: a container header (magic u32, version u16, header size
// u16, body size u64), then the body: entries one after the other, each an
// entry header (kind u16, version u16, entry header size u32, payload size
// u64, then architecture, flags, ...: 64 bytes or more) followed by its
// payload.

// checkELF checks that a CUBIN's header tables and sections lie inside it.
func checkELF(image []byte) error {
	f, err := elf.NewFile(bytes.NewReader(image))
	if err != nil {
		return backend.ErrInvalidImage
	}
	n := uint64(len(image))
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOBITS && (s.Offset > n || s.Size > n-s.Offset) {
			return backend.ErrInvalidImage
		}
	}
	for _, p := range f.Progs {
		if p.Off > n || p.Filesz > n-p.Off {
			return backend.ErrInvalidImage
		}
	}
	return nil
}

// ModuleLoadData is cuModuleLoadData(CUmodule*, const void *image), in the
// current context. An empty image is ErrInvalidValue.
func (l *libcuda) ModuleLoadData(image []byte) (uintptr, error) {
	if len(image) == 0 {
		return 0, backend.ErrInvalidValue
	}
	p, err := l.fn(symModuleLoadData)
	if err != nil {
		return 0, err
	}
	img, err := moduleImage(image)
	if err != nil {
		return 0, err
	}
	var m uintptr
	r := dl.Call2(p, uintptr(unsafe.Pointer(&m)), uintptr(unsafe.Pointer(&img[0])))
	runtime.KeepAlive(img)
	return m, check(r)
}

// ModuleGetFunction is cuModuleGetFunction(CUfunction*, CUmodule, const
// char*). A name with a NUL byte is ErrInvalidValue.
func (l *libcuda) ModuleGetFunction(m uintptr, name string) (uintptr, error) {
	cname, err := cstr.Bytes(name)
	if err != nil {
		return 0, backend.ErrInvalidValue
	}
	p, err := l.fn(symModuleGetFunction)
	if err != nil {
		return 0, err
	}
	var f uintptr
	r := dl.Call3(p, uintptr(unsafe.Pointer(&f)), m, uintptr(unsafe.Pointer(&cname[0])))
	runtime.KeepAlive(cname)
	return f, check(r)
}

// LaunchKernel is cuLaunchKernel(CUfunction, gridDimX..Z, blockDimX..Z,
// unsigned int sharedMemBytes, CUstream, void **kernelParams, void **extra),
// with extra NULL. params must stay reachable for the call (the driver
// copies the argument values before returning). It does not allocate.
func (l *libcuda) LaunchKernel(f uintptr, grid, block [3]uint32, sharedMem uint32, s uintptr, params unsafe.Pointer) error {
	p, err := l.fn(symLaunchKernel)
	if err != nil {
		return err
	}
	r := dl.Call11(p, f,
		uintptr(grid[0]), uintptr(grid[1]), uintptr(grid[2]),
		uintptr(block[0]), uintptr(block[1]), uintptr(block[2]),
		uintptr(sharedMem), s, uintptr(params), 0)
	return check(r)
}
