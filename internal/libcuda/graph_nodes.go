//go:build linux && (amd64 || arm64)

package libcuda

import (
	"errors"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/callback"
	"github.com/nocgo/cuda/internal/cstr"
	"github.com/nocgo/cuda/internal/dl"
)

// The methods of backend.GraphNodes (cuda.h 13.0 signatures; see the
// "graph node kinds" block of entrypoints.txt). The C structs are laid out
// below, their offsets checked at compile time and in
// graph_nodes_layout_test.go.

var _ backend.GraphNodes = (*libcuda)(nil)

// cHostNodeParams is CUDA_HOST_NODE_PARAMS (v1): {CUhostFn fn; void
// *userData;}, fn at 0, userData at 8; 16 bytes.
type cHostNodeParams struct {
	fn       uintptr
	userData uintptr
}

// cMemAllocNodeParams is CUDA_MEM_ALLOC_NODE_PARAMS (v1, cuda.h 11.4 to
// 13.0): poolProps (CUmemPoolProps, 88 bytes) at 0, accessDescs at 88,
// accessDescCount at 96, bytesize at 104, dptr (written by the driver) at
// 112; 120 bytes.
type cMemAllocNodeParams struct {
	poolProps       cMemPoolProps
	accessDescs     uintptr // const CUmemAccessDesc*; NULL: the allocating device only
	accessDescCount uintptr
	bytesize        uintptr
	dptr            uintptr
}

// cGraphNodeParams is CUgraphNodeParams (cuda.h 12.2 to 13.0) holding a
// CUDA_CONDITIONAL_NODE_PARAMS: type at 0, reserved0[3] at 4, the union
// (232 bytes: long long reserved1[29]) at 16, reserved2 at 248; 256 bytes.
// CUDA_CONDITIONAL_NODE_PARAMS, at the union's start: handle 0, type 8,
// size 12, phGraph_out 16 (a CUDA-owned array the driver points it to),
// ctx 24; 32 bytes.
type cGraphNodeParams struct {
	typ        uint32
	reserved0  [3]int32
	handle     uint64
	condType   uint32
	size       uint32
	phGraphOut unsafe.Pointer // CUgraph*, written by the driver
	ctx        uintptr
	_          [232 - 32]byte
	reserved2  int64
}

// graphNodeTypeConditional is CU_GRAPH_NODE_TYPE_CONDITIONAL.
const graphNodeTypeConditional = 13

// The layouts, checked at compile time: a wrong size or offset fails the
// build.
var (
	_ [16 - unsafe.Sizeof(cHostNodeParams{})]byte
	_ [unsafe.Sizeof(cHostNodeParams{}) - 16]byte
	_ [120 - unsafe.Sizeof(cMemAllocNodeParams{})]byte
	_ [unsafe.Sizeof(cMemAllocNodeParams{}) - 120]byte
	_ [112 - unsafe.Offsetof(cMemAllocNodeParams{}.dptr)]byte
	_ [unsafe.Offsetof(cMemAllocNodeParams{}.dptr) - 112]byte
	_ [256 - unsafe.Sizeof(cGraphNodeParams{})]byte
	_ [unsafe.Sizeof(cGraphNodeParams{}) - 256]byte
	_ [16 - unsafe.Offsetof(cGraphNodeParams{}.handle)]byte
	_ [unsafe.Offsetof(cGraphNodeParams{}.handle) - 16]byte
	_ [32 - unsafe.Offsetof(cGraphNodeParams{}.phGraphOut)]byte
	_ [unsafe.Offsetof(cGraphNodeParams{}.phGraphOut) - 32]byte
	_ [248 - unsafe.Offsetof(cGraphNodeParams{}.reserved2)]byte
	_ [unsafe.Offsetof(cGraphNodeParams{}.reserved2) - 248]byte
)

// hostNode keeps fn for a host node of graph g: the kept trampoline runs
// it under its id, and a user object that g owns forgets it once the
// driver let go of the last graph or exec with the node.
func (l *libcuda) hostNode(g uintptr, fn func(), add func(p *cHostNodeParams) error) error {
	if fn == nil {
		return backend.ErrInvalidValue
	}
	tramp, err := callback.KeptTrampoline()
	if err != nil {
		return err
	}
	id := callback.Keep(fn)
	obj, err := l.UserObjectCreate(func() { callback.Forget(id) })
	if err != nil {
		callback.Forget(id)
		return err
	}
	p := cHostNodeParams{fn: tramp, userData: id}
	if err := add(&p); err != nil {
		_ = l.UserObjectRelease(obj, 1) // its destructor forgets fn
		return err
	}
	if err := l.GraphRetainUserObject(g, obj, 1, backend.GraphUserObjectMove); err != nil {
		// The node runs fn: it stays kept (our reference is never
		// released), rather than the node calling a forgotten id.
		return nil
	}
	return nil
}

