//go:build linux && (amd64 || arm64)

package libcuda

import (
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/dl"
)

// The hand-written methods of backend.Pitched (the 2D copies and their C
// layout); MemAllocPitch is generated from entrypoints.txt
// (zz_generated.go).

// cMemcpy2D is CUDA_MEMCPY2D (cuda.h 13.0; cudarc's sys bindings and
// cuda-python's cydriver agree on the fields and their order): 128 bytes,
// each CUmemorytype (a 32-bit enum) padded to 8 by the pointer after it.
type cMemcpy2D struct {
	srcXInBytes, srcY uintptr
	srcMemoryType     uint32
	srcHost           unsafe.Pointer
	srcDevice         uintptr
	srcArray          uintptr
	srcPitch          uintptr
	dstXInBytes, dstY uintptr
	dstMemoryType     uint32
	dstHost           unsafe.Pointer
	dstDevice         uintptr
	dstArray          uintptr
	dstPitch          uintptr
	widthInBytes      uintptr
	height            uintptr
}

var (
	_ [128 - unsafe.Sizeof(cMemcpy2D{})]byte
	_ [unsafe.Sizeof(cMemcpy2D{}) - 128]byte
	_ [24 - unsafe.Offsetof(cMemcpy2D{}.srcHost)]byte
	_ [unsafe.Offsetof(cMemcpy2D{}.srcHost) - 24]byte
	_ [72 - unsafe.Offsetof(cMemcpy2D{}.dstMemoryType)]byte
	_ [unsafe.Offsetof(cMemcpy2D{}.dstMemoryType) - 72]byte
	_ [104 - unsafe.Offsetof(cMemcpy2D{}.dstPitch)]byte
	_ [unsafe.Offsetof(cMemcpy2D{}.dstPitch) - 104]byte
	_ [120 - unsafe.Offsetof(cMemcpy2D{}.height)]byte
	_ [unsafe.Offsetof(cMemcpy2D{}.height) - 120]byte
)

func toC2D(p *backend.Memcpy2D) *cMemcpy2D {
	return &cMemcpy2D{
		srcXInBytes: p.SrcXInBytes, srcY: p.SrcY, srcMemoryType: uint32(p.SrcMemoryType),
		srcHost: p.SrcHost, srcDevice: p.SrcDevice, srcPitch: p.SrcPitch,
		dstXInBytes: p.DstXInBytes, dstY: p.DstY, dstMemoryType: uint32(p.DstMemoryType),
		dstHost: p.DstHost, dstDevice: p.DstDevice, dstPitch: p.DstPitch,
		widthInBytes: p.WidthInBytes, height: p.Height,
	}
}

// Memcpy2D is cuMemcpy2D_v2(const CUDA_MEMCPY2D *pCopy).
func (l *libcuda) Memcpy2D(cp *backend.Memcpy2D) error {
	p, err := l.fn(symMemcpy2D)
	if err != nil {
		return err
	}
	c := toC2D(cp)
	r := dl.Call1(p, uintptr(unsafe.Pointer(c)))
	runtime.KeepAlive(c)
	return check(r)
}

// Memcpy2DAsync is cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *pCopy, CUstream
// hStream).
func (l *libcuda) Memcpy2DAsync(cp *backend.Memcpy2D, s uintptr) error {
	p, err := l.fn(symMemcpy2DAsync)
	if err != nil {
		return err
	}
	c := toC2D(cp)
	r := dl.Call2(p, uintptr(unsafe.Pointer(c)), s)
	runtime.KeepAlive(c)
	return check(r)
}

var _ backend.Pitched = (*libcuda)(nil)
