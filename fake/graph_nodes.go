package fake

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/core"
)

// The fake's host nodes, memory allocation and free nodes, and per-node
// updates of an exec (backend.GraphNodes; conditional nodes are in
// graph_cond.go, the DOT dump in graph_dot.go).

var _ backend.GraphNodes = (*fakeBackend)(nil)

// GraphAddHostNode is cuGraphAddHostNode: fn runs, in the graph's order,
// at every launch.
func (b *fakeBackend) GraphAddHostNode(g uintptr, deps []uintptr, fn func()) (uintptr, error) {
	const op = abi.CuGraphAddHostNode
	return b.addNode(op, g, deps, func() (*gnode, error) {
		if fn == nil {
			return nil, driver.ErrInvalidValue
		}
		return &gnode{kind: nodeHost, host: fn}, nil
	})
}

// GraphHostNodeSetParams is cuGraphHostNodeSetParams: later copies of the
// graph (clones, instantiations) run fn; those made before keep theirs.
func (b *fakeBackend) GraphHostNodeSetParams(g, n uintptr, fn func()) error {
	if err := b.enter(abi.CuGraphHostNodeSetParams); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	node := b.graphs.nodes[n]
	if node == nil || n == 0 || node.kind != nodeHost || fn == nil || b.graphs.owner[node].h != g {
		return driver.ErrInvalidValue
	}
	node.host = fn
	return nil
}

// graphMem is the allocation of a memory allocation node: its address and
// size are fixed when the node is made; the memory exists from a run of
// the allocation node to a run of a free node (or a cuMemFree).
type graphMem struct {
	base, size uintptr
	dev        *device
	ctx        *context
	live       *alloc // the allocation the last run of the node made
}

// GraphAddMemAllocNode is cuGraphAddMemAllocNode: pinned device memory of
// the device p.Location names, which must be the current context's.
func (b *fakeBackend) GraphAddMemAllocNode(g uintptr, deps []uintptr, p backend.MemPoolProps, bytes uintptr) (uintptr, uintptr, error) {
	const op = abi.CuGraphAddMemAllocNode
	tid := core.ThreadID()
	var m *graphMem
	n, err := b.addNode(op, g, deps, func() (*gnode, error) {
		if bytes == 0 || p.AllocType != backend.MemAllocationTypePinned || p.HandleTypes != 0 ||
			p.Location.Type != backend.MemLocationDevice {
			return nil, driver.ErrInvalidValue
		}
		c, err := b.currentLocked(tid)
		if err != nil {
			return nil, err
		}
		if int(p.Location.ID) != c.dev.ordinal {
			return nil, driver.ErrInvalidValue
		}
		if uint64(bytes) > c.dev.total || bytes > maxStorage {
			return nil, driver.ErrOutOfMemory
		}
		base, err := c.dev.carveLocked(bytes)
		if err != nil {
			return nil, err
		}
		m = &graphMem{base: base, size: bytes, dev: c.dev, ctx: c}
		return &gnode{kind: nodeAlloc, mem: m, run: b.graphAllocWork(m)}, nil
	})
	if err != nil {
		return 0, 0, err
	}
	return n, m.base, nil
}

// graphAllocWork is the work of an allocation node: the memory exists from
// now on, poisoned as cuMemAlloc's. Run again while the last run's memory
// was not freed, it fails, as a launch does on a GPU.
func (b *fakeBackend) graphAllocWork(m *graphMem) func() error {
	return func() error {
		b.mu.Lock()
		defer b.mu.Unlock()
		if m.live != nil && b.findLocked(m.base) == m.live {
			return driver.ErrInvalidValue
		}
		if uint64(m.size) > m.dev.total-m.dev.used {
			return driver.ErrOutOfMemory
		}
		m.dev.used += uint64(m.size)
		m.live = &alloc{base: m.base, size: m.size, data: newStorage(m.size), kind: deviceMem, dev: m.dev, ctx: m.ctx}
		b.insertLocked(m.live)
		return nil
	}
}

