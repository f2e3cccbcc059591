package graph

import (
	"fmt"
	"math"

	"github.com/nocgo/cuda/driver/backend"
)

// Alloc is the memory of an allocation node (AddAlloc): its address is
// fixed when the node is added, and the memory exists from each run of the
// node until a free node (AddFree) frees it. It is a value, valid while
// its graph is open.
type Alloc struct {
	node Node
	ptr  uintptr
	size int
}

// Node returns the allocation node, for the dependencies of the nodes that
// use the memory.
func (a Alloc) Node() Node { return a.node }

// Ptr returns the memory's device address (CUdeviceptr), to be passed to
// the kernels of the graph's nodes that use it.
func (a Alloc) Ptr() uintptr { return a.ptr }

// Size returns the memory's size in bytes.
func (a Alloc) Size() int { return a.size }

// AddAlloc adds a memory allocation node (cuGraphAddMemAllocNode): bytes of
// device memory on the graph's device, allocated each time the node runs,
// at an address fixed now (Alloc.Ptr), for the nodes that depend on it.
// Free it with a free node (AddFree) that depends on every node using it:
// an Exec whose memory from the last launch was not freed fails its next
// launch. A graph with memory nodes cannot be a child graph, and only one
// Exec of it can exist at a time.
func (g *Graph) AddAlloc(bytes int, deps ...Node) (Alloc, error) {
	const op = "graph.Graph.AddAlloc"
	if err := g.check(); err != nil {
		return Alloc{}, fmt.Errorf("%s: %w", op, err)
	}
	if bytes <= 0 || uint64(bytes) > math.MaxInt64 {
		return Alloc{}, fmt.Errorf("%s: %s: %d bytes: %w", op, g, bytes, errInvalid)
	}
	api, err := g.nodes()
	if err != nil {
		return Alloc{}, fmt.Errorf("%s: %w", op, err)
	}
	props := backend.MemPoolProps{
		AllocType: backend.MemAllocationTypePinned,
		Location:  backend.MemLocation{Type: backend.MemLocationDevice, ID: int32(g.ctx.Device().Ordinal())},
	}
	var ptr uintptr
	n, err := g.add(op, "cuGraphAddMemAllocNode", deps, func(ds []uintptr) (uintptr, error) {
		var n uintptr
		var r error
		n, ptr, r = api.GraphAddMemAllocNode(g.h, ds, props, uintptr(bytes))
		return n, r
	})
	if err != nil {
		return Alloc{}, err
	}
	return Alloc{node: n, ptr: ptr, size: bytes}, nil
}

// AddFree adds a node freeing the memory of a, an allocation node of the
// same graph (cuGraphAddMemFreeNode).
func (g *Graph) AddFree(a Alloc, deps ...Node) (Node, error) {
	const op = "graph.Graph.AddFree"
	if err := g.check(); err != nil {
		return Node{}, fmt.Errorf("%s: %w", op, err)
	}
	if a.node.g != g || a.ptr == 0 {
		return Node{}, fmt.Errorf("%s: %s: not an allocation of this graph: %w", op, g, errInvalid)
	}
	api, err := g.nodes()
	if err != nil {
		return Node{}, fmt.Errorf("%s: %w", op, err)
	}
	return g.add(op, "cuGraphAddMemFreeNode", deps, func(ds []uintptr) (uintptr, error) {
		return api.GraphAddMemFreeNode(g.h, ds, a.ptr)
	})
}
