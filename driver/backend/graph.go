package backend

import "unsafe"

// Graphs is implemented by backends with CUDA graphs: stream capture,
// explicit construction, instantiation, launch and update. Package graph
// type-asserts it and reports errors.ErrUnsupported when a backend lacks it.
//
// Handles are raw: CUgraph, CUgraphNode and CUgraphExec as uintptr. Node
// dependencies are passed as a slice of node handles of the same graph (nil
// for none). Calls that name a stream or a context need no current context;
// GraphInstantiate and GraphClone read the calling thread's current context
// as the driver does, so callers bind first.
type Graphs interface {
	// StreamBeginCapture is cuStreamBeginCapture_v2.
	StreamBeginCapture(s uintptr, mode CaptureMode) error
	// StreamEndCapture is cuStreamEndCapture: the captured graph, owned by
	// the caller (GraphDestroy). An invalidated capture ends with
	// ErrStreamCaptureInvalidated and no graph.
	StreamEndCapture(s uintptr) (graph uintptr, err error)
	// StreamGetCaptureInfo is cuStreamGetCaptureInfo (the CUDA 13 ABI, _v3):
	// the capture status and the capture sequence's unique id (0 when none).
	StreamGetCaptureInfo(s uintptr) (status CaptureStatus, id uint64, err error)

	// GraphCreate is cuGraphCreate (flags must be 0).
	GraphCreate(flags uint32) (uintptr, error)
	// GraphDestroy is cuGraphDestroy: the graph and its nodes.
	GraphDestroy(g uintptr) error
	// GraphClone is cuGraphClone: a deep copy, owned by the caller.
	GraphClone(g uintptr) (uintptr, error)
	// GraphNodeCount is cuGraphGetNodes with no array: the number of nodes.
	GraphNodeCount(g uintptr) (int, error)
	// GraphEdgeCount is cuGraphGetEdges with no arrays: the number of edges.
	GraphEdgeCount(g uintptr) (int, error)

	// GraphAddKernelNode is cuGraphAddKernelNode (CUDA_KERNEL_NODE_PARAMS
	// v2). The driver copies the arguments that p.Params points to.
	GraphAddKernelNode(g uintptr, deps []uintptr, p *KernelNodeParams) (uintptr, error)
	// GraphAddMemcpyNode is cuGraphAddMemcpyNode for a one-dimensional copy
	// of p.Size bytes, run in context ctx.
	GraphAddMemcpyNode(g uintptr, deps []uintptr, p *MemcpyNodeParams, ctx uintptr) (uintptr, error)
	// GraphAddMemsetNode is cuGraphAddMemsetNode (CUDA_MEMSET_NODE_PARAMS),
	// run in context ctx.
	GraphAddMemsetNode(g uintptr, deps []uintptr, p *MemsetNodeParams, ctx uintptr) (uintptr, error)
	// GraphAddEventRecordNode is cuGraphAddEventRecordNode.
	GraphAddEventRecordNode(g uintptr, deps []uintptr, ev uintptr) (uintptr, error)
	// GraphAddEventWaitNode is cuGraphAddEventWaitNode.
	GraphAddEventWaitNode(g uintptr, deps []uintptr, ev uintptr) (uintptr, error)
	// GraphAddChildGraphNode is cuGraphAddChildGraphNode: child is cloned
	// into the node; the caller keeps owning child.
	GraphAddChildGraphNode(g uintptr, deps []uintptr, child uintptr) (uintptr, error)
	// GraphAddEmptyNode is cuGraphAddEmptyNode.
	GraphAddEmptyNode(g uintptr, deps []uintptr) (uintptr, error)

	// GraphInstantiate is cuGraphInstantiateWithFlags, in the current context.
	GraphInstantiate(g uintptr, flags uint64) (uintptr, error)
	// GraphExecDestroy is cuGraphExecDestroy.
	GraphExecDestroy(e uintptr) error
	// GraphLaunch is cuGraphLaunch.
	GraphLaunch(e, s uintptr) error
	// GraphUpload is cuGraphUpload.
	GraphUpload(e, s uintptr) error
	// GraphExecUpdate is cuGraphExecUpdate (_v2, CUDA 12.0): on refusal the
	// error is the driver's (ErrGraphExecUpdateFailure) and info says why.
	GraphExecUpdate(e, g uintptr) (info GraphExecUpdateInfo, err error)
}

// CaptureMode is a CUstreamCaptureMode.
type CaptureMode uint32

// Capture modes.
const (
	CaptureModeGlobal      CaptureMode = 0 // CU_STREAM_CAPTURE_MODE_GLOBAL
	CaptureModeThreadLocal CaptureMode = 1 // CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
	CaptureModeRelaxed     CaptureMode = 2 // CU_STREAM_CAPTURE_MODE_RELAXED
)

// CaptureStatus is a CUstreamCaptureStatus.
type CaptureStatus uint32

