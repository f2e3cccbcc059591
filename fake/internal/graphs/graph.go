package graphs

import (
	"sync/atomic"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
)

// A graph is a list of nodes in creation order, each with its dependencies
// among earlier nodes, so creation order is a topological order. A node
// holds the work it does as the closure a stream item would run (validated
// and with its arguments copied by the core when the node is made), an
// event to record or wait for, or a child graph (a deep copy).
// Instantiation flattens the graph, child graphs inlined, into the steps of
// an exec; a launch runs them, in that order, as one item of the launch
// stream (launch.go), so the graph is ordered with the other work of the
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
	nodeAlloc // cuGraphAddMemAllocNode (nodes.go)
	nodeFree  // cuGraphAddMemFreeNode
	nodeCond  // a conditional node: if or while (cond.go)
)

type gnode struct {
	h     uintptr
	kind  nodeKind
	deps  []*gnode
	run   func() error // kernel, memcpy, memset
	host  func()       // host function (captured cuLaunchHostFunc)
	ev    Event        // event record and wait nodes
	child *fgraph      // child graph nodes: the graph's own copy

	// from is the handle of the user's node this one was copied from, for
	// an exec's nodes (per-node updates name that node); 0 otherwise.
	from uintptr
	mem  Mem // allocation and free nodes: the allocation
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
	// uobjs are the graph's references to user objects (user_objects.go).
	uobjs map[*userObject]uint32
}

// fexec is an instantiated graph.
type fexec struct {
	h     uintptr
	ctx   uintptr
	steps []*gnode // the nodes, child graphs inlined, in a topological order
	shape *fgraph  // what was instantiated (a copy), for updates

	conds map[*condHandle]*condValue // the exec's values of its conditions
	uobjs map[*userObject]uint32     // its references to user objects
	from  *fgraph                    // the graph it was instantiated from (memory nodes' rule)

	running *atomic.Pointer[condTable] // the room's running
	table   *condTable                 // its conditions by handle, for its kernel steps
}

// GraphCreate is cuGraphCreate; flags must be 0.
func (r *Room) GraphCreate(flags uint32) (uintptr, error) {
	if err := r.enter(abi.CuGraphCreate); err != nil {
		return 0, err
	}
	if flags != 0 {
		return 0, driver.ErrInvalidValue
	}
	h := r.core.NewHandle()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.newGraphLocked(h).h, nil
}

func (r *Room) newGraphLocked(h uintptr) *fgraph {
	g := &fgraph{h: h}
	r.graphs[g.h] = g
	return g
}

