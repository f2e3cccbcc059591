package graph

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// Graph is a CUDA graph (CUgraph) of one context, made by New, Clone or
// stream capture. It is owned: Close destroys it (cuGraphDestroy). It holds
// its context until Close. Building a graph (the Add methods) is not safe
// for concurrent use; everything else is. Each call holds the graph while
// it runs: a concurrent Close waits for it, and calls made once Close has
// begun fail with an error wrapping driver.ErrClosed.
type Graph struct {
	ctx  *driver.Context
	hold *core.Hold
	api  backend.Graphs
	h    uintptr

	keep *keep    // what the graph's nodes retain (retain.go)
	body *Graph   // for a conditional node's body: the graph that owns it
	box  *hostBox // the panics of the graph's host nodes (host.go)
}

// Node is a node of a Graph: a value, valid while its graph is open, given
// as a dependency of later nodes of the same graph.
type Node struct {
	g *Graph
	h uintptr
}

// Handle returns the raw CUgraphNode.
func (n Node) Handle() uintptr { return n.h }

// graphs returns the backend's graph interface, or an error wrapping
// errors.ErrUnsupported.
func graphs(api backend.API) (backend.Graphs, error) {
	g, ok := api.(backend.Graphs)
	if !ok {
		return nil, fmt.Errorf("the backend (%T) has no CUDA graphs (backend.Graphs): %w", api, errors.ErrUnsupported)
	}
	return g, nil
}

// hold takes a hold on ctx for a new object.
func hold(op string, ctx *driver.Context) (*core.Hold, backend.Graphs, error) {
	c, err := core.Of(op, ctx)
	if err != nil {
		return nil, nil, err
	}
	api, err := graphs(c.API)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", op, err)
	}
	h, err := c.Hold()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %s: %w", op, ctx, err)
	}
	return h, api, nil
}

// New returns an empty graph in ctx (cuGraphCreate), to be built with the
// Add methods.
func New(ctx *driver.Context) (*Graph, error) {
	const op = "graph.New"
	h, api, err := hold(op, ctx)
	if err != nil {
		return nil, err
	}
	var g uintptr
	err = h.Do(func(backend.API) error {
		var r error
		if g, r = api.GraphCreate(0); r != nil {
			return fmt.Errorf("cuGraphCreate: %w", r)
		}
		return nil
	})
	if err != nil {
		if g != 0 { // made, but unbinding failed
			err = h.Undo(err, func(backend.API) error { return api.GraphDestroy(g) })
		}
		return nil, fmt.Errorf("%s: %s: %w", op, ctx, h.Drop(err))
	}
	return newGraph(ctx, h, api, g), nil
}

// newGraph returns the Graph of a handle made for this library, with a
// retention set and a panic box of its own.
func newGraph(ctx *driver.Context, h *core.Hold, api backend.Graphs, g uintptr) *Graph {
	box := &hostBox{}
	return &Graph{ctx: ctx, hold: h, api: api, h: g, keep: &keep{boxes: []*hostBox{box}}, box: box}
}

// adopt wraps a graph handle the driver made for this library (capture,
// clone) in ctx.
func adopt(ctx *driver.Context, api backend.Graphs, g uintptr) (*Graph, error) {
	c := core.ContextOf(ctx)
	h, err := c.Hold()
	if err != nil {
		// The context was released meanwhile: destroy what was made.
		_ = api.GraphDestroy(g)
		return nil, err
	}
	return newGraph(ctx, h, api, g), nil
}

// Handle returns the raw CUgraph (0 for a nil Graph).
func (g *Graph) Handle() uintptr {
	if g == nil {
		return 0
	}
	return g.h
}

// Context returns the graph's context.
func (g *Graph) Context() *driver.Context {
	if g == nil {
		return nil
	}
	return g.ctx
}

// String describes the graph, for errors and logs.
func (g *Graph) String() string {
	if g == nil || g.hold == nil {
		return "nil graph"
	}
	s := fmt.Sprintf("graph %#x (%s)", g.h, g.ctx)
	if g.hold.Closed() {
		s = "closed " + s
	}
	return s
}

func (g *Graph) check() error {
	if g == nil || g.hold == nil {
		return fmt.Errorf("nil graph: %w", driver.ErrInvalidInput)
	}
	return g.hold.Check(g)
}

// use is check for a call that reads the graph's handle: it holds the
// graph open (a concurrent Close waits) until g.hold.Unuse.
func (g *Graph) use() error {
	if g == nil || g.hold == nil {
		return fmt.Errorf("nil graph: %w", driver.ErrInvalidInput)
	}
	return g.hold.Use(g)
}