// Capture statuses.
const (
	CaptureStatusNone        CaptureStatus = 0 // CU_STREAM_CAPTURE_STATUS_NONE
	CaptureStatusActive      CaptureStatus = 1 // CU_STREAM_CAPTURE_STATUS_ACTIVE
	CaptureStatusInvalidated CaptureStatus = 2 // CU_STREAM_CAPTURE_STATUS_INVALIDATED
)

// KernelNodeParams is CUDA_KERNEL_NODE_PARAMS_v2 (CUDA 12.0+), laid out as
// in cuda.h so that the real backend passes it as is. Offsets (cuda.h 13.0;
// checked against cuda-python's cydriver and a ctypes binding generated
// from cuda.h): func 0, gridDimX/Y/Z 8/12/16, blockDimX/Y/Z 20/24/28,
// sharedMemBytes 32, kernelParams 40, extra 48, kern 56, ctx 64; size 72.
type KernelNodeParams struct {
	Func      uintptr   // CUfunction
	Grid      [3]uint32 // gridDimX, gridDimY, gridDimZ
	Block     [3]uint32 // blockDimX, blockDimY, blockDimZ
	SharedMem uint32    // sharedMemBytes
	_         uint32
	Params    unsafe.Pointer // void** kernelParams, as for cuLaunchKernel
	Extra     unsafe.Pointer // void** extra; always nil here
	Kernel    uintptr        // CUkernel; 0 (Func is used)
	Ctx       uintptr        // CUcontext the kernel runs in; 0 for the current one
}

// MemcpyNodeParams describes a one-dimensional copy of Size bytes. Exactly
// one of Dst and DstHost is set, and one of Src and SrcHost: device pointers
// (CUdeviceptr) or host memory that stays valid while the graph may run.
type MemcpyNodeParams struct {
	Dst     uintptr
	DstHost unsafe.Pointer
	Src     uintptr
	SrcHost unsafe.Pointer
	Size    uintptr
}

// MemsetNodeParams is CUDA_MEMSET_NODE_PARAMS (v1), laid out as in cuda.h.
// Offsets (cuda.h 13.0; checked against cuda-python's cydriver and a ctypes
// binding generated from cuda.h): dst 0, pitch 8, value 16, elementSize 20,
// width 24, height 32; size 40.
type MemsetNodeParams struct {
	Dst         uintptr // CUdeviceptr
	Pitch       uintptr // bytes between rows; unused when Height is 1
	Value       uint32  // the value, of ElementSize bytes
	ElementSize uint32  // 1, 2 or 4
	Width       uintptr // elements per row
	Height      uintptr // rows
}

// GraphExecUpdateResult is a CUgraphExecUpdateResult.
type GraphExecUpdateResult uint32

// Graph update results (cuda.h 13.0; the same in cuda-python's cydriver).
const (
	GraphExecUpdateSuccess                    GraphExecUpdateResult = 0
	GraphExecUpdateError                      GraphExecUpdateResult = 1
	GraphExecUpdateErrorTopologyChanged       GraphExecUpdateResult = 2
	GraphExecUpdateErrorNodeTypeChanged       GraphExecUpdateResult = 3
	GraphExecUpdateErrorFunctionChanged       GraphExecUpdateResult = 4
	GraphExecUpdateErrorParametersChanged     GraphExecUpdateResult = 5
	GraphExecUpdateErrorNotSupported          GraphExecUpdateResult = 6
	GraphExecUpdateErrorUnsupportedFuncChange GraphExecUpdateResult = 7
	GraphExecUpdateErrorAttributesChanged     GraphExecUpdateResult = 8
)

// GraphExecUpdateInfo is CUgraphExecUpdateResultInfo: result 0 (4 bytes,
// then padding), errorNode 8, errorFromNode 16; size 24.
type GraphExecUpdateInfo struct {
	Result        GraphExecUpdateResult
	_             uint32
	ErrorNode     uintptr // the node of the new graph that was refused, if any
	ErrorFromNode uintptr // its counterpart in the instantiated graph, if any
}

// The CUresults of stream capture and graph update (cuda.h 13.0).
const (
	ErrStreamCaptureUnsupported Result = 900 // a call not permitted while the stream captures
	ErrStreamCaptureInvalidated Result = 901 // the capture failed earlier
	ErrStreamCaptureMerge       Result = 902 // two separate captures would merge
	ErrStreamCaptureUnmatched   Result = 903 // the capture was not begun in this stream
	ErrStreamCaptureUnjoined    Result = 904 // a forked stream was not joined back
	ErrStreamCaptureIsolation   Result = 905 // a dependency on uncaptured work
	ErrStreamCaptureImplicit    Result = 906 // the legacy stream would depend on a capture
	ErrCapturedEvent            Result = 907 // the event was last recorded in a capture
	ErrStreamCaptureWrongThread Result = 908 // a thread-local capture ended by another thread
	ErrGraphExecUpdateFailure   Result = 910 // cuGraphExecUpdate refused the update
)
