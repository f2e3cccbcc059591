package graphs

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
)

// The host nodes, memory allocation and free nodes, and per-node updates
// of an exec (backend.GraphNodes; conditional nodes are in cond.go, the
// DOT dump in dot.go).

// GraphAddHostNode is cuGraphAddHostNode: fn runs, in the graph's order,
// at every launch.
func (r *Room) GraphAddHostNode(g uintptr, deps []uintptr, fn func()) (uintptr, error) {
	const op = abi.CuGraphAddHostNode
	return r.addNode(op, g, deps, func() (*gnode, error) {
		if fn == nil {
			return nil, driver.ErrInvalidValue
		}
		return &gnode{kind: nodeHost, host: fn}, nil
	})
}

// GraphHostNodeSetParams is cuGraphHostNodeSetParams: later copies of the
// graph (clones, instantiations) run fn; those made before keep theirs.
func (r *Room) GraphHostNodeSetParams(g, n uintptr, fn func()) error {
	if err := r.enter(abi.CuGraphHostNodeSetParams); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	node := r.nodes[n]
	if node == nil || n == 0 || node.kind != nodeHost || fn == nil || r.owner[node].h != g {
		return driver.ErrInvalidValue
	}
	node.host = fn
	return nil
}

// GraphAddMemAllocNode is cuGraphAddMemAllocNode: pinned device memory of
// the device p.Location names, which must be the current context's.
func (r *Room) GraphAddMemAllocNode(g uintptr, deps []uintptr, p backend.MemPoolProps, bytes uintptr) (uintptr, uintptr, error) {
	const op = abi.CuGraphAddMemAllocNode
	var m Mem
	n, err := r.addNode(op, g, deps, func() (*gnode, error) {
		if bytes == 0 || p.AllocType != backend.MemAllocationTypePinned || p.HandleTypes != 0 ||
			p.Location.Type != backend.MemLocationDevice {
			return nil, driver.ErrInvalidValue
		}
		var err error
		m, err = r.core.GraphMem(p.Location.ID, bytes)
		if err != nil {
			return nil, err
		}
		return &gnode{kind: nodeAlloc, mem: m, run: m.Alloc}, nil
	})
	if err != nil {
		return 0, 0, err
	}
	return n, m.Base(), nil
}

