//go:build linux && (amd64 || arm64)

package libcuda

import (
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/dl"
)

var (
	_ [200 - unsafe.Sizeof(memcpy3D{})]byte
	_ [unsafe.Sizeof(memcpy3D{}) - 200]byte
	_ [32 - unsafe.Offsetof(memcpy3D{}.srcMemoryType)]byte
	_ [unsafe.Offsetof(memcpy3D{}.srcMemoryType) - 32]byte
	_ [40 - unsafe.Offsetof(memcpy3D{}.srcHost)]byte
	_ [unsafe.Offsetof(memcpy3D{}.srcHost) - 40]byte
	_ [80 - unsafe.Offsetof(memcpy3D{}.srcHeight)]byte
	_ [unsafe.Offsetof(memcpy3D{}.srcHeight) - 80]byte
	_ [120 - unsafe.Offsetof(memcpy3D{}.dstMemoryType)]byte
	_ [unsafe.Offsetof(memcpy3D{}.dstMemoryType) - 120]byte
	_ [168 - unsafe.Offsetof(memcpy3D{}.dstHeight)]byte
	_ [unsafe.Offsetof(memcpy3D{}.dstHeight) - 168]byte
	_ [192 - unsafe.Offsetof(memcpy3D{}.depth)]byte
	_ [unsafe.Offsetof(memcpy3D{}.depth) - 192]byte
)

func toC3D(p *backend.Memcpy3D) *memcpy3D {
	return &memcpy3D{
		srcXInBytes: p.SrcXInBytes, srcY: p.SrcY, srcZ: p.SrcZ, srcMemoryType: uint32(p.SrcMemoryType),
		srcHost: p.SrcHost, srcDevice: p.SrcDevice, srcPitch: p.SrcPitch, srcHeight: p.SrcHeight,
		dstXInBytes: p.DstXInBytes, dstY: p.DstY, dstZ: p.DstZ, dstMemoryType: uint32(p.DstMemoryType),
		dstHost: p.DstHost, dstDevice: p.DstDevice, dstPitch: p.DstPitch, dstHeight: p.DstHeight,
		widthInBytes: p.WidthInBytes, height: p.Height, depth: p.Depth,
	}
}

// Memcpy3D is cuMemcpy3D_v2(const CUDA_MEMCPY3D *pCopy).
func (l *libcuda) Memcpy3D(cp *backend.Memcpy3D) error {
	p, err := l.fn(symMemcpy3D)
	if err != nil {
		return err
	}
	c := toC3D(cp)
	r := dl.Call1(p, uintptr(unsafe.Pointer(c)))
	runtime.KeepAlive(c)
	return check(r)
}

// Memcpy3DAsync is cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *pCopy, CUstream
// hStream). The driver reads the descriptor during the call; the host
// memory it names must outlive the copy (the caller's duty).
func (l *libcuda) Memcpy3DAsync(cp *backend.Memcpy3D, s uintptr) error {
	p, err := l.fn(symMemcpy3DAsync)
	if err != nil {
		return err
	}
	c := toC3D(cp)
	r := dl.Call2(p, uintptr(unsafe.Pointer(c)), s)
	runtime.KeepAlive(c)
	return check(r)
}

var _ backend.Copies3D = (*libcuda)(nil)
