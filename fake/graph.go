package fake

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/core"
)

// The fake's CUDA graphs. A graph is a list of nodes in creation order,
// each with its dependencies among earlier nodes, so creation order is a
// topological order. A node holds the work it does as the closure a stream
// item would run (validated and with its arguments copied when the node is
// made), an event to record or wait for, or a child graph (a deep copy).
// Instantiation flattens the graph, child graphs inlined, into the steps of
// an exec; a launch runs them, in that order, as stream items on the launch
// stream (see exec.go), so the graph is ordered with the other work of the
// stream as on a GPU.

type nodeKind int

const (
	nodeKernel nodeKind = iota
	nodeMemcpy
	nodeMemset
	nodeHost
	nodeChild
	nodeEmpty
	nodeWaitEvent
	nodeEventRecord
	nodeAlloc // cuGraphAddMemAllocNode (graph_nodes.go)
	nodeFree  // cuGraphAddMemFreeNode
	nodeCond  // a conditional node: if or while (graph_cond.go)
)

type gnode struct {
	h     uintptr
	kind  nodeKind
	deps  []*gnode
	run   func() error // kernel, memcpy, memset
	host  func()       // host function (captured cuLaunchHostFunc)
	ev    *event       // event record and wait nodes
	child *fgraph      // child graph nodes: the graph's own copy

	// from is the handle of the user's node this one was copied from, for
	// an exec's nodes (per-node updates name that node); 0 otherwise.
	from uintptr
	mem  *graphMem // allocation and free nodes: the allocation
	// orig is, for an exec's step, the node of the exec's shape it copies
	// (nil for a step of the launch's own, such as the conditions' reset).
	orig *gnode
	cond *condNode // conditional nodes: the condition and the body
}

type fgraph struct {
	h     uintptr
	nodes []*gnode

	// body: the graph is a conditional node's body, owned by the node (not
	// destroyed by the user, not reported as a leak).
	body bool
	// uobjs are the graph's references to user objects
	// (graph_user_objects.go).
	uobjs map[*userObject]uint32
}

// fexec is an instantiated graph.
type fexec struct {
	h     uintptr
	ctx   *context
	steps []*gnode // the nodes, child graphs inlined, in a topological order
	shape *fgraph  // what was instantiated (a copy), for updates

	conds map[*condHandle]*condValue // the exec's values of its conditions
	uobjs map[*userObject]uint32     // its references to user objects
	from  *fgraph                    // the graph it was instantiated from (memory nodes' rule)

	running *atomic.Pointer[condTable] // the backend's graphState.running
	table   *condTable                 // its conditions by handle, for its kernel steps
}

// graphState is the backend's graphs: the one field of Backend for them.
type graphState struct {
	graphs   map[uintptr]*fgraph
	nodes    map[uintptr]*gnode
	owner    map[*gnode]*fgraph
	execs    map[uintptr]*fexec
	captures map[*stream]*capture
	records  map[*event]*captureRecord // events last recorded in a capture
	lastID   uint64

	conds   map[uint64]*condHandle    // conditional handles (graph_cond.go)
	running atomic.Pointer[condTable] // the conditions of the exec whose kernel step runs
	uobjs   map[uintptr]*userObject   // user objects (graph_user_objects.go)
}

func (gs *graphState) init() {
	if gs.graphs == nil {
		gs.graphs = map[uintptr]*fgraph{}
		gs.nodes = map[uintptr]*gnode{}
		gs.owner = map[*gnode]*fgraph{}
		gs.execs = map[uintptr]*fexec{}
		gs.captures = map[*stream]*capture{}
		gs.records = map[*event]*captureRecord{}
		gs.conds = map[uint64]*condHandle{}
		gs.uobjs = map[uintptr]*userObject{}
	}
}

var _ backend.Graphs = (*fakeBackend)(nil)