// Close destroys the graph (cuGraphDestroy) and lets go of its context.
// Execs instantiated from it stay valid. A second Close returns nil; a
// failed destroy leaves the graph open so that Close can be retried.
func (g *Graph) Close() error {
	const op = "graph.Graph.Close"
	if g == nil || g.hold == nil {
		return fmt.Errorf("%s: nil graph: %w", op, driver.ErrInvalidInput)
	}
	if g.body != nil {
		return nil // the conditional node's: it goes with its graph
	}
	closing.RLock() // a Retain function waits for the releasing below
	defer closing.RUnlock()
	err := g.hold.Close(func(backend.API) error {
		if r := g.api.GraphDestroy(g.h); r != nil {
			return fmt.Errorf("%s: cuGraphDestroy: %w", g, r)
		}
		return nil
	})
	if g.hold.Closed() {
		g.keep.releaseOnce()
	}
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// Clone returns a deep copy of the graph (cuGraphClone), owned by the caller.
func (g *Graph) Clone() (*Graph, error) {
	const op = "graph.Graph.Clone"
	if err := g.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	var c uintptr
	err := g.hold.Do(func(backend.API) error {
		var r error
		if c, r = g.api.GraphClone(g.h); r != nil {
			return fmt.Errorf("%s: cuGraphClone: %w", g, r)
		}
		return nil
	})
	if err != nil {
		if c != 0 { // made, but unbinding failed
			_ = g.hold.Do(func(backend.API) error { return g.api.GraphDestroy(c) })
		}
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	out, err := adopt(g.ctx, g.api, c)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", op, g, err)
	}
	if err := out.keep.copyFrom(g.keep); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", op, g, errors.Join(err, out.Close()))
	}
	return out, nil
}

// NodeCount returns the number of nodes of the graph (child graphs count
// as one).
func (g *Graph) NodeCount() (int, error) {
	const op = "graph.Graph.NodeCount"
	if err := g.use(); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	defer g.hold.Unuse()
	n, r := g.api.GraphNodeCount(g.h)
	if r != nil {
		return 0, fmt.Errorf("%s: %s: cuGraphGetNodes: %w", op, g, r)
	}
	return n, nil
}

// EdgeCount returns the number of dependency edges of the graph.
func (g *Graph) EdgeCount() (int, error) {
	const op = "graph.Graph.EdgeCount"
	if err := g.use(); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	defer g.hold.Unuse()
	n, r := g.api.GraphEdgeCount(g.h)
	if r != nil {
		return 0, fmt.Errorf("%s: %s: cuGraphGetEdges: %w", op, g, r)
	}
	return n, nil
}

// add checks the graph and the dependencies, then adds a node with call,
// the context bound.
func (g *Graph) add(op, what string, deps []Node, call func(deps []uintptr) (uintptr, error)) (Node, error) {
	return g.addHeld(op, what, deps, nil, call)
}

// addHeld is add for a node that refers to the objects of holds (buffers,
// a module): the graph retains them from before the call (so that none is
// freed meanwhile) for its life, or lets go of them if the node is not
// added.
func (g *Graph) addHeld(op, what string, deps []Node, holds []*core.Hold, call func(deps []uintptr) (uintptr, error)) (_ Node, err error) {
	if err := g.check(); err != nil {
		return Node{}, fmt.Errorf("%s: %w", op, err)
	}
	if len(holds) > 0 {
		taken, err := g.keep.retain(g, holds...)
		if err != nil {
			return Node{}, fmt.Errorf("%s: %s: %w", op, g, err)
		}
		defer func() {
			if err != nil {
				g.keep.drop(taken)
			}
		}()
	}
	hs := make([]uintptr, len(deps))
	for i, d := range deps {
		if d.g != g || d.h == 0 {
			return Node{}, fmt.Errorf("%s: %s: dependency %d is not a node of this graph: %w", op, g, i, driver.ErrInvalidInput)
		}
		hs[i] = d.h
	}
	var n uintptr
	err = g.hold.Do(func(backend.API) error {
		var r error
		n, r = call(hs)
		return r
	})
	if err != nil {
		return Node{}, fmt.Errorf("%s: %s: %s: %w", op, g, what, err)
	}
	return Node{g: g, h: n}, nil
}

// AddKernel adds a kernel node: f launched with cfg and the prepared args
// (see module.Function.Args), after deps. The argument values are copied
// into the node; args may change or go afterwards. f must belong to the
// graph's context.
func (g *Graph) AddKernel(f *module.Function, cfg module.Config, args *module.Args, deps ...Node) (Node, error) {
	const op = "graph.Graph.AddKernel"
	if err := g.check(); err != nil {
		return Node{}, fmt.Errorf("%s: %w", op, err)
	}
	if m := f.Module(); m != nil && !m.Context().Same(g.ctx) {
		return Node{}, fmt.Errorf("%s: %s belongs to %s, the graph to %s: %w", op, f, m.Context(), g.ctx, driver.ErrWrongContext)
	}
	p, mh, err := core.KernelNode(f, cfg, args)
	if err != nil {
		return Node{}, fmt.Errorf("%s: %w", op, err)
	}
	n, err := g.addHeld(op, "cuGraphAddKernelNode", deps, []*core.Hold{mh}, func(ds []uintptr) (uintptr, error) {
		return g.api.GraphAddKernelNode(g.h, ds, &p)
	})
	runtime.KeepAlive(args)
	return n, err
}

