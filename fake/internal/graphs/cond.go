package graphs

import (
	"sync/atomic"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
)

// The fake's conditional nodes (CUDA 12.3+): a condition (a conditional
// handle) belongs to a graph; each exec of the graph has its own value of
// it, which starts at the handle's default and, with
// CU_GRAPH_COND_ASSIGN_DEFAULT, is set back to it at the start of every
// launch. An if node runs its body once when the value is non-zero; a
// while node runs it as long as the value is non-zero. Device code sets
// the value with cudaGraphSetConditional: the interpreter hands the call,
// through the core, to Room.SetConditional, which sets the value of the
// exec whose kernel node runs (Room.running, set around each kernel step).

// maxWhileRuns bounds the runs of a while node's body in one launch: a GPU
// would spin forever on a condition nothing clears; the fake fails the
// launch (CUDA_ERROR_LAUNCH_FAILED) instead of hanging the test.
const maxWhileRuns = 1 << 20

type condHandle struct {
	id            uint64
	g             *fgraph // the graph it was made for
	ctx           uintptr
	def           uint32
	assignDefault bool
}

// condValue is an exec's value of a condition.
type condValue struct{ v atomic.Uint32 }

type condNode struct {
	h    *condHandle
	typ  backend.GraphCondType
	body *fgraph
}

// GraphConditionalHandleCreate is cuGraphConditionalHandleCreate; ctx 0 is
// the current context.
func (r *Room) GraphConditionalHandleCreate(g, ctx uintptr, def, flags uint32) (uint64, error) {
	if err := r.enter(abi.CuGraphConditionalHandleCreate); err != nil {
		return 0, err
	}
	if flags&^backend.GraphCondAssignDefault != 0 {
		return 0, driver.ErrInvalidValue
	}
	if _, err := r.depsOf(g, nil); err != nil {
		return 0, err
	}
	c, err := r.core.Context(ctx)
	if err != nil {
		return 0, err
	}
	id := uint64(r.core.NewHandle())
	r.mu.Lock()
	defer r.mu.Unlock()
	gr, err := r.graphLocked(g) // it may have gone meanwhile
	if err != nil {
		return 0, err
	}
	h := &condHandle{id: id, g: gr, ctx: c, def: def, assignDefault: flags&backend.GraphCondAssignDefault != 0}
	r.conds[h.id] = h
	return h.id, nil
}

// GraphAddConditionalNode is cuGraphAddNode of a conditional node: the
// handle must be of g, or of a graph g is a body of; the body graph is
// made here and owned by the node.
func (r *Room) GraphAddConditionalNode(g uintptr, deps []uintptr, handle uint64, typ backend.GraphCondType, ctx uintptr) (uintptr, uintptr, error) {
	const op = abi.CuGraphAddNode
	if err := r.enter(op); err != nil {
		return 0, 0, err
	}
	body := r.core.NewHandle()
	r.mu.Lock()
	defer r.mu.Unlock()
	ds, err := r.depsLocked(g, deps)
	if err != nil {
		return 0, 0, err
	}
	h := r.conds[handle]
	if h == nil || (typ != backend.GraphCondIf && typ != backend.GraphCondWhile) {
		return 0, 0, driver.ErrInvalidValue
	}
	if ctx != h.ctx || !graphWithin(h.g, r.graphs[g]) {
		return 0, 0, driver.ErrInvalidValue
	}
	b := r.newGraphLocked(body)
	b.body = true
	return r.addLocked(g, ds, &gnode{kind: nodeCond, cond: &condNode{h: h, typ: typ, body: b}}), body, nil
}

// graphWithin reports whether g is top or a body graph inside it.
func graphWithin(top, g *fgraph) bool {
	if top == g {
		return true
	}
	for _, n := range top.nodes {
		if n.cond != nil && graphWithin(n.cond.body, g) {
			return true
		}
		if n.child != nil && graphWithin(n.child, g) {
			return true
		}
	}
	return false
}

// copyCondLocked copies a conditional node's condition and body; a
// registered copy (a clone's) has a body graph of its own.
func (r *Room) copyCondLocked(c *condNode, registered bool) *condNode {
	body := &fgraph{body: true}
	if registered {
		body = r.newGraphLocked(r.core.NewHandle())
		body.body = true
	}
	r.copyIntoLocked(body, c.body, registered)
	return &condNode{h: c.h, typ: c.typ, body: body}
}

// valueOf returns x's value of the condition h, made at its default.
func (x *fexec) valueOf(h *condHandle) *condValue {
	v := x.conds[h]
	if v == nil {
		v = &condValue{}
		v.v.Store(h.def)
		x.conds[h] = v
	}
	return v
}

// resetStep returns the step that sets the conditions made with
// CU_GRAPH_COND_ASSIGN_DEFAULT to their default at the start of a launch,
// or nil when there are none.
func (x *fexec) resetStep() *gnode {
	type reset struct {
		v   *condValue
		def uint32
	}
	var rs []reset
	for h, v := range x.conds {
		if h.assignDefault {
			rs = append(rs, reset{v, h.def})
		}
	}
	if len(rs) == 0 {
		return nil
	}
	return &gnode{kind: nodeEmpty, run: func() error {
		for _, r := range rs {
			r.v.v.Store(r.def)
		}
		return nil
	}}
}

// condWork is the work of a conditional node of x: its body's steps, run
// as the condition says.
func (x *fexec) condWork(c *condNode) func() error {
	v := x.valueOf(c.h)
	body := x.stepsOf(c.body)
	return func() error {
		if c.typ == backend.GraphCondIf {
			if v.v.Load() != 0 {
				return runSteps(body, nil, nil)
			}
			return nil
		}
		for i := 0; v.v.Load() != 0; i++ {
			if i == maxWhileRuns {
				return driver.ErrLaunchFailed
			}
			if err := runSteps(body, nil, nil); err != nil {
				return err
			}
		}
		return nil
	}
}

// hasCondNodes reports whether g has conditional nodes (at its top level
// or in its child graphs).
func hasCondNodes(g *fgraph) bool {
	for _, n := range g.nodes {
		if n.cond != nil || (n.child != nil && hasCondNodes(n.child)) {
			return true
		}
	}
	return false
}

// condTable is what a kernel step of an exec may set: its conditions by
// handle.
type condTable map[uint64]*condValue

// condTableOf returns x's conditions by handle (a copy, read while its
// kernels run).
func (x *fexec) condTableOf() condTable {
	t := make(condTable, len(x.conds))
	for h, v := range x.conds {
		t[h.id] = v
	}
	return t
}

// inGraph wraps the work of a kernel step: while it runs, the kernel's
// cudaGraphSetConditional sets the conditions of table.
func inGraph(running *atomic.Pointer[condTable], table *condTable, run func() error) func() error {
	return func() error {
		prev := running.Swap(table)
		defer running.Store(prev)
		return run()
	}
}

// SetConditional is the device's cudaGraphSetConditional (the core hands
// it the interpreter's call): it sets handle's value in the exec whose
// kernel runs, and reports whether there was one with that condition.
func (r *Room) SetConditional(handle uint64, value uint32) bool {
	t := r.running.Load()
	if t == nil {
		return false
	}
	v := (*t)[handle]
	if v == nil {
		return false
	}
	v.v.Store(value)
	return true
}
