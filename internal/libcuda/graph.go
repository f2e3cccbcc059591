//go:build linux && (amd64 || arm64)

package libcuda

import (
	"errors"
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/loader"

	"github.com/nocgo/cuda/internal/dl"
)

// The methods of backend.Graphs. The signatures called are cuda.h 13.0's
// (entrypoints.txt, the "# graphs" block, says which versioned entry point
// each base name resolves to). Structs passed by pointer are laid out in Go
// exactly as in C; their offsets are written beside their declarations in
// driver/backend/graph.go and, for CUDA_MEMCPY3D, below.

var _ backend.Graphs = (*libcuda)(nil)

// graphFn resolves a graph entry point, refusing it on a driver older than
// the ABI this backend calls: several base names here were given a new ABI
// (cuStreamGetCaptureInfo, cuGraphGetEdges in 12.3; cuGraphAddKernelNode,
// cuGraphExecUpdate in 12.0), and cuGetProcAddress on an older driver would
// hand out the old one, which takes other arguments.
func (l *libcuda) graphFn(s sym) (uintptr, error) {
	if info := &syms[s]; l.version > 0 && l.version < info.since {
		return 0, &loader.SymbolError{Library: l.lib.Path(), Symbol: info.name, Since: info.since, Have: l.version,
			Err: errors.New("the driver has only an older ABI of it")}
	}
	return l.fn(s)
}

// StreamBeginCapture is cuStreamBeginCapture_v2(CUstream, CUstreamCaptureMode).
func (l *libcuda) StreamBeginCapture(s uintptr, mode backend.CaptureMode) error {
	p, err := l.graphFn(symStreamBeginCapture)
	if err != nil {
		return err
	}
	return check(dl.Call2(p, s, uintptr(mode)))
}

// StreamEndCapture is cuStreamEndCapture(CUstream, CUgraph*).
func (l *libcuda) StreamEndCapture(s uintptr) (uintptr, error) {
	p, err := l.graphFn(symStreamEndCapture)
	if err != nil {
		return 0, err
	}
	var g uintptr
	r := dl.Call2(p, s, uintptr(unsafe.Pointer(&g)))
	if err := check(r); err != nil {
		return 0, err
	}
	return g, nil
}

// StreamGetCaptureInfo is cuStreamGetCaptureInfo_v3(CUstream,
// CUstreamCaptureStatus*, cuuint64_t* id, CUgraph*, const CUgraphNode**,
// const CUgraphEdgeData**, size_t*): every out parameter but the status is
// optional (NULL); the id is asked for, the rest not.
func (l *libcuda) StreamGetCaptureInfo(s uintptr) (backend.CaptureStatus, uint64, error) {
	p, err := l.graphFn(symStreamGetCaptureInfo)
	if err != nil {
		return 0, 0, err
	}
	var out struct {
		status uint32 // CUstreamCaptureStatus, a C enum
		_      uint32
		id     uint64
	}
	r := dl.Call7(p, s, uintptr(unsafe.Pointer(&out.status)), uintptr(unsafe.Pointer(&out.id)), 0, 0, 0, 0)
	if err := check(r); err != nil {
		return 0, 0, err
	}
	return backend.CaptureStatus(out.status), out.id, nil
}

// GraphCreate is cuGraphCreate(CUgraph*, unsigned int flags).
func (l *libcuda) GraphCreate(flags uint32) (uintptr, error) {
	return l.out(symGraphCreate, uintptr(flags))
}

// GraphDestroy is cuGraphDestroy(CUgraph).
func (l *libcuda) GraphDestroy(g uintptr) error { return l.call1(symGraphDestroy, g) }

// GraphClone is cuGraphClone(CUgraph* clone, CUgraph original).
func (l *libcuda) GraphClone(g uintptr) (uintptr, error) { return l.out(symGraphClone, g) }

// GraphNodeCount is cuGraphGetNodes(CUgraph, NULL, size_t*).
func (l *libcuda) GraphNodeCount(g uintptr) (int, error) {
	p, err := l.graphFn(symGraphGetNodes)
	if err != nil {
		return 0, err
	}
	var n uintptr
	if err := check(dl.Call3(p, g, 0, uintptr(unsafe.Pointer(&n)))); err != nil {
		return 0, err
	}
	return int(n), nil
}

// GraphEdgeCount is cuGraphGetEdges_v2(CUgraph, NULL, NULL, NULL, size_t*).
func (l *libcuda) GraphEdgeCount(g uintptr) (int, error) {
	p, err := l.graphFn(symGraphGetEdges)
	if err != nil {
		return 0, err
	}
	var n uintptr
	if err := check(dl.Call5(p, g, 0, 0, 0, uintptr(unsafe.Pointer(&n)))); err != nil {
		return 0, err
	}
	return int(n), nil
}

