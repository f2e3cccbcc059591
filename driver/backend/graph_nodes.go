package backend

// GraphNodes is implemented by backends with the graph node kinds beyond
// backend.Graphs: host nodes (a Go function run at every launch), memory
// allocation and free nodes, conditional nodes (CUDA 12.4+), per-node
// parameter updates of an instantiated graph, and a DOT dump. Package graph
// type-asserts it and reports errors.ErrUnsupported when a backend lacks it.
//
// Handles are raw, as in Graphs. The host functions given here are kept by
// the backend for as long as a graph, a clone, a child copy or an exec may
// still run them; the backend lets go of them itself (the real backend
// through a user object the graph owns).
type GraphNodes interface {
	// GraphAddHostNode is cuGraphAddHostNode: fn runs on a driver thread
	// at every launch of an exec of the graph, once the node's
	// dependencies are done. fn must not call into CUDA, nor block.
	GraphAddHostNode(g uintptr, deps []uintptr, fn func()) (uintptr, error)
	// GraphHostNodeSetParams is cuGraphHostNodeSetParams: the host node n
	// of graph g runs fn from now on (execs made before keep theirs).
	GraphHostNodeSetParams(g, n uintptr, fn func()) error

	// GraphAddMemAllocNode is cuGraphAddMemAllocNode
	// (CUDA_MEM_ALLOC_NODE_PARAMS): bytes of device memory on the device
	// p.Location names, allocated when the node runs; the address is fixed
	// when the node is made and returned with it. The memory belongs to
	// the graph until a free node (or cuMemFree after a launch) frees it.
	GraphAddMemAllocNode(g uintptr, deps []uintptr, p MemPoolProps, bytes uintptr) (node, dptr uintptr, err error)
	// GraphAddMemFreeNode is cuGraphAddMemFreeNode: frees dptr, the address
	// of an allocation node of the graph, when the node runs.
	GraphAddMemFreeNode(g uintptr, deps []uintptr, dptr uintptr) (uintptr, error)

	// GraphConditionalHandleCreate is cuGraphConditionalHandleCreate
	// (CUDA 12.3+): a condition of graph g, for the conditional nodes of
	// g (or of its child graphs), run in context ctx. With flags
	// GraphCondAssignDefault the condition is set to defaultValue at the
	// start of every launch; otherwise it starts at defaultValue and keeps
	// the value the last launch left. Device code sets it with
	// cudaGraphSetConditional.
	GraphConditionalHandleCreate(g, ctx uintptr, defaultValue, flags uint32) (uint64, error)
	// GraphAddConditionalNode is cuGraphAddNode (v2, CUDA 12.4+) of a node
	// of type CU_GRAPH_NODE_TYPE_CONDITIONAL: typ is GraphCondIf or
	// GraphCondWhile, with one body graph, which the driver makes and
	// owns (valid while the node exists; never destroyed by the caller).
	GraphAddConditionalNode(g uintptr, deps []uintptr, handle uint64, typ GraphCondType, ctx uintptr) (node, body uintptr, err error)

	// GraphExecKernelNodeSetParams is cuGraphExecKernelNodeSetParams (v2):
	// the kernel node n of the exec's graph runs with p from the next
	// launch on. The function must be of the same context.
	GraphExecKernelNodeSetParams(x, n uintptr, p *KernelNodeParams) error
	// GraphExecMemcpyNodeSetParams is cuGraphExecMemcpyNodeSetParams for a
	// one-dimensional copy, in context ctx.
	GraphExecMemcpyNodeSetParams(x, n uintptr, p *MemcpyNodeParams, ctx uintptr) error
	// GraphExecMemsetNodeSetParams is cuGraphExecMemsetNodeSetParams, in
	// context ctx.
	GraphExecMemsetNodeSetParams(x, n uintptr, p *MemsetNodeParams, ctx uintptr) error
	// GraphExecHostNodeSetParams is cuGraphExecHostNodeSetParams: the
	// host node n of the exec's graph runs fn from the next launch on.
	GraphExecHostNodeSetParams(x, n uintptr, fn func()) error

	// GraphDebugDot is cuGraphDebugDotPrint: the graph in Graphviz DOT.
	// The real backend has the driver write a temporary file and reads it.
	GraphDebugDot(g uintptr, flags uint32) ([]byte, error)
}

// UserObjects is implemented by backends with CUDA user objects
// (cuUserObjectCreate, CUDA 11.3+): reference-counted objects that graphs
// and execs keep alive, whose destructor runs once the last reference is
// gone and the work that used it has completed.
type UserObjects interface {
	// UserObjectCreate is cuUserObjectCreate with one reference, owned by
	// the caller, and CU_USER_OBJECT_NO_DESTRUCTOR_SYNC. destroy runs once,
	// on a driver thread, when the last reference goes: it must not call
	// into CUDA and must return quickly.
	UserObjectCreate(destroy func()) (uintptr, error)
	// UserObjectRelease is cuUserObjectRelease: count references less.
	UserObjectRelease(obj uintptr, count uint32) error
	// GraphRetainUserObject is cuGraphRetainUserObject: graph g takes count
	// references (with GraphUserObjectMove, the caller's own, moved),
	// which it lets go of when destroyed.
	GraphRetainUserObject(g, obj uintptr, count, flags uint32) error
}

// GraphCondType is a CUgraphConditionalNodeType.
type GraphCondType uint32

// Conditional node types (cuda.h 12.4+).
const (
	GraphCondIf    GraphCondType = 0 // CU_GRAPH_COND_TYPE_IF: the body runs once when the condition is non-zero
	GraphCondWhile GraphCondType = 1 // CU_GRAPH_COND_TYPE_WHILE: the body runs while the condition is non-zero
)

// Flags of the calls above (cuda.h 13.0).
const (
	GraphCondAssignDefault     uint32 = 1 // CU_GRAPH_COND_ASSIGN_DEFAULT
	GraphUserObjectMove        uint32 = 1 // CU_GRAPH_USER_OBJECT_MOVE
	UserObjectNoDestructorSync uint32 = 1 // CU_USER_OBJECT_NO_DESTRUCTOR_SYNC
)

// GraphDebugDotVerbose is CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE: every node's
// parameters in the DOT dump.
const GraphDebugDotVerbose uint32 = 1
