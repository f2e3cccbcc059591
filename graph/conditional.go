package graph

import (
	"fmt"

	"github.com/nocgo/cuda/driver/backend"
)

// Condition is the condition of conditional nodes (CUgraphConditionalHandle,
// CUDA 12.3+), made by NewCondition for one graph. Each Exec of the graph
// has its own value of it: it starts at the default, is set back to it at
// the start of every launch when NewCondition was asked to, and is set by
// the graph's kernels with cudaGraphSetConditional(handle, value) (pass
// Handle as their cudaGraphConditionalHandle argument, an unsigned 64-bit
// integer). It is a value, valid while its graph is open.
type Condition struct {
	g *Graph
	h uint64
}

// Handle returns the raw CUgraphConditionalHandle.
func (c Condition) Handle() uint64 { return c.h }

// NewCondition returns a condition of g (cuGraphConditionalHandleCreate)
// with value def at first; with reset, every launch sets it back to def
// (CU_GRAPH_COND_ASSIGN_DEFAULT) before the graph runs.
func (g *Graph) NewCondition(def uint32, reset bool) (Condition, error) {
	const op = "graph.Graph.NewCondition"
	if err := g.check(); err != nil {
		return Condition{}, fmt.Errorf("%s: %w", op, err)
	}
	if g.body != nil {
		return Condition{}, fmt.Errorf("%s: %s is a conditional body: make the condition on the graph that owns it: %w", op, g, errInvalid)
	}
	api, err := g.nodes()
	if err != nil {
		return Condition{}, fmt.Errorf("%s: %w", op, err)
	}
	var flags uint32
	if reset {
		flags = backend.GraphCondAssignDefault
	}
	var h uint64
	err = g.hold.Do(func(backend.API) error {
		var r error
		h, r = api.GraphConditionalHandleCreate(g.h, g.ctx.Handle(), def, flags)
		return r
	})
	if err != nil {
		return Condition{}, fmt.Errorf("%s: %s: cuGraphConditionalHandleCreate: %w", op, g, err)
	}
	return Condition{g: g, h: h}, nil
}

// AddIf adds a conditional node that runs its body once when c is non-zero
// (CU_GRAPH_COND_TYPE_IF), and returns the node and the body: a Graph,
// built with the Add methods, that belongs to the node (its Close does
// nothing; it goes with g). The Programming Guide lets bodies hold kernel,
// copy, memset, empty, child and conditional nodes; driver 580 also takes
// host, memory-allocation and event nodes there (not free nodes on the
// fake). c must be a condition of g, or of the graph
// g is a body of.
func (g *Graph) AddIf(c Condition, deps ...Node) (Node, *Graph, error) {
	return g.addConditional("graph.Graph.AddIf", c, backend.GraphCondIf, deps)
}

// AddWhile adds a conditional node that runs its body again and again as
// long as c is non-zero (CU_GRAPH_COND_TYPE_WHILE): a kernel of the body
// (or before it) must set c to 0 to end the loop. It returns the node and
// the body, as AddIf does.
func (g *Graph) AddWhile(c Condition, deps ...Node) (Node, *Graph, error) {
	return g.addConditional("graph.Graph.AddWhile", c, backend.GraphCondWhile, deps)
}

func (g *Graph) addConditional(op string, c Condition, typ backend.GraphCondType, deps []Node) (Node, *Graph, error) {
	if err := g.check(); err != nil {
		return Node{}, nil, fmt.Errorf("%s: %w", op, err)
	}
	if c.g == nil || c.h == 0 || (c.g != g && c.g != g.body) {
		return Node{}, nil, fmt.Errorf("%s: %s: not a condition of this graph: %w", op, g, errInvalid)
	}
	api, err := g.nodes()
	if err != nil {
		return Node{}, nil, fmt.Errorf("%s: %w", op, err)
	}
	var body uintptr
	n, err := g.add(op, "cuGraphAddNode", deps, func(ds []uintptr) (uintptr, error) {
		var n uintptr
		var r error
		n, body, r = api.GraphAddConditionalNode(g.h, ds, c.h, typ, g.ctx.Handle())
		return n, r
	})
	if err != nil {
		return Node{}, nil, err
	}
	owner := g
	if g.body != nil {
		owner = g.body
	}
	b := &Graph{ctx: g.ctx, hold: g.hold, api: g.api, h: body, keep: g.keep, body: owner, box: g.box}
	return n, b, nil
}