// GraphAddHostNode is cuGraphAddHostNode(..., const CUDA_HOST_NODE_PARAMS*).
func (l *libcuda) GraphAddHostNode(g uintptr, deps []uintptr, fn func()) (uintptr, error) {
	var n uintptr
	err := l.hostNode(g, fn, func(p *cHostNodeParams) error {
		var err error
		n, err = l.addNode(symGraphAddHostNode, g, deps, uintptr(unsafe.Pointer(p)), 0, 5)
		runtime.KeepAlive(p)
		return err
	})
	return n, err
}

// GraphHostNodeSetParams is cuGraphHostNodeSetParams(CUgraphNode, const
// CUDA_HOST_NODE_PARAMS*).
func (l *libcuda) GraphHostNodeSetParams(g, n uintptr, fn func()) error {
	proc, err := l.strictFn(symGraphHostNodeSetParams)
	if err != nil {
		return err
	}
	return l.hostNode(g, fn, func(p *cHostNodeParams) error {
		r := dl.Call2(proc, n, uintptr(unsafe.Pointer(p)))
		runtime.KeepAlive(p)
		return check(r)
	})
}

// execHosts are the kept functions of host nodes set on execs
// (cuGraphExecHostNodeSetParams), forgotten when the exec is destroyed: a
// user object cannot be given to an exec.
var execHosts = struct {
	mu sync.Mutex
	m  map[uintptr][]uintptr // exec -> kept ids
}{m: map[uintptr][]uintptr{}}

// GraphExecHostNodeSetParams is cuGraphExecHostNodeSetParams(CUgraphExec,
// CUgraphNode, const CUDA_HOST_NODE_PARAMS*).
func (l *libcuda) GraphExecHostNodeSetParams(x, n uintptr, fn func()) error {
	if fn == nil {
		return backend.ErrInvalidValue
	}
	proc, err := l.strictFn(symGraphExecHostNodeSetParams)
	if err != nil {
		return err
	}
	tramp, err := callback.KeptTrampoline()
	if err != nil {
		return err
	}
	id := callback.Keep(fn)
	p := cHostNodeParams{fn: tramp, userData: id}
	r := dl.Call3(proc, x, n, uintptr(unsafe.Pointer(&p)))
	runtime.KeepAlive(&p)
	if err := check(r); err != nil {
		callback.Forget(id)
		return err
	}
	execHosts.mu.Lock()
	execHosts.m[x] = append(execHosts.m[x], id)
	execHosts.mu.Unlock()
	return nil
}

// GraphExecDestroy is cuGraphExecDestroy(CUgraphExec); the functions set
// on the exec's host nodes are forgotten once it is destroyed.
func (l *libcuda) GraphExecDestroy(x uintptr) error {
	proc, err := l.strictFn(symGraphExecDestroy)
	if err != nil {
		return err
	}
	if err := check(dl.Call1(proc, x)); err != nil {
		return err
	}
	execHosts.mu.Lock()
	ids := execHosts.m[x]
	delete(execHosts.m, x)
	execHosts.mu.Unlock()
	for _, id := range ids {
		callback.Forget(id)
	}
	return nil
}

// GraphAddMemAllocNode is cuGraphAddMemAllocNode(..., CUDA_MEM_ALLOC_NODE_PARAMS*).
func (l *libcuda) GraphAddMemAllocNode(g uintptr, deps []uintptr, props backend.MemPoolProps, bytes uintptr) (uintptr, uintptr, error) {
	c := cMemAllocNodeParams{
		poolProps: cMemPoolProps{
			allocType:   props.AllocType,
			handleTypes: props.HandleTypes,
			location:    cLocation(props.Location),
			maxSize:     props.MaxSize,
			usage:       props.Usage,
		},
		bytesize: bytes,
	}
	n, err := l.addNode(symGraphAddMemAllocNode, g, deps, uintptr(unsafe.Pointer(&c)), 0, 5)
	runtime.KeepAlive(&c)
	if err != nil {
		return 0, 0, err
	}
	return n, c.dptr, nil
}

