package graph

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"sync"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// nodes returns the backend's interface of the node kinds beyond
// backend.Graphs, or an error wrapping errors.ErrUnsupported.
func (g *Graph) nodes() (backend.GraphNodes, error) {
	n, ok := g.api.(backend.GraphNodes)
	if !ok {
		return nil, fmt.Errorf("the backend (%T) has no host, memory or conditional graph nodes (backend.GraphNodes): %w", g.api, errors.ErrUnsupported)
	}
	return n, nil
}

// AddHost adds a host node: fn runs on the CPU at every launch of an Exec
// of the graph, once the node's dependencies are done, and the nodes that
// depend on it wait for it to return (cuGraphAddHostNode). It should
// return quickly: it holds up the graph.
//
// fn must not call into CUDA, as for stream.Stream.Callback: every call of
// this module made from fn that would reach the driver fails at once with
// an error wrapping driver.ErrNotPermitted. fn runs on a goroutine of its
// own; a panic in it, or runtime.Goexit (t.FailNow, require), does not
// crash the program: it is recovered, reported on stderr, and returned by
// Exec.HostPanic. The graph keeps fn (and what it captures) for as long as
// the graph, a clone or child copy of it, or an Exec made from any of them
// may run it.
func (g *Graph) AddHost(fn func(), deps ...Node) (Node, error) {
	const op = "graph.Graph.AddHost"
	if err := g.check(); err != nil {
		return Node{}, fmt.Errorf("%s: %w", op, err)
	}
	if fn == nil {
		return Node{}, fmt.Errorf("%s: %s: nil func: %w", op, g, errInvalid)
	}
	api, err := g.nodes()
	if err != nil {
		return Node{}, fmt.Errorf("%s: %w", op, err)
	}
	run := g.box.runner(fn)
	return g.add(op, "cuGraphAddHostNode", deps, func(ds []uintptr) (uintptr, error) {
		return api.GraphAddHostNode(g.h, ds, run)
	})
}

// SetHost makes the host node n of g run fn from now on
// (cuGraphHostNodeSetParams); Execs made before keep their function (see
// Exec.SetHost).
func (g *Graph) SetHost(n Node, fn func()) error {
	const op = "graph.Graph.SetHost"
	if err := g.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if n.g != g || n.h == 0 {
		return fmt.Errorf("%s: %s: not a node of this graph: %w", op, g, errInvalid)
	}
	if fn == nil {
		return fmt.Errorf("%s: %s: nil func: %w", op, g, errInvalid)
	}
	api, err := g.nodes()
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	run := g.box.runner(fn)
	err = g.hold.Do(func(backend.API) error { return api.GraphHostNodeSetParams(g.h, n.h, run) })
	if err != nil {
		return fmt.Errorf("%s: %s: cuGraphHostNodeSetParams: %w", op, g, err)
	}
	return nil
}

// HostPanicError is what Exec.HostPanic returns when a host node's
// function panicked (or called runtime.Goexit).
type HostPanicError struct {
	Value any    // what the function panicked with
	Stack []byte // its stack at the panic
	More  int    // how many later runs also panicked before HostPanic
}

// Error describes the panic; the stack is in the Stack field.
func (e *HostPanicError) Error() string {
	if e == nil {
		return "graph.HostPanicError: nil"
	}
	s := fmt.Sprintf("graph: host node function panicked: %v", e.Value)
	if e.More > 0 {
		s += fmt.Sprintf(" (and %d more)", e.More)
	}
	return s
}

// errGoexit is the Value of a HostPanicError whose function called
// runtime.Goexit instead of returning.
var errGoexit = errors.New("the host node's function called runtime.Goexit (t.FailNow, require...) instead of returning")

// hostBox keeps the first panic of the host nodes of a graph (and its
// clones and bodies) until HostPanic takes it.
type hostBox struct {
	mu    sync.Mutex
	first *HostPanicError
}

func (b *hostBox) note(v any, stack []byte) {
	fmt.Fprintf(os.Stderr, "nocgo/cuda: graph host node panicked: %v\n%s", v, stack)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.first == nil {
		b.first = &HostPanicError{Value: v, Stack: stack}
		return
	}
	b.first.More++
}

func (b *hostBox) take() *HostPanicError {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.first
	b.first = nil
	return p
}

// runner returns what the driver runs for fn: fn on a goroutine of its
// own, marked as a host callback (see core.EnterCallback), its panic or
// Goexit noted in b.
func (b *hostBox) runner(fn func()) func() {
	return func() {
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer core.LeaveCallback(core.EnterCallback())
			returned := false
			defer func() {
				if v := recover(); v != nil {
					b.note(v, debug.Stack())
				} else if !returned {
					b.note(errGoexit, debug.Stack())
				}
			}()
			fn()
			returned = true
		}()
		<-done
	}
}