// addNode calls a cuGraphAdd*Node entry point: (CUgraphNode* out, CUgraph,
// const CUgraphNode* deps, size_t numDeps, a, b).
func (l *libcuda) addNode(s sym, g uintptr, deps []uintptr, a, b uintptr, nargs int) (uintptr, error) {
	p, err := l.graphFn(s)
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
	case 4:
		r = dl.Call4(p, uintptr(unsafe.Pointer(&node)), g, dp, uintptr(len(deps)))
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
	n, err := l.addNode(symGraphAddMemcpyNode, g, deps, uintptr(unsafe.Pointer(&c)), ctx, 6)
	runtime.KeepAlive(&c)
	return n, err
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

// GraphAddEventRecordNode is cuGraphAddEventRecordNode(..., CUevent).
func (l *libcuda) GraphAddEventRecordNode(g uintptr, deps []uintptr, ev uintptr) (uintptr, error) {
	return l.addNode(symGraphAddEventRecordNode, g, deps, ev, 0, 5)
}

// GraphAddEventWaitNode is cuGraphAddEventWaitNode(..., CUevent).
func (l *libcuda) GraphAddEventWaitNode(g uintptr, deps []uintptr, ev uintptr) (uintptr, error) {
	return l.addNode(symGraphAddEventWaitNode, g, deps, ev, 0, 5)
}

// GraphAddChildGraphNode is cuGraphAddChildGraphNode(..., CUgraph).
func (l *libcuda) GraphAddChildGraphNode(g uintptr, deps []uintptr, child uintptr) (uintptr, error) {
	return l.addNode(symGraphAddChildGraphNode, g, deps, child, 0, 5)
}

// GraphAddEmptyNode is cuGraphAddEmptyNode(CUgraphNode*, CUgraph, deps, n).
func (l *libcuda) GraphAddEmptyNode(g uintptr, deps []uintptr) (uintptr, error) {
	return l.addNode(symGraphAddEmptyNode, g, deps, 0, 0, 4)
}

// GraphInstantiate is cuGraphInstantiateWithFlags(CUgraphExec*, CUgraph,
// unsigned long long flags).
func (l *libcuda) GraphInstantiate(g uintptr, flags uint64) (uintptr, error) {
	p, err := l.graphFn(symGraphInstantiateWithFlags)
	if err != nil {
		return 0, err
	}
	var e uintptr
	if err := check(dl.Call3(p, uintptr(unsafe.Pointer(&e)), g, uintptr(flags))); err != nil {
		return 0, err
	}
	return e, nil
}

// GraphExecDestroy is cuGraphExecDestroy(CUgraphExec).
func (l *libcuda) GraphExecDestroy(e uintptr) error { return l.call1(symGraphExecDestroy, e) }

// GraphLaunch is cuGraphLaunch(CUgraphExec, CUstream).
func (l *libcuda) GraphLaunch(e, s uintptr) error {
	p, err := l.graphFn(symGraphLaunch)
	if err != nil {
		return err
	}
	return check(dl.Call2(p, e, s))
}

// GraphUpload is cuGraphUpload(CUgraphExec, CUstream).
func (l *libcuda) GraphUpload(e, s uintptr) error {
	p, err := l.graphFn(symGraphUpload)
	if err != nil {
		return err
	}
	return check(dl.Call2(p, e, s))
}

// GraphExecUpdate is cuGraphExecUpdate_v2(CUgraphExec, CUgraph,
// CUgraphExecUpdateResultInfo*); backend.GraphExecUpdateInfo has its layout.
func (l *libcuda) GraphExecUpdate(e, g uintptr) (backend.GraphExecUpdateInfo, error) {
	p, err := l.graphFn(symGraphExecUpdate)
	if err != nil {
		return backend.GraphExecUpdateInfo{}, err
	}
	var info backend.GraphExecUpdateInfo
	r := dl.Call3(p, e, g, uintptr(unsafe.Pointer(&info)))
	return info, check(r)
}

// out calls an entry point (T* out, uintptr a) and returns *out.
func (l *libcuda) out(s sym, a uintptr) (uintptr, error) {
	p, err := l.graphFn(s)
	if err != nil {
		return 0, err
	}
	var v uintptr
	if err := check(dl.Call2(p, uintptr(unsafe.Pointer(&v)), a)); err != nil {
		return 0, err
	}
	return v, nil
}

// call1 calls an entry point of one handle argument.
func (l *libcuda) call1(s sym, a uintptr) error {
	p, err := l.graphFn(s)
	if err != nil {
		return err
	}
	return check(dl.Call1(p, a))
}
