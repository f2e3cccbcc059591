//go:build linux && (amd64 || arm64)

package libcuda

import (
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"

	"github.com/nocgo/cuda/internal/dl"
)

// The hand-written methods of backend.Graphs (the others are generated:
// zz_generated.go). The signatures called are cuda.h 13.0's
// (entrypoints.txt, the "# graphs" block, says which versioned entry point
// each base name resolves to). Structs passed by pointer are laid out in Go
// exactly as in C; their offsets are written beside their declarations in
// driver/backend/graph.go and, for CUDA_MEMCPY3D, below.

var _ backend.Graphs = (*libcuda)(nil)

// addNode calls a cuGraphAdd*Node entry point: (CUgraphNode* out, CUgraph,
// const CUgraphNode* deps, size_t numDeps, a[, b]), of nargs arguments (5
// or 6).
func (l *libcuda) addNode(s sym, g uintptr, deps []uintptr, a, b uintptr, nargs int) (uintptr, error) {
	p, err := l.strictFn(s)
	if err != nil {
		return 0, err
	}
	var node uintptr
	var dp uintptr
	if len(deps) > 0 {
		dp = uintptr(unsafe.Pointer(&deps[0]))
	}
	var r uintptr
	switch nargs {
	case 5:
		r = dl.Call5(p, uintptr(unsafe.Pointer(&node)), g, dp, uintptr(len(deps)), a)
	default:
		r = dl.Call6(p, uintptr(unsafe.Pointer(&node)), g, dp, uintptr(len(deps)), a, b)
	}
	runtime.KeepAlive(deps)
	if err := check(r); err != nil {
		return 0, err
	}
	return node, nil
}

// GraphAddKernelNode is cuGraphAddKernelNode_v2(..., const
// CUDA_KERNEL_NODE_PARAMS_v2*). backend.KernelNodeParams has its layout.
func (l *libcuda) GraphAddKernelNode(g uintptr, deps []uintptr, kp *backend.KernelNodeParams) (uintptr, error) {
	if kp == nil {
		return 0, backend.ErrInvalidValue
	}
	c := *kp
	n, err := l.addNode(symGraphAddKernelNode, g, deps, uintptr(unsafe.Pointer(&c)), 0, 5)
	runtime.KeepAlive(&c)
	return n, err
}

// memcpy3D is CUDA_MEMCPY3D (v2, cuda.h 13.0). Offsets, from cuda.h's
// declaration order with C alignment, checked against a ctypes binding
// generated from cuda.h (SIZE = 200, the same offsets) and cuda-python's
// cydriver field order: srcXInBytes 0, srcY 8, srcZ 16, srcLOD 24,
// srcMemoryType 32 (4 bytes + 4 padding), srcHost 40, srcDevice 48,
// srcArray 56, reserved0 64, srcPitch 72, srcHeight 80, dstXInBytes 88,
// dstY 96, dstZ 104, dstLOD 112, dstMemoryType 120, dstHost 128,
// dstDevice 136, dstArray 144, reserved1 152, dstPitch 160, dstHeight 168,
// WidthInBytes 176, Height 184, Depth 192; size 200.
type memcpy3D struct {
	srcXInBytes, srcY, srcZ, srcLOD uintptr
	srcMemoryType                   uint32
	_                               uint32
	srcHost                         unsafe.Pointer
	srcDevice                       uintptr
	srcArray                        uintptr
	reserved0                       uintptr
	srcPitch, srcHeight             uintptr
	dstXInBytes, dstY, dstZ, dstLOD uintptr
	dstMemoryType                   uint32
	_                               uint32
	dstHost                         unsafe.Pointer
	dstDevice                       uintptr
	dstArray                        uintptr
	reserved1                       uintptr
	dstPitch, dstHeight             uintptr
	widthInBytes, height, depth     uintptr
}

// GraphAddMemcpyNode is cuGraphAddMemcpyNode(..., const CUDA_MEMCPY3D*,
// CUcontext) for a 1D copy: one row of Size bytes, pitch Size, height 1.
func (l *libcuda) GraphAddMemcpyNode(g uintptr, deps []uintptr, mp *backend.MemcpyNodeParams, ctx uintptr) (uintptr, error) {
	if mp == nil {
		return 0, backend.ErrInvalidValue
	}
	c := memcpy3DOf(mp)
	n, err := l.addNode(symGraphAddMemcpyNode, g, deps, uintptr(unsafe.Pointer(&c)), ctx, 6)
	runtime.KeepAlive(&c)
	return n, err
}

// memcpy3DOf lays out a 1D copy as a CUDA_MEMCPY3D: one row of Size bytes,
// pitch Size, height and depth 1.
func memcpy3DOf(mp *backend.MemcpyNodeParams) memcpy3D {
	c := memcpy3D{
		srcMemoryType: uint32(backend.MemoryTypeDevice), srcDevice: mp.Src,
		dstMemoryType: uint32(backend.MemoryTypeDevice), dstDevice: mp.Dst,
		srcPitch: mp.Size, srcHeight: 1, dstPitch: mp.Size, dstHeight: 1,
		widthInBytes: mp.Size, height: 1, depth: 1,
	}
	if mp.SrcHost != nil {
		c.srcMemoryType, c.srcHost, c.srcDevice = uint32(backend.MemoryTypeHost), mp.SrcHost, 0
	}
	if mp.DstHost != nil {
		c.dstMemoryType, c.dstHost, c.dstDevice = uint32(backend.MemoryTypeHost), mp.DstHost, 0
	}
	return c
}

// GraphAddMemsetNode is cuGraphAddMemsetNode(..., const
// CUDA_MEMSET_NODE_PARAMS*, CUcontext).
func (l *libcuda) GraphAddMemsetNode(g uintptr, deps []uintptr, mp *backend.MemsetNodeParams, ctx uintptr) (uintptr, error) {
	if mp == nil {
		return 0, backend.ErrInvalidValue
	}
	c := *mp
	n, err := l.addNode(symGraphAddMemsetNode, g, deps, uintptr(unsafe.Pointer(&c)), ctx, 6)
	runtime.KeepAlive(&c)
	return n, err
}