// AddCopy adds a node copying src to dst, device to device; both of the
// graph's context and of the same length.
func AddCopy[T any](g *Graph, dst, src *memory.Buffer[T], deps ...Node) (Node, error) {
	const op = "graph.AddCopy"
	if err := g.check(); err != nil {
		return Node{}, fmt.Errorf("%s: %w", op, err)
	}
	if err := g.buffers(dst, src); err != nil {
		return Node{}, fmt.Errorf("%s: %s: %w", op, g, err)
	}
	p := backend.MemcpyNodeParams{Dst: dst.Ptr(), Src: src.Ptr(), Size: uintptr(dst.Size())}
	return g.addHeld(op, "cuGraphAddMemcpyNode", deps, holdsOf(dst, src), func(ds []uintptr) (uintptr, error) {
		return g.api.GraphAddMemcpyNode(g.h, ds, &p, g.ctx.Handle())
	})
}

// AddCopyToDevice adds a node copying the pinned host buffer src to dst at
// every launch; both of the graph's context and of the same length.
func AddCopyToDevice[T any](g *Graph, dst *memory.Buffer[T], src *memory.HostBuffer[T], deps ...Node) (Node, error) {
	const op = "graph.AddCopyToDevice"
	return addHostCopy(op, g, dst, src, true, deps)
}

// AddCopyToHost adds a node copying src to the pinned host buffer dst at
// every launch; both of the graph's context and of the same length.
func AddCopyToHost[T any](g *Graph, dst *memory.HostBuffer[T], src *memory.Buffer[T], deps ...Node) (Node, error) {
	const op = "graph.AddCopyToHost"
	return addHostCopy(op, g, src, dst, false, deps)
}

func addHostCopy[T any](op string, g *Graph, dev *memory.Buffer[T], host *memory.HostBuffer[T], toDevice bool, deps []Node) (Node, error) {
	if err := g.check(); err != nil {
		return Node{}, fmt.Errorf("%s: %w", op, err)
	}
	if err := g.buffers(dev); err != nil {
		return Node{}, fmt.Errorf("%s: %s: %w", op, g, err)
	}
	if host == nil || host.Len() == 0 {
		return Node{}, fmt.Errorf("%s: %s: nil, closed or empty host buffer: %w", op, g, driver.ErrInvalidInput)
	}
	if host.Len() != dev.Len() {
		return Node{}, fmt.Errorf("%s: %s: host buffer of %d elements, device buffer of %d: %w", op, g, host.Len(), dev.Len(), driver.ErrInvalidInput)
	}
	if hc := host.Context(); !hc.Same(g.ctx) {
		return Node{}, fmt.Errorf("%s: %s: the host buffer belongs to another context: %w", op, g, driver.ErrWrongContext)
	}
	hp := unsafe.Pointer(unsafe.SliceData(host.Slice()))
	p := backend.MemcpyNodeParams{Size: uintptr(dev.Size())}
	if toDevice {
		p.Dst, p.SrcHost = dev.Ptr(), hp
	} else {
		p.DstHost, p.Src = hp, dev.Ptr()
	}
	return g.addHeld(op, "cuGraphAddMemcpyNode", deps, holdsOf(dev), func(ds []uintptr) (uintptr, error) {
		return g.api.GraphAddMemcpyNode(g.h, ds, &p, g.ctx.Handle())
	})
}

// buffer is what the node checks read of a memory.Buffer.
type buffer interface {
	Ptr() uintptr
	Len() int
	Closed() bool
	Context() *driver.Context
}

// buffers checks that the buffers are open, of the graph's context and of
// the same length.
func (g *Graph) buffers(bufs ...buffer) error { return buffersOf(g.ctx, bufs...) }

// buffersOf checks that the buffers are open, of ctx and of the same
// length.
func buffersOf(ctx *driver.Context, bufs ...buffer) error {
	for i, b := range bufs {
		if b == nil || b.Closed() || b.Ptr() == 0 {
			return fmt.Errorf("buffer %d is nil or freed: %w", i, driver.ErrInvalidInput)
		}
		if !b.Context().Same(ctx) {
			return fmt.Errorf("buffer %d belongs to %s: %w", i, b.Context(), driver.ErrWrongContext)
		}
		if b.Len() != bufs[0].Len() {
			return fmt.Errorf("buffers of %d and %d elements: %w", bufs[0].Len(), b.Len(), driver.ErrInvalidInput)
		}
		if b.Len() == 0 {
			return fmt.Errorf("empty buffer: %w", driver.ErrInvalidInput)
		}
	}
	return nil
}