// GraphCreate is cuGraphCreate; flags must be 0.
func (b *fakeBackend) GraphCreate(flags uint32) (uintptr, error) {
	if err := b.enter(abi.CuGraphCreate); err != nil {
		return 0, err
	}
	if flags != 0 {
		return 0, driver.ErrInvalidValue
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.newGraphLocked().h, nil
}

func (b *fakeBackend) newGraphLocked() *fgraph {
	b.graphs.init()
	g := &fgraph{h: newHandle()}
	b.graphs.graphs[g.h] = g
	return g
}

// GraphDestroy is cuGraphDestroy. A graph being captured into has no
// handle yet: it gets one at cuStreamEndCapture.
func (b *fakeBackend) GraphDestroy(h uintptr) error {
	sticky, ok := b.enterTeardown(abi.CuGraphDestroy)
	if !ok {
		return sticky
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	g, err := b.graphLocked(h)
	if err != nil {
		return err
	}
	if g.body {
		return driver.ErrInvalidValue // the conditional node's, not the user's
	}
	b.dropGraphLocked(g)
	return sticky
}

// enterTeardown is enter for the destruction of a graph or a graph exec,
// which no context's teardown takes with it: in a process poisoned by a
// sticky fault the call fails with that fault as every call does (err),
// but the object goes all the same (ok), as a context's own objects go
// with the context, so that a graph the user closed is not listed by
// Leaks. ok is false when the call must not go on.
func (b *fakeBackend) enterTeardown(op string) (err error, ok bool) {
	err = b.enter(op)
	if err == nil {
		return nil, true
	}
	if p := b.poison.Load(); p != nil && errors.Is(err, *p) {
		return err, true
	}
	return err, false
}

func (b *fakeBackend) dropGraphLocked(g *fgraph) {
	b.forgetGraphLocked(g)
	b.releaseTreeLocked(g)
}

// forgetGraphLocked removes g, its nodes and its conditional bodies from
// the handle tables.
func (b *fakeBackend) forgetGraphLocked(g *fgraph) {
	delete(b.graphs.graphs, g.h)
	for _, n := range g.nodes {
		delete(b.graphs.nodes, n.h)
		delete(b.graphs.owner, n)
		if n.cond != nil && n.cond.body.h != 0 {
			b.forgetGraphLocked(n.cond.body)
		}
	}
}

func (b *fakeBackend) graphLocked(h uintptr) (*fgraph, error) {
	g := b.graphs.graphs[h]
	if g == nil || h == 0 {
		return nil, driver.ErrInvalidValue
	}
	return g, nil
}

// GraphClone is cuGraphClone.
func (b *fakeBackend) GraphClone(h uintptr) (uintptr, error) {
	if err := b.enter(abi.CuGraphClone); err != nil {
		return 0, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	g, err := b.graphLocked(h)
	if err != nil {
		return 0, err
	}
	if hasMemNodes(g) || hasCondNodes(g) {
		// cuGraphClone: "Cloning is not supported for graphs which contain
		// memory allocation nodes, memory free nodes, or conditional
		// nodes".
		return 0, driver.ErrNotSupported
	}
	c := b.newGraphLocked()
	b.copyIntoLocked(c, g, true)
	b.mirrorRefsLocked(c, g)
	return c.h, nil
}

// copyIntoLocked appends deep copies of g's nodes to dst; registered says
// whether the copies get node handles (nodes of a child graph's copy and
// of an exec's shape are not the user's).
func (b *fakeBackend) copyIntoLocked(dst, g *fgraph, registered bool) {
	m := map[*gnode]*gnode{}
	for _, n := range g.nodes {
		c := &gnode{h: newHandle(), kind: n.kind, run: n.run, host: n.host, ev: n.ev, mem: n.mem}
		for _, d := range n.deps {
			c.deps = append(c.deps, m[d])
		}
		if n.child != nil {
			c.child = &fgraph{}
			b.copyIntoLocked(c.child, n.child, false)
		}
		if n.cond != nil {
			c.cond = b.copyCondLocked(n.cond, registered)
		}
		m[n] = c
		dst.nodes = append(dst.nodes, c)
		if registered {
			b.graphs.nodes[c.h] = c
			b.graphs.owner[c] = dst
		}
	}
}

// GraphNodeCount is cuGraphGetNodes with no array.
func (b *fakeBackend) GraphNodeCount(h uintptr) (int, error) {
	if err := b.enter(abi.CuGraphGetNodes); err != nil {
		return 0, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	g, err := b.graphLocked(h)
	if err != nil {
		return 0, err
	}
	return len(g.nodes), nil
}

// GraphEdgeCount is cuGraphGetEdges with no arrays.
func (b *fakeBackend) GraphEdgeCount(h uintptr) (int, error) {
	if err := b.enter(abi.CuGraphGetEdges); err != nil {
		return 0, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	g, err := b.graphLocked(h)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, x := range g.nodes {
		n += len(x.deps)
	}
	return n, nil
}

// addNode checks the graph and the dependencies (nodes of that graph, no
// repeats), asks make for the node under the table lock, and adds it.
func (b *fakeBackend) addNode(op string, h uintptr, deps []uintptr, make func() (*gnode, error)) (uintptr, error) {
	if err := b.enter(op); err != nil {
		return 0, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	g, err := b.graphLocked(h)
	if err != nil {
		return 0, err
	}
	var ds []*gnode
	for i, d := range deps {
		n := b.graphs.nodes[d]
		if n == nil || b.graphs.owner[n] != g {
			return 0, driver.ErrInvalidValue
		}
		for _, e := range deps[:i] {
			if e == d {
				return 0, driver.ErrInvalidValue
			}
		}
		ds = append(ds, n)
	}
	n, err := make()
	if err != nil {
		return 0, err
	}
	if g.body && !inBody(n) {
		return 0, driver.ErrInvalidValue
	}
	n.h, n.deps = newHandle(), ds
	g.nodes = append(g.nodes, n)
	b.graphs.nodes[n.h] = n
	b.graphs.owner[n] = g
	return n.h, nil
}

// inBody reports whether n may be a node of a conditional node's body: the
// CUDA programming guide ("Conditional Graph Nodes") allows kernel, copy,
// memset, empty, child graph and conditional nodes there, and a child
// graph under the same rule; the H200 (driver 580) takes host,
// memory-allocation and event record and wait nodes too (conformance case
// graph-nodes/rules), so only free nodes, which no GPU run has tried, are
// refused there.
func inBody(n *gnode) bool {
	switch n.kind {
	case nodeKernel, nodeMemcpy, nodeMemset, nodeEmpty, nodeCond, nodeHost, nodeAlloc, nodeEventRecord, nodeWaitEvent:
		return true
	case nodeChild:
		for _, c := range n.child.nodes {
			if !inBody(c) {
				return false
			}
		}
		return true
	}
	return false
}

// loadedOnly returns the work run of a graph's kernel node of f, which
// fails with CUDA_ERROR_INVALID_HANDLE, running nothing, once f's module
// is unloaded: a replay never runs unloaded code as if it were loaded (on
// a GPU it is undefined). run is returned as it is for work of no kernel
// (f nil).
func loadedOnly(f *function, run func() error) func() error {
	if f == nil || run == nil {
		return run
	}
	return func() error {
		if f.mod.unloaded.Load() {
			return driver.ErrInvalidHandle
		}
		return run()
	}
}

// GraphAddKernelNode is cuGraphAddKernelNode: checked as cuLaunchKernel
// checks a launch, the arguments copied now.
func (b *fakeBackend) GraphAddKernelNode(g uintptr, deps []uintptr, p *backend.KernelNodeParams) (uintptr, error) {
	const op = abi.CuGraphAddKernelNode
	return b.addNode(op, g, deps, func() (*gnode, error) {
		if p == nil || p.Extra != nil || p.Kernel != 0 {
			return nil, driver.ErrInvalidValue
		}
		f, err := b.funcLocked(p.Func)
		if err != nil {
			return nil, err
		}
		if p.Ctx != 0 && p.Ctx != f.mod.ctx.h {
			return nil, driver.ErrInvalidValue
		}
		run, err := b.kernelWorkLocked(f, f.mod.ctx, p.Grid, p.Block, p.SharedMem, p.Params)
		if err != nil {
			return nil, err
		}
		return &gnode{kind: nodeKernel, run: loadedOnly(f, run)}, nil
	})
}

// kernelWorkLocked checks a launch of f in c as cuLaunchKernel does and
// returns the work, with the arguments copied from params.
func (b *fakeBackend) kernelWorkLocked(f *function, c *context, grid, block [3]uint32, sharedMem uint32, params unsafe.Pointer) (func() error, error) {
	a := c.dev.attrs
	limits := [...]int{
		a[driver.AttrMaxGridDimX], a[driver.AttrMaxGridDimY], a[driver.AttrMaxGridDimZ],
		a[driver.AttrMaxBlockDimX], a[driver.AttrMaxBlockDimY], a[driver.AttrMaxBlockDimZ],
	}
	dims := [...]uint32{grid[0], grid[1], grid[2], block[0], block[1], block[2]}
	for i, d := range dims {
		if d == 0 || uint64(d) > uint64(limits[i]) {
			return nil, driver.ErrInvalidValue
		}
	}
	if uint64(block[0])*uint64(block[1])*uint64(block[2]) > uint64(a[driver.AttrMaxThreadsPerBlock]) {
		return nil, driver.ErrInvalidValue
	}
	if int(sharedMem) > f.maxDyn {
		return nil, errSharedTooLarge
	}
	k := f.k
	if err := k.checkInterpreted(block, sharedMem, a); err != nil {
		return nil, err
	}
	if err := k.checkRunnable(grid, block); err != nil {
		return nil, err
	}
	if len(k.params) > 0 && params == nil {
		return nil, driver.ErrInvalidValue
	}
	args := make([]byte, k.size)
	for i, p := range k.params {
		src := *(*unsafe.Pointer)(unsafe.Add(params, uintptr(i)*unsafe.Sizeof(params)))
		if src == nil {
			return nil, driver.ErrInvalidValue
		}
		copy(args[p.off:p.off+p.size], unsafe.Slice((*byte)(src), p.size))
	}
	sms, resident := a[driver.AttrMultiprocessorCount], k.residentBlocks(a, block, sharedMem)
	return func() error { return k.run(b, grid, block, sharedMem, sms, resident, args) }, nil
}

// GraphAddMemcpyNode is cuGraphAddMemcpyNode for a 1D copy. Host memory is
// read (or written) when the node runs, at every launch.
func (b *fakeBackend) GraphAddMemcpyNode(g uintptr, deps []uintptr, p *backend.MemcpyNodeParams, ctx uintptr) (uintptr, error) {
	const op = abi.CuGraphAddMemcpyNode
	return b.addNode(op, g, deps, func() (*gnode, error) {
		run, err := b.memcpyNodeWorkLocked(p, ctx)
		if err != nil {
			return nil, err
		}
		return &gnode{kind: nodeMemcpy, run: run}, nil
	})
}

// memcpyNodeWorkLocked checks a copy node's parameters and returns its work.
func (b *fakeBackend) memcpyNodeWorkLocked(p *backend.MemcpyNodeParams, ctx uintptr) (func() error, error) {
	if p == nil || p.Size == 0 {
		return nil, driver.ErrInvalidValue
	}
	if _, err := b.liveCtxLocked(ctx); err != nil {
		return nil, err
	}
	switch {
	case p.SrcHost != nil && p.DstHost != nil:
		return nil, driver.ErrInvalidValue
	case p.SrcHost != nil:
		return b.h2dWork(p.Dst, p.SrcHost, p.Size, false)
	case p.DstHost != nil:
		return b.d2hWork(p.DstHost, p.Src, p.Size)
	default:
		return b.d2dWork(p.Dst, p.Src, p.Size)
	}
}

// GraphAddMemsetNode is cuGraphAddMemsetNode: Height rows of Width
// elements, Pitch bytes apart.
func (b *fakeBackend) GraphAddMemsetNode(g uintptr, deps []uintptr, p *backend.MemsetNodeParams, ctx uintptr) (uintptr, error) {
	const op = abi.CuGraphAddMemsetNode
	return b.addNode(op, g, deps, func() (*gnode, error) {
		run, err := b.memsetNodeWorkLocked(p, ctx)
		if err != nil {
			return nil, err
		}
		return &gnode{kind: nodeMemset, run: run}, nil
	})
}

// memsetNodeWorkLocked checks a memset node's parameters (Height rows of
// Width elements, Pitch bytes apart) and returns its work.
func (b *fakeBackend) memsetNodeWorkLocked(p *backend.MemsetNodeParams, ctx uintptr) (func() error, error) {
	if p == nil || p.Width == 0 || p.Height == 0 {
		return nil, driver.ErrInvalidValue
	}
	if p.ElementSize != 1 && p.ElementSize != 2 && p.ElementSize != 4 {
		return nil, driver.ErrInvalidValue
	}
	if p.Height > 1 && p.Pitch < p.Width*uintptr(p.ElementSize) {
		return nil, driver.ErrInvalidValue
	}
	if _, err := b.liveCtxLocked(ctx); err != nil {
		return nil, err
	}
	var rows []func() error
	for r := uintptr(0); r < p.Height; r++ {
		w, err := b.memsetWork(p.Dst+r*p.Pitch, p.Value, uintptr(p.ElementSize), p.Width)
		if err != nil {
			return nil, err
		}
		rows = append(rows, w)
	}
	return func() error {
		for _, w := range rows {
			if err := w(); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// GraphAddEventRecordNode is cuGraphAddEventRecordNode.
func (b *fakeBackend) GraphAddEventRecordNode(g uintptr, deps []uintptr, ev uintptr) (uintptr, error) {
	const op = abi.CuGraphAddEventRecordNode
	return b.addEventNode(op, g, deps, ev, nodeEventRecord)
}

// GraphAddEventWaitNode is cuGraphAddEventWaitNode.
func (b *fakeBackend) GraphAddEventWaitNode(g uintptr, deps []uintptr, ev uintptr) (uintptr, error) {
	const op = abi.CuGraphAddEventWaitNode
	return b.addEventNode(op, g, deps, ev, nodeWaitEvent)
}

// addEventNode adds an event record or wait node on the live event ev.
func (b *fakeBackend) addEventNode(op string, g uintptr, deps []uintptr, ev uintptr, kind nodeKind) (uintptr, error) {
	return b.addNode(op, g, deps, func() (*gnode, error) {
		e := b.events[ev]
		if e == nil {
			return nil, b.goneLocked(ev)
		}
		return &gnode{kind: kind, ev: e}, nil
	})
}

// GraphAddChildGraphNode is cuGraphAddChildGraphNode: the child is copied.
func (b *fakeBackend) GraphAddChildGraphNode(g uintptr, deps []uintptr, child uintptr) (uintptr, error) {
	const op = abi.CuGraphAddChildGraphNode
	return b.addNode(op, g, deps, func() (*gnode, error) {
		c, err := b.graphLocked(child)
		if err != nil {
			return nil, err
		}
		if c.h == g || hasMemNodes(c) || hasCondNodes(c) {
			return nil, driver.ErrInvalidValue // graphs with memory or conditional nodes are no children
		}
		n := &gnode{kind: nodeChild, child: &fgraph{}}
		b.copyIntoLocked(n.child, c, false)
		b.mirrorRefsLocked(n.child, c)
		return n, nil
	})
}

// GraphAddEmptyNode is cuGraphAddEmptyNode.
func (b *fakeBackend) GraphAddEmptyNode(g uintptr, deps []uintptr) (uintptr, error) {
	const op = abi.CuGraphAddEmptyNode
	return b.addNode(op, g, deps, func() (*gnode, error) {
		return &gnode{kind: nodeEmpty}, nil
	})
}

// GraphInstantiate is cuGraphInstantiateWithFlags in the current context.
func (b *fakeBackend) GraphInstantiate(h uintptr, flags uint64) (uintptr, error) {
	if err := b.enter(abi.CuGraphInstantiateWithFlags); err != nil {
		return 0, err
	}
	// CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH 1, UPLOAD 2,
	// DEVICE_LAUNCH 4, USE_NODE_PRIORITY 8.
	if flags&^0xf != 0 {
		return 0, driver.ErrInvalidValue
	}
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	c, err := b.currentLocked(tid)
	if err != nil {
		return 0, err
	}
	g, err := b.graphLocked(h)
	if err != nil {
		return 0, err
	}
	if err := b.memNodesInstantiableLocked(g); err != nil {
		return 0, err
	}
	x := &fexec{h: newHandle(), ctx: c, from: g, running: &b.graphs.running}
	b.setShapeLocked(x, g)
	b.graphs.execs[x.h] = x
	return x.h, nil
}

// setShapeLocked makes x run a copy of g, holding g's user objects (those
// of its child graphs and bodies too) instead of those it held.
func (b *fakeBackend) setShapeLocked(x *fexec, g *fgraph) {
	old := x.shape
	x.shape = &fgraph{}
	b.copyIntoLocked(x.shape, g, false)
	for i, n := range x.shape.nodes {
		switch {
		case old != nil && i < len(old.nodes):
			n.from = old.nodes[i].from // an update keeps the nodes' names
		default:
			n.from = g.nodes[i].h
		}
	}
	held := x.uobjs
	x.uobjs = nil
	b.retainTreeLocked(&x.uobjs, g)
	b.releaseAllLocked(held, nil)
	b.buildStepsLocked(x)
}

func flatten(out []*gnode, g *fgraph) []*gnode {
	for _, n := range g.nodes {
		if n.child != nil {
			out = flatten(out, n.child)
			continue
		}
		out = append(out, n)
	}
	return out
}

// GraphExecDestroy is cuGraphExecDestroy; launches in flight still run.
func (b *fakeBackend) GraphExecDestroy(h uintptr) error {
	sticky, ok := b.enterTeardown(abi.CuGraphExecDestroy)
	if !ok {
		return sticky
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	x := b.graphs.execs[h]
	if x == nil || h == 0 {
		return driver.ErrInvalidValue
	}
	delete(b.graphs.execs, h)
	b.releaseAllLocked(x.uobjs, x.ctx)
	x.uobjs = nil
	return sticky
}

// GraphUpload is cuGraphUpload: a stream-ordered no-op on the fake.
func (b *fakeBackend) GraphUpload(h, s uintptr) error {
	if err := b.enter(abi.CuGraphUpload); err != nil {
		return err
	}
	return b.enqueue(s, &item{run: nop}, func(st *stream) error {
		x := b.graphs.execs[h]
		if x == nil || h == 0 {
			return driver.ErrInvalidValue
		}
		if x.ctx != st.ctx {
			return driver.ErrInvalidValue
		}
		return nil
	})
}

// GraphExecUpdate is cuGraphExecUpdate: the new graph must have the same
// topology (the same number of nodes, each of the same type, with the same
// dependencies); node parameters, kernels and events may change.
func (b *fakeBackend) GraphExecUpdate(h, gh uintptr) (backend.GraphExecUpdateInfo, error) {
	var info backend.GraphExecUpdateInfo
	if err := b.enter(abi.CuGraphExecUpdate); err != nil {
		return info, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	x := b.graphs.execs[h]
	if x == nil || h == 0 {
		return info, driver.ErrInvalidValue
	}
	g, err := b.graphLocked(gh)
	if err != nil {
		return info, err
	}
	if r, to, from := sameShape(g, x.shape); r != backend.GraphExecUpdateSuccess {
		info.Result = r
		if to != nil {
			info.ErrorNode = to.h
		}
		if from != nil {
			info.ErrorFromNode = from.h
		}
		return info, backend.ErrGraphExecUpdateFailure
	}
	b.setShapeLocked(x, g)
	return info, nil
}

// sameShape compares a new graph with an instantiated one, node by node in
// creation order, and returns why they differ and where.
func sameShape(g, old *fgraph) (backend.GraphExecUpdateResult, *gnode, *gnode) {
	if len(g.nodes) != len(old.nodes) {
		return backend.GraphExecUpdateErrorTopologyChanged, nil, nil
	}
	idx := map[*gnode]int{}
	oldIdx := map[*gnode]int{}
	for i := range g.nodes {
		idx[g.nodes[i]], oldIdx[old.nodes[i]] = i, i
	}
	for i, n := range g.nodes {
		o := old.nodes[i]
		if n.kind != o.kind {
			return backend.GraphExecUpdateErrorNodeTypeChanged, n, o
		}
		if len(n.deps) != len(o.deps) {
			return backend.GraphExecUpdateErrorTopologyChanged, n, o
		}
		for j := range n.deps {
			if idx[n.deps[j]] != oldIdx[o.deps[j]] {
				return backend.GraphExecUpdateErrorTopologyChanged, n, o
			}
		}
		if n.child != nil {
			if r, _, _ := sameShape(n.child, o.child); r != backend.GraphExecUpdateSuccess {
				return r, n, o
			}
		}
		if n.cond != nil {
			if n.cond.typ != o.cond.typ {
				return backend.GraphExecUpdateErrorParametersChanged, n, o
			}
			if r, _, _ := sameShape(n.cond.body, o.cond.body); r != backend.GraphExecUpdateSuccess {
				return r, n, o
			}
		}
	}
	return backend.GraphExecUpdateSuccess, nil, nil
}

// graphLeaksLocked describes the graphs and execs not destroyed.
func (b *fakeBackend) graphLeaksLocked(add func(rank int, l Leak)) {
	for h, g := range b.graphs.graphs {
		if g.body {
			continue // goes with its conditional node
		}
		add(9, Leak{Kind: backend.LeakGraph, Handle: h, Detail: fmt.Sprintf("%d nodes", len(g.nodes))})
	}
	for h, x := range b.graphs.execs {
		add(10, Leak{Kind: backend.LeakGraphExec, Handle: h, Context: x.ctx.h})
	}
}