// GraphAddConditionalNode is cuGraphAddNode_v2(CUgraphNode*, CUgraph,
// const CUgraphNode* deps, const CUgraphEdgeData* (NULL), size_t numDeps,
// CUgraphNodeParams*) with a CUDA_CONDITIONAL_NODE_PARAMS of one body.
func (l *libcuda) GraphAddConditionalNode(g uintptr, deps []uintptr, handle uint64, typ backend.GraphCondType, ctx uintptr) (uintptr, uintptr, error) {
	proc, err := l.strictFn(symGraphAddNode)
	if err != nil {
		return 0, 0, err
	}
	c := cGraphNodeParams{typ: graphNodeTypeConditional, handle: handle, condType: uint32(typ), size: 1, ctx: ctx}
	var node, dp uintptr
	if len(deps) > 0 {
		dp = uintptr(unsafe.Pointer(&deps[0]))
	}
	r := dl.Call6(proc, uintptr(unsafe.Pointer(&node)), g, dp, 0, uintptr(len(deps)), uintptr(unsafe.Pointer(&c)))
	runtime.KeepAlive(deps)
	runtime.KeepAlive(&c)
	if err := check(r); err != nil {
		return 0, 0, err
	}
	if c.phGraphOut == nil {
		return node, 0, backend.ErrUnknown
	}
	return node, *(*uintptr)(c.phGraphOut), nil
}

// GraphExecKernelNodeSetParams is cuGraphExecKernelNodeSetParams_v2.
func (l *libcuda) GraphExecKernelNodeSetParams(x, n uintptr, kp *backend.KernelNodeParams) error {
	if kp == nil {
		return backend.ErrInvalidValue
	}
	proc, err := l.strictFn(symGraphExecKernelNodeSetParams)
	if err != nil {
		return err
	}
	c := *kp
	r := dl.Call3(proc, x, n, uintptr(unsafe.Pointer(&c)))
	runtime.KeepAlive(&c)
	return check(r)
}

// GraphExecMemcpyNodeSetParams is cuGraphExecMemcpyNodeSetParams(...,
// const CUDA_MEMCPY3D*, CUcontext) for a 1D copy.
func (l *libcuda) GraphExecMemcpyNodeSetParams(x, n uintptr, mp *backend.MemcpyNodeParams, ctx uintptr) error {
	if mp == nil {
		return backend.ErrInvalidValue
	}
	proc, err := l.strictFn(symGraphExecMemcpyNodeSetParams)
	if err != nil {
		return err
	}
	c := memcpy3DOf(mp)
	r := dl.Call4(proc, x, n, uintptr(unsafe.Pointer(&c)), ctx)
	runtime.KeepAlive(&c)
	return check(r)
}

// GraphExecMemsetNodeSetParams is cuGraphExecMemsetNodeSetParams(...,
// const CUDA_MEMSET_NODE_PARAMS*, CUcontext).
func (l *libcuda) GraphExecMemsetNodeSetParams(x, n uintptr, mp *backend.MemsetNodeParams, ctx uintptr) error {
	if mp == nil {
		return backend.ErrInvalidValue
	}
	proc, err := l.strictFn(symGraphExecMemsetNodeSetParams)
	if err != nil {
		return err
	}
	c := *mp
	r := dl.Call4(proc, x, n, uintptr(unsafe.Pointer(&c)), ctx)
	runtime.KeepAlive(&c)
	return check(r)
}

// GraphDebugDot is cuGraphDebugDotPrint(CUgraph, const char* path, unsigned
// int flags): the driver writes a temporary file, which is read and
// removed.
func (l *libcuda) GraphDebugDot(g uintptr, flags uint32) ([]byte, error) {
	proc, err := l.strictFn(symGraphDebugDotPrint)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", "nocgo-cuda-graph-*.dot")
	if err != nil {
		return nil, err
	}
	path := f.Name()
	defer os.Remove(path)
	if err := f.Close(); err != nil {
		return nil, err
	}
	cpath, err := cstr.Bytes(path)
	if err != nil {
		return nil, errors.Join(backend.ErrInvalidValue, err)
	}
	r := dl.Call3(proc, g, uintptr(unsafe.Pointer(&cpath[0])), uintptr(flags))
	runtime.KeepAlive(cpath)
	if err := check(r); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}