// AddFill adds a node setting every element of b to value; T must be 1, 2
// or 4 bytes long.
func AddFill[T any](g *Graph, b *memory.Buffer[T], value T, deps ...Node) (Node, error) {
	const op = "graph.AddFill"
	if err := g.check(); err != nil {
		return Node{}, fmt.Errorf("%s: %w", op, err)
	}
	if err := g.buffers(b); err != nil {
		return Node{}, fmt.Errorf("%s: %s: %w", op, g, err)
	}
	p, err := memsetOf(b, value)
	if err != nil {
		return Node{}, fmt.Errorf("%s: %s: %w", op, g, err)
	}
	return g.addHeld(op, "cuGraphAddMemsetNode", deps, holdsOf(b), func(ds []uintptr) (uintptr, error) {
		return g.api.GraphAddMemsetNode(g.h, ds, &p, g.ctx.Handle())
	})
}

// AddEventRecord adds a node recording ev (of the graph's context).
func (g *Graph) AddEventRecord(ev *stream.Event, deps ...Node) (Node, error) {
	const op = "graph.Graph.AddEventRecord"
	if err := g.event(ev); err != nil {
		return Node{}, fmt.Errorf("%s: %w", op, err)
	}
	return g.add(op, "cuGraphAddEventRecordNode", deps, func(ds []uintptr) (uintptr, error) {
		return g.api.GraphAddEventRecordNode(g.h, ds, ev.Handle())
	})
}

// AddEventWait adds a node that waits for ev's latest record at launch.
func (g *Graph) AddEventWait(ev *stream.Event, deps ...Node) (Node, error) {
	const op = "graph.Graph.AddEventWait"
	if err := g.event(ev); err != nil {
		return Node{}, fmt.Errorf("%s: %w", op, err)
	}
	return g.add(op, "cuGraphAddEventWaitNode", deps, func(ds []uintptr) (uintptr, error) {
		return g.api.GraphAddEventWaitNode(g.h, ds, ev.Handle())
	})
}

func (g *Graph) event(ev *stream.Event) error {
	if err := g.check(); err != nil {
		return err
	}
	if ev == nil || ev.Handle() == 0 || ev.Context() == nil {
		return fmt.Errorf("%s: nil or closed event: %w", g, driver.ErrInvalidInput)
	}
	if !ev.Context().Same(g.ctx) {
		return fmt.Errorf("%s: %s belongs to %s: %w", g, ev, ev.Context(), driver.ErrWrongContext)
	}
	return nil
}

// AddChild adds a node running a copy of child (cuGraphAddChildGraphNode);
// child stays the caller's, and later changes to it do not reach the node.
func (g *Graph) AddChild(child *Graph, deps ...Node) (Node, error) {
	const op = "graph.Graph.AddChild"
	if err := child.check(); err != nil {
		return Node{}, fmt.Errorf("%s: child: %w", op, err)
	}
	if child == g {
		return Node{}, fmt.Errorf("%s: %s: a graph cannot be its own child: %w", op, g, driver.ErrInvalidInput)
	}
	if !child.ctx.Same(g.Context()) {
		return Node{}, fmt.Errorf("%s: child %s: %w", op, child, driver.ErrWrongContext)
	}
	if err := child.use(); err != nil { // child is copied: held until then
		return Node{}, fmt.Errorf("%s: child: %w", op, err)
	}
	defer child.hold.Unuse()
	n, err := g.add(op, "cuGraphAddChildGraphNode", deps, func(ds []uintptr) (uintptr, error) {
		return g.api.GraphAddChildGraphNode(g.h, ds, child.h)
	})
	if err != nil {
		return Node{}, err
	}
	// The copy in the node refers to what child's nodes do.
	if err := g.keep.copyFrom(child.keep); err != nil {
		return n, fmt.Errorf("%s: %s: the node was added, but retaining what the child refers to failed: %w", op, g, err)
	}
	return n, nil
}

// AddEmpty adds a node that does nothing: a point to join dependencies.
func (g *Graph) AddEmpty(deps ...Node) (Node, error) {
	const op = "graph.Graph.AddEmpty"
	return g.add(op, "cuGraphAddEmptyNode", deps, func(ds []uintptr) (uintptr, error) {
		return g.api.GraphAddEmptyNode(g.h, ds)
	})
}