// GraphAddMemFreeNode is cuGraphAddMemFreeNode: dptr must be the address
// of an allocation node of the graph.
func (r *Room) GraphAddMemFreeNode(g uintptr, deps []uintptr, dptr uintptr) (uintptr, error) {
	const op = abi.CuGraphAddMemFreeNode
	if err := r.enter(op); err != nil {
		return 0, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	ds, err := r.depsLocked(g, deps)
	if err != nil {
		return 0, err
	}
	gr := r.graphs[g]
	var m Mem
	for _, n := range gr.nodes {
		if n.kind == nodeAlloc && n.mem.Base() == dptr {
			m = n.mem
		}
	}
	if m == nil || dptr == 0 {
		return 0, driver.ErrInvalidValue
	}
	for _, n := range gr.nodes {
		if n.kind == nodeFree && n.mem == m {
			return 0, driver.ErrInvalidValue // freed twice in the graph
		}
	}
	if gr.body {
		return 0, driver.ErrInvalidValue // no free node in a body (inBody)
	}
	return r.addLocked(g, ds, &gnode{kind: nodeFree, mem: m, run: m.Free}), nil
}

// hasMemNodes reports whether g or a graph inside it has memory nodes.
func hasMemNodes(g *fgraph) bool {
	for _, n := range g.nodes {
		switch {
		case n.kind == nodeAlloc || n.kind == nodeFree:
			return true
		case n.child != nil && hasMemNodes(n.child):
			return true
		case n.cond != nil && hasMemNodes(n.cond.body):
			return true
		}
	}
	return false
}

// memNodesInstantiableLocked enforces the driver's rule for graphs with
// memory nodes: at most one exec of such a graph exists at a time.
func (r *Room) memNodesInstantiableLocked(g *fgraph) error {
	if !hasMemNodes(g) {
		return nil
	}
	for _, x := range r.execs {
		if x.from == g {
			return driver.ErrNotSupported
		}
	}
	return nil
}

// execNodeLocked returns the node of exec x copied from the user's node n,
// which must be of kind k.
func (r *Room) execNodeLocked(x, n uintptr, k nodeKind) (*fexec, *gnode, error) {
	e := r.execs[x]
	if e == nil || x == 0 || n == 0 {
		return nil, nil, driver.ErrInvalidValue
	}
	for _, c := range e.shape.nodes {
		if c.from == n {
			if c.kind != k {
				return nil, nil, driver.ErrInvalidValue
			}
			return e, c, nil
		}
	}
	return nil, nil, driver.ErrInvalidValue
}

// execCtx returns the context of exec x, whose node copied from n must be
// of kind k.
func (r *Room) execCtx(x, n uintptr, k nodeKind) (uintptr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, _, err := r.execNodeLocked(x, n, k)
	if err != nil {
		return 0, err
	}
	return e.ctx, nil
}

// setExecNode makes the node of exec x copied from n, of kind k, run run
// (set: the host function fn) from the next launch on.
func (r *Room) setExecNode(x, n uintptr, k nodeKind, set func(*gnode)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, node, err := r.execNodeLocked(x, n, k)
	if err != nil {
		return err // destroyed meanwhile
	}
	set(node)
	r.buildStepsLocked(e)
	return nil
}

// GraphExecKernelNodeSetParams is cuGraphExecKernelNodeSetParams: checked
// as cuGraphAddKernelNode checks a node, the arguments copied now; the
// function must be of the exec's context. Launches made before keep the
// old parameters.
func (r *Room) GraphExecKernelNodeSetParams(x, n uintptr, p *backend.KernelNodeParams) error {
	if err := r.enter(abi.CuGraphExecKernelNodeSetParams); err != nil {
		return err
	}
	ctx, err := r.execCtx(x, n, nodeKernel)
	if err != nil {
		return err
	}
	if p == nil || p.Extra != nil {
		return driver.ErrInvalidValue
	}
	run, err := r.core.KernelWork(p, ctx)
	if err != nil {
		return err
	}
	return r.setExecNode(x, n, nodeKernel, func(node *gnode) { node.run = run })
}

// GraphExecMemcpyNodeSetParams is cuGraphExecMemcpyNodeSetParams, checked
// as cuGraphAddMemcpyNode checks a node; ctx must be the exec's.
func (r *Room) GraphExecMemcpyNodeSetParams(x, n uintptr, p *backend.MemcpyNodeParams, ctx uintptr) error {
	if err := r.enter(abi.CuGraphExecMemcpyNodeSetParams); err != nil {
		return err
	}
	c, err := r.execCtx(x, n, nodeMemcpy)
	if err != nil {
		return err
	}
	if ctx != c {
		return driver.ErrInvalidValue
	}
	run, err := r.core.MemcpyWork(p, ctx)
	if err != nil {
		return err
	}
	return r.setExecNode(x, n, nodeMemcpy, func(node *gnode) { node.run = run })
}

// GraphExecMemsetNodeSetParams is cuGraphExecMemsetNodeSetParams, checked
// as cuGraphAddMemsetNode checks a node; ctx must be the exec's.
func (r *Room) GraphExecMemsetNodeSetParams(x, n uintptr, p *backend.MemsetNodeParams, ctx uintptr) error {
	if err := r.enter(abi.CuGraphExecMemsetNodeSetParams); err != nil {
		return err
	}
	c, err := r.execCtx(x, n, nodeMemset)
	if err != nil {
		return err
	}
	if ctx != c {
		return driver.ErrInvalidValue
	}
	run, err := r.core.MemsetWork(p, ctx)
	if err != nil {
		return err
	}
	return r.setExecNode(x, n, nodeMemset, func(node *gnode) { node.run = run })
}

// GraphExecHostNodeSetParams is cuGraphExecHostNodeSetParams.
func (r *Room) GraphExecHostNodeSetParams(x, n uintptr, fn func()) error {
	if err := r.enter(abi.CuGraphExecHostNodeSetParams); err != nil {
		return err
	}
	if _, err := r.execCtx(x, n, nodeHost); err != nil {
		return err
	}
	if fn == nil {
		return driver.ErrInvalidValue
	}
	return r.setExecNode(x, n, nodeHost, func(node *gnode) { node.host = fn })
}

// buildStepsLocked makes the steps a launch of x runs from its shape: a
// first step that gives the conditions their launch value, then a copy of
// each node, child graphs inlined (a launch keeps the steps of the moment
// it was made, so later updates never reach it).
func (r *Room) buildStepsLocked(x *fexec) {
	if x.conds == nil {
		x.conds = map[*condHandle]*condValue{}
	}
	x.table = new(condTable)
	rest := x.stepsOf(x.shape) // binds the conditions first
	*x.table = x.condTableOf()
	var steps []*gnode
	if reset := x.resetStep(); reset != nil {
		steps = append(steps, reset)
	}
	x.steps = append(steps, rest...)
}

// stepsOf returns copies of the nodes of g, child graphs inlined, each
// conditional node's copy running its body with x's condition.
func (x *fexec) stepsOf(g *fgraph) []*gnode {
	var out []*gnode
	for _, n := range flatten(nil, g) {
		c := *n
		c.orig = n
		if n.cond != nil {
			c.run = x.condWork(n.cond)
		}
		if n.kind == nodeKernel && n.run != nil {
			c.run = inGraph(x.running, x.table, n.run)
		}
		out = append(out, &c)
	}
	return out
}