// GraphAddMemFreeNode is cuGraphAddMemFreeNode: dptr must be the address
// of an allocation node of the graph.
func (b *fakeBackend) GraphAddMemFreeNode(g uintptr, deps []uintptr, dptr uintptr) (uintptr, error) {
	const op = abi.CuGraphAddMemFreeNode
	return b.addNode(op, g, deps, func() (*gnode, error) {
		gr := b.graphs.graphs[g]
		var m *graphMem
		for _, n := range gr.nodes {
			if n.kind == nodeAlloc && n.mem.base == dptr {
				m = n.mem
			}
		}
		if m == nil || dptr == 0 {
			return nil, driver.ErrInvalidValue
		}
		for _, n := range gr.nodes {
			if n.kind == nodeFree && n.mem == m {
				return nil, driver.ErrInvalidValue // freed twice in the graph
			}
		}
		return &gnode{kind: nodeFree, mem: m, run: func() error {
			b.mu.Lock()
			defer b.mu.Unlock()
			if m.live == nil || b.findLocked(m.base) != m.live {
				return driver.ErrIllegalAddress // freed already
			}
			b.removeLocked(m.live)
			m.live = nil
			return nil
		}}, nil
	})
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
func (b *fakeBackend) memNodesInstantiableLocked(g *fgraph) error {
	if !hasMemNodes(g) {
		return nil
	}
	for _, x := range b.graphs.execs {
		if x.from == g {
			return driver.ErrNotSupported
		}
	}
	return nil
}

// execNodeLocked returns the node of exec x copied from the user's node n,
// which must be of kind k.
func (b *fakeBackend) execNodeLocked(x, n uintptr, k nodeKind) (*fexec, *gnode, error) {
	e := b.graphs.execs[x]
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

// GraphExecKernelNodeSetParams is cuGraphExecKernelNodeSetParams: checked
// as cuGraphAddKernelNode checks a node, the arguments copied now; the
// function must be of the exec's context. Launches made before keep the
// old parameters.
func (b *fakeBackend) GraphExecKernelNodeSetParams(x, n uintptr, p *backend.KernelNodeParams) error {
	if err := b.enter(abi.CuGraphExecKernelNodeSetParams); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	e, node, err := b.execNodeLocked(x, n, nodeKernel)
	if err != nil {
		return err
	}
	if p == nil || p.Extra != nil || p.Kernel != 0 {
		return driver.ErrInvalidValue
	}
	f, err := b.funcLocked(p.Func)
	if err != nil {
		return err
	}
	if f.mod.ctx != e.ctx || (p.Ctx != 0 && p.Ctx != e.ctx.h) {
		return driver.ErrInvalidValue
	}
	run, err := b.kernelWorkLocked(f, f.mod.ctx, p.Grid, p.Block, p.SharedMem, p.Params)
	if err != nil {
		return err
	}
	node.run = loadedOnly(f, run)
	b.buildStepsLocked(e)
	return nil
}

// GraphExecMemcpyNodeSetParams is cuGraphExecMemcpyNodeSetParams, checked
// as cuGraphAddMemcpyNode checks a node; ctx must be the exec's.
func (b *fakeBackend) GraphExecMemcpyNodeSetParams(x, n uintptr, p *backend.MemcpyNodeParams, ctx uintptr) error {
	if err := b.enter(abi.CuGraphExecMemcpyNodeSetParams); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	e, node, err := b.execNodeLocked(x, n, nodeMemcpy)
	if err != nil {
		return err
	}
	if ctx != e.ctx.h {
		return driver.ErrInvalidValue
	}
	run, err := b.memcpyNodeWorkLocked(p, ctx)
	if err != nil {
		return err
	}
	node.run = run
	b.buildStepsLocked(e)
	return nil
}

// GraphExecMemsetNodeSetParams is cuGraphExecMemsetNodeSetParams, checked
// as cuGraphAddMemsetNode checks a node; ctx must be the exec's.
func (b *fakeBackend) GraphExecMemsetNodeSetParams(x, n uintptr, p *backend.MemsetNodeParams, ctx uintptr) error {
	if err := b.enter(abi.CuGraphExecMemsetNodeSetParams); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	e, node, err := b.execNodeLocked(x, n, nodeMemset)
	if err != nil {
		return err
	}
	if ctx != e.ctx.h {
		return driver.ErrInvalidValue
	}
	run, err := b.memsetNodeWorkLocked(p, ctx)
	if err != nil {
		return err
	}
	node.run = run
	b.buildStepsLocked(e)
	return nil
}

// GraphExecHostNodeSetParams is cuGraphExecHostNodeSetParams.
func (b *fakeBackend) GraphExecHostNodeSetParams(x, n uintptr, fn func()) error {
	if err := b.enter(abi.CuGraphExecHostNodeSetParams); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	e, node, err := b.execNodeLocked(x, n, nodeHost)
	if err != nil {
		return err
	}
	if fn == nil {
		return driver.ErrInvalidValue
	}
	node.host = fn
	b.buildStepsLocked(e)
	return nil
}

// buildStepsLocked makes the steps a launch of x runs from its shape: a
// first step that gives the conditions their launch value, then a copy of
// each node, child graphs inlined (a launch keeps the steps of the moment
// it was made, so later updates never reach it).
func (b *fakeBackend) buildStepsLocked(x *fexec) {
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
