package graphs

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/nocgo/cuda/driver/backend"
)

// Room is the fake's CUDA graphs, stream capture, conditional handles and
// user objects: it implements backend.Graphs, backend.GraphNodes and
// backend.UserObjects, and the core embeds it so that they are the
// backend's entry points. The core reaches it through the methods below
// New (the capture hooks of its enqueue path, its leaks, the device's
// cudaGraphSetConditional).
type Room struct {
	core Core

	mu       sync.Mutex // a leaf: held, the room calls no Core method
	graphs   map[uintptr]*fgraph
	nodes    map[uintptr]*gnode
	owner    map[*gnode]*fgraph
	execs    map[uintptr]*fexec
	captures map[*Slot]*capture         // the streams that capture
	records  map[uintptr]*captureRecord // events (by handle) last recorded in a capture
	lastID   uint64
	conds    map[uint64]*condHandle  // conditional handles (cond.go)
	uobjs    map[uintptr]*userObject // user objects (user_objects.go)

	capturing atomic.Int32              // len(captures), read without the lock
	running   atomic.Pointer[condTable] // the conditions of the exec whose kernel step runs
}

var (
	_ backend.Graphs      = (*Room)(nil)
	_ backend.GraphNodes  = (*Room)(nil)
	_ backend.UserObjects = (*Room)(nil)
)

// New returns an empty room over core.
func New(core Core) *Room {
	r := &Room{core: core}
	r.init()
	return r
}

func (r *Room) init() {
	r.graphs = map[uintptr]*fgraph{}
	r.nodes = map[uintptr]*gnode{}
	r.owner = map[*gnode]*fgraph{}
	r.execs = map[uintptr]*fexec{}
	r.captures = map[*Slot]*capture{}
	r.records = map[uintptr]*captureRecord{}
	r.conds = map[uint64]*condHandle{}
	r.uobjs = map[uintptr]*userObject{}
	r.capturing.Store(0)
}

// ResetGraphs forgets every graph, exec, capture, condition and user object
// (a process's exit); no destructor runs.
func (r *Room) ResetGraphs() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for s := range r.captures {
		s.c = nil
	}
	r.init()
}

// GraphLeaks describes the graphs and the execs not destroyed (a
// conditional node's body goes with its node).
func (r *Room) GraphLeaks() (graphs, execs []backend.Leak) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for h, g := range r.graphs {
		if g.body {
			continue
		}
		graphs = append(graphs, backend.Leak{Kind: backend.LeakGraph, Handle: h, Detail: fmt.Sprintf("%d nodes", len(g.nodes))})
	}
	for h, x := range r.execs {
		execs = append(execs, backend.Leak{Kind: backend.LeakGraphExec, Handle: h, Context: x.ctx})
	}
	return graphs, execs
}

func (r *Room) enter(op string) error { return r.core.Enter(op) }

func (r *Room) enterTeardown(op string) (err error, ok bool) { return r.core.EnterTeardown(op) }
