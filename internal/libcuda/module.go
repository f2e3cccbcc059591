//go:build linux && (amd64 || arm64)

package libcuda

import (
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"

	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/dl"
)

// moduleImage returns image ready for cuModuleLoadData: a CUBIN or fatbin
// as is, once its headers (a fatbin's entries too, a CUBIN's sections and
// segments) are checked to lie inside the slice, else ErrInvalidImage (the
// driver takes no length and would read past a truncated image), and PTX
// text NUL-terminated (a copy with a NUL appended when the text lacks one;
// the driver reads text up to the NUL). The checks allocate nothing (see
// package abi): a hostile image costs no memory.
func moduleImage(image []byte) ([]byte, error) {
	switch abi.KindOf(image) {
	case abi.ImageELF:
		if abi.CheckELF(image) != nil {
			return nil, backend.ErrInvalidImage
		}
		return image, nil
	case abi.ImageFatbin:
		if abi.CheckFatbin(image) != nil {
			return nil, backend.ErrInvalidImage
		}
		return image, nil
	}
	if image[len(image)-1] == 0 {
		return image, nil
	}
	img := make([]byte, len(image)+1)
	copy(img, image)
	return img, nil
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