// GraphDestroy is cuGraphDestroy. A graph being captured into has no
// handle yet: it gets one at cuStreamEndCapture.
func (r *Room) GraphDestroy(h uintptr) error {
	sticky, ok := r.enterTeardown(abi.CuGraphDestroy)
	if !ok {
		return sticky
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	g, err := r.graphLocked(h)
	if err != nil {
		return err
	}
	if g.body {
		return driver.ErrInvalidValue // the conditional node's, not the user's
	}
	r.dropGraphLocked(g)
	return sticky
}

func (r *Room) dropGraphLocked(g *fgraph) {
	r.forgetGraphLocked(g)
	r.releaseTreeLocked(g)
}

// forgetGraphLocked removes g, its nodes and its conditional bodies from
// the handle tables.
func (r *Room) forgetGraphLocked(g *fgraph) {
	delete(r.graphs, g.h)
	for _, n := range g.nodes {
		delete(r.nodes, n.h)
		delete(r.owner, n)
		if n.cond != nil && n.cond.body.h != 0 {
			r.forgetGraphLocked(n.cond.body)
		}
	}
}

func (r *Room) graphLocked(h uintptr) (*fgraph, error) {
	g := r.graphs[h]
	if g == nil || h == 0 {
		return nil, driver.ErrInvalidValue
	}
	return g, nil
}

// GraphClone is cuGraphClone.
func (r *Room) GraphClone(h uintptr) (uintptr, error) {
	if err := r.enter(abi.CuGraphClone); err != nil {
		return 0, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	g, err := r.graphLocked(h)
	if err != nil {
		return 0, err
	}
	if hasMemNodes(g) || hasCondNodes(g) {
		// cuGraphClone: "Cloning is not supported for graphs which contain
		// memory allocation nodes, memory free nodes, or conditional
		// nodes".
		return 0, driver.ErrNotSupported
	}
	c := r.newGraphLocked(r.core.NewHandle())
	r.copyIntoLocked(c, g, true)
	r.mirrorRefsLocked(c, g)
	return c.h, nil
}

// copyIntoLocked appends deep copies of g's nodes to dst; registered says
// whether the copies get node handles (nodes of a child graph's copy and
// of an exec's shape are not the user's).
func (r *Room) copyIntoLocked(dst, g *fgraph, registered bool) {
	m := map[*gnode]*gnode{}
	for _, n := range g.nodes {
		c := &gnode{h: r.core.NewHandle(), kind: n.kind, run: n.run, host: n.host, ev: n.ev, mem: n.mem}
		for _, d := range n.deps {
			c.deps = append(c.deps, m[d])
		}
		if n.child != nil {
			c.child = &fgraph{}
			r.copyIntoLocked(c.child, n.child, false)
		}
		if n.cond != nil {
			c.cond = r.copyCondLocked(n.cond, registered)
		}
		m[n] = c
		dst.nodes = append(dst.nodes, c)
		if registered {
			r.nodes[c.h] = c
			r.owner[c] = dst
		}
	}
}

// GraphNodeCount is cuGraphGetNodes with no array.
func (r *Room) GraphNodeCount(h uintptr) (int, error) {
	if err := r.enter(abi.CuGraphGetNodes); err != nil {
		return 0, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	g, err := r.graphLocked(h)
	if err != nil {
		return 0, err
	}
	return len(g.nodes), nil
}

// GraphEdgeCount is cuGraphGetEdges with no arrays.
func (r *Room) GraphEdgeCount(h uintptr) (int, error) {
	if err := r.enter(abi.CuGraphGetEdges); err != nil {
		return 0, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	g, err := r.graphLocked(h)
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
// repeats), asks make for the node (make calls the core: the room's lock
// is not held), and adds it, checking the graph again.
func (r *Room) addNode(op string, h uintptr, deps []uintptr, make func() (*gnode, error)) (uintptr, error) {
	if err := r.enter(op); err != nil {
		return 0, err
	}
	if _, err := r.depsOf(h, deps); err != nil {
		return 0, err
	}
	n, err := make()
	if err != nil {
		return 0, err
	}
	handle := r.core.NewHandle()
	r.mu.Lock()
	defer r.mu.Unlock()
	ds, err := r.depsLocked(h, deps) // the graph may have gone meanwhile
	if err != nil {
		return 0, err
	}
	if r.graphs[h].body && !inBody(n) {
		return 0, driver.ErrInvalidValue
	}
	n.h, n.deps = handle, ds
	g := r.graphs[h]
	g.nodes = append(g.nodes, n)
	r.nodes[n.h] = n
	r.owner[n] = g
	return n.h, nil
}

func (r *Room) depsOf(h uintptr, deps []uintptr) ([]*gnode, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.depsLocked(h, deps)
}

// depsLocked checks that h is a graph and deps nodes of it, each once.
func (r *Room) depsLocked(h uintptr, deps []uintptr) ([]*gnode, error) {
	g, err := r.graphLocked(h)
	if err != nil {
		return nil, err
	}
	var ds []*gnode
	for i, d := range deps {
		n := r.nodes[d]
		if n == nil || r.owner[n] != g {
			return nil, driver.ErrInvalidValue
		}
		for _, e := range deps[:i] {
			if e == d {
				return nil, driver.ErrInvalidValue
			}
		}
		ds = append(ds, n)
	}
	return ds, nil
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

// GraphAddKernelNode is cuGraphAddKernelNode: checked as cuLaunchKernel
// checks a launch, the arguments copied now.
func (r *Room) GraphAddKernelNode(g uintptr, deps []uintptr, p *backend.KernelNodeParams) (uintptr, error) {
	const op = abi.CuGraphAddKernelNode
	return r.addNode(op, g, deps, func() (*gnode, error) {
		if p == nil || p.Extra != nil {
			return nil, driver.ErrInvalidValue
		}
		run, err := r.core.KernelWork(p, 0)
		if err != nil {
			return nil, err
		}
		return &gnode{kind: nodeKernel, run: run}, nil
	})
}

// GraphAddMemcpyNode is cuGraphAddMemcpyNode for a 1D copy. Host memory is
// read (or written) when the node runs, at every launch.
func (r *Room) GraphAddMemcpyNode(g uintptr, deps []uintptr, p *backend.MemcpyNodeParams, ctx uintptr) (uintptr, error) {
	const op = abi.CuGraphAddMemcpyNode
	return r.addNode(op, g, deps, func() (*gnode, error) {
		run, err := r.core.MemcpyWork(p, ctx)
		if err != nil {
			return nil, err
		}
		return &gnode{kind: nodeMemcpy, run: run}, nil
	})
}

// GraphAddMemsetNode is cuGraphAddMemsetNode: Height rows of Width
// elements, Pitch bytes apart.
func (r *Room) GraphAddMemsetNode(g uintptr, deps []uintptr, p *backend.MemsetNodeParams, ctx uintptr) (uintptr, error) {
	const op = abi.CuGraphAddMemsetNode
	return r.addNode(op, g, deps, func() (*gnode, error) {
		run, err := r.core.MemsetWork(p, ctx)
		if err != nil {
			return nil, err
		}
		return &gnode{kind: nodeMemset, run: run}, nil
	})
}

// GraphAddEventRecordNode is cuGraphAddEventRecordNode.
func (r *Room) GraphAddEventRecordNode(g uintptr, deps []uintptr, ev uintptr) (uintptr, error) {
	const op = abi.CuGraphAddEventRecordNode
	return r.addEventNode(op, g, deps, ev, nodeEventRecord)
}

// GraphAddEventWaitNode is cuGraphAddEventWaitNode.
func (r *Room) GraphAddEventWaitNode(g uintptr, deps []uintptr, ev uintptr) (uintptr, error) {
	const op = abi.CuGraphAddEventWaitNode
	return r.addEventNode(op, g, deps, ev, nodeWaitEvent)
}

// addEventNode adds an event record or wait node on the live event ev.
func (r *Room) addEventNode(op string, g uintptr, deps []uintptr, ev uintptr, kind nodeKind) (uintptr, error) {
	return r.addNode(op, g, deps, func() (*gnode, error) {
		e, err := r.core.Event(ev)
		if err != nil {
			return nil, err
		}
		return &gnode{kind: kind, ev: e}, nil
	})
}

// GraphAddChildGraphNode is cuGraphAddChildGraphNode: the child is copied.
func (r *Room) GraphAddChildGraphNode(g uintptr, deps []uintptr, child uintptr) (uintptr, error) {
	const op = abi.CuGraphAddChildGraphNode
	if err := r.enter(op); err != nil {
		return 0, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	ds, err := r.depsLocked(g, deps)
	if err != nil {
		return 0, err
	}
	c, err := r.graphLocked(child)
	if err != nil {
		return 0, err
	}
	if c.h == g || hasMemNodes(c) || hasCondNodes(c) {
		return 0, driver.ErrInvalidValue // graphs with memory or conditional nodes are no children
	}
	n := &gnode{kind: nodeChild, child: &fgraph{}}
	r.copyIntoLocked(n.child, c, false)
	r.mirrorRefsLocked(n.child, c)
	if r.graphs[g].body && !inBody(n) {
		r.releaseTreeLocked(n.child)
		return 0, driver.ErrInvalidValue
	}
	return r.addLocked(g, ds, n), nil
}

// addLocked adds n, checked, to the graph g after ds.
func (r *Room) addLocked(g uintptr, ds []*gnode, n *gnode) uintptr {
	gr := r.graphs[g]
	n.h, n.deps = r.core.NewHandle(), ds
	gr.nodes = append(gr.nodes, n)
	r.nodes[n.h] = n
	r.owner[n] = gr
	return n.h
}

// GraphAddEmptyNode is cuGraphAddEmptyNode.
func (r *Room) GraphAddEmptyNode(g uintptr, deps []uintptr) (uintptr, error) {
	const op = abi.CuGraphAddEmptyNode
	return r.addNode(op, g, deps, func() (*gnode, error) {
		return &gnode{kind: nodeEmpty}, nil
	})
}

// GraphInstantiate is cuGraphInstantiateWithFlags in the current context.
func (r *Room) GraphInstantiate(h uintptr, flags uint64) (uintptr, error) {
	if err := r.enter(abi.CuGraphInstantiateWithFlags); err != nil {
		return 0, err
	}
	// CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH 1, UPLOAD 2,
	// DEVICE_LAUNCH 4, USE_NODE_PRIORITY 8.
	if flags&^0xf != 0 {
		return 0, driver.ErrInvalidValue
	}
	c, err := r.core.Context(0)
	if err != nil {
		return 0, err
	}
	xh := r.core.NewHandle()
	r.mu.Lock()
	defer r.mu.Unlock()
	g, err := r.graphLocked(h)
	if err != nil {
		return 0, err
	}
	if err := r.memNodesInstantiableLocked(g); err != nil {
		return 0, err
	}
	x := &fexec{h: xh, ctx: c, from: g, running: &r.running}
	r.setShapeLocked(x, g)
	r.execs[x.h] = x
	return x.h, nil
}

// setShapeLocked makes x run a copy of g, holding g's user objects (those
// of its child graphs and bodies too) instead of those it held.
func (r *Room) setShapeLocked(x *fexec, g *fgraph) {
	old := x.shape
	x.shape = &fgraph{}
	r.copyIntoLocked(x.shape, g, false)
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
	r.retainTreeLocked(&x.uobjs, g)
	r.releaseAllLocked(held, 0)
	r.buildStepsLocked(x)
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
func (r *Room) GraphExecDestroy(h uintptr) error {
	sticky, ok := r.enterTeardown(abi.CuGraphExecDestroy)
	if !ok {
		return sticky
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	x := r.execs[h]
	if x == nil || h == 0 {
		return driver.ErrInvalidValue
	}
	delete(r.execs, h)
	r.releaseAllLocked(x.uobjs, x.ctx)
	x.uobjs = nil
	return sticky
}

// GraphUpload is cuGraphUpload: a stream-ordered no-op on the fake.
func (r *Room) GraphUpload(h, s uintptr) error {
	if err := r.enter(abi.CuGraphUpload); err != nil {
		return err
	}
	return r.core.Upload(s, func(st Stream) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		x := r.execs[h]
		if x == nil || h == 0 {
			return driver.ErrInvalidValue
		}
		if x.ctx != st.Ctx {
			return driver.ErrInvalidValue
		}
		return nil
	})
}

// GraphExecUpdate is cuGraphExecUpdate: the new graph must have the same
// topology (the same number of nodes, each of the same type, with the same
// dependencies); node parameters, kernels and events may change.
func (r *Room) GraphExecUpdate(h, gh uintptr) (backend.GraphExecUpdateInfo, error) {
	var info backend.GraphExecUpdateInfo
	if err := r.enter(abi.CuGraphExecUpdate); err != nil {
		return info, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	x := r.execs[h]
	if x == nil || h == 0 {
		return info, driver.ErrInvalidValue
	}
	g, err := r.graphLocked(gh)
	if err != nil {
		return info, err
	}
	if res, to, from := sameShape(g, x.shape); res != backend.GraphExecUpdateSuccess {
		info.Result = res
		if to != nil {
			info.ErrorNode = to.h
		}
		if from != nil {
			info.ErrorFromNode = from.h
		}
		return info, backend.ErrGraphExecUpdateFailure
	}
	r.setShapeLocked(x, g)
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
