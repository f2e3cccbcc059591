package conformance

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/graph"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
)

// testGraphNodes checks the graph node kinds beyond capture and the basic
// explicit nodes: host nodes in the graph's order, memory allocation and
// free nodes, conditional if and while nodes, per-node updates of an Exec,
// the DOT dump, and retention (buffers and modules a graph uses cannot be
// closed under it; Retain's function runs once the graph and its Execs
// are gone).
func testGraphNodes(t *testing.T, drv *driver.Driver) {
	for _, c := range []struct {
		name string
		run  func(*testing.T, *driver.Driver)
	}{
		{"host", testGraphHostNodes},
		{"host-panic", testGraphHostPanic},
		{"memory", testGraphMemoryNodes},
		{"conditional", testGraphConditional},
		{"conditional-device", testGraphConditionalDevice},
		{"exec-set", testGraphExecSet},
		{"dot", testGraphDOT},
		{"retention", testGraphRetention},
		{"user-object", testGraphUserObject},
		{"rules", testGraphRules},
		{"capture-stream-closed", testGraphCaptureStreamClosed},
		{"capture-retains", testGraphCaptureRetains},
	} {
		t.Run(c.name, func(t *testing.T) { c.run(t, drv) })
	}
}

// testGraphHostNodes: a host node runs at every launch after the nodes it
// depends on (it sees the value a copy node brought to pinned memory), a
// CUDA call from it is refused, and SetHost on the graph reaches later
// Execs only, SetHost on an Exec that Exec only.
func testGraphHostNodes(t *testing.T, drv *driver.Driver) {
	f := newGraphFixture(t, drv)
	s := newStream(t, f.ctx)
	host, err := memory.AllocHost[float32](f.ctx, f.n)
	must(t, err)
	t.Cleanup(func() { must(t, host.Close()) })
	g, err := graph.New(f.ctx)
	must(t, err)
	closeGraph(t, g)
	args, err := f.add1.Args(f.buf, int32(f.n))
	must(t, err)
	k, err := g.AddKernel(f.add1, f.cfg(), args)
	must(t, err)
	c, err := graph.AddCopyToHost(g, host, f.buf, k)
	must(t, err)
	var mu sync.Mutex
	var seen []float32
	var refused error
	h, err := g.AddHost(func() {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, host.Slice()[f.n-1])
		if refused == nil {
			b, err := memory.Alloc[float32](f.ctx, 4)
			if err == nil {
				refused = errors.New("memory.Alloc from a host node succeeded")
				_ = b.Close()
				return
			}
			refused = err
		}
	}, c)
	must(t, err)
	x := instantiate(t, g)
	for range 3 {
		must(t, x.Launch(s))
	}
	must(t, s.Synchronize())
	mu.Lock()
	equal(t, seen, []float32{1, 2, 3}, "what the host node saw after each launch's copy")
	mustIs(t, refused, driver.ErrNotPermitted, "a CUDA call from a host node")
	mu.Unlock()

	var second, third atomic.Int32
	must(t, g.SetHost(h, func() { second.Add(1) }))
	must(t, x.Launch(s))
	must(t, s.Synchronize())
	equal(t, second.Load(), int32(0), "Graph.SetHost does not reach an Exec made before")
	y := instantiate(t, g)
	must(t, y.Launch(s))
	must(t, s.Synchronize())
	equal(t, second.Load(), int32(1), "an Exec made after Graph.SetHost runs the new function")
	must(t, x.SetHost(h, func() { third.Add(1) }))
	must(t, x.Launch(s))
	must(t, y.Launch(s))
	must(t, s.Synchronize())
	equal(t, third.Load(), int32(1), "Exec.SetHost: that Exec's next launch")
	equal(t, second.Load(), int32(2), "the other Exec keeps its function")
	mustIs(t, x.SetHost(k, func() {}), driver.ErrInvalidValue, "SetHost on a kernel node")
	mustIs(t, g.SetHost(h, nil), driver.ErrInvalidValue, "SetHost with a nil func")
	_, err = g.AddHost(nil)
	mustIs(t, err, driver.ErrInvalidValue, "AddHost with a nil func")
}

// testGraphHostPanic: a host node that panics, or calls runtime.Goexit as
// t.FailNow does, ends neither the program nor the graph: the nodes after
// it run, and HostPanic reports the first panic once.
func testGraphHostPanic(t *testing.T, drv *driver.Driver) {
	f := newGraphFixture(t, drv)
	s := newStream(t, f.ctx)
	g, err := graph.New(f.ctx)
	must(t, err)
	closeGraph(t, g)
	p, err := g.AddHost(func() { panic("host node boom") })
	must(t, err)
	var after atomic.Int32
	_, err = g.AddHost(func() { after.Add(1) }, p)
	must(t, err)
	x := instantiate(t, g)
	must(t, x.Launch(s))
	must(t, x.Launch(s))
	must(t, s.Synchronize())
	equal(t, after.Load(), int32(2), "the node after the panicking one ran at each launch")
	var pe *graph.HostPanicError
	mustAs(t, x.HostPanic(), &pe, "HostPanic after the panics")
	equal(t, pe.Value, any("host node boom"), "the panic's value")
	equal(t, pe.More, 1, "the second launch's panic is counted")
	must(t, x.HostPanic(), "HostPanic again: taken")
}

// testGraphMemoryNodes: an allocation node's memory exists for the nodes
// between it and its free node, at every launch; a graph with memory nodes
// has one Exec at a time and is no child graph.
func testGraphMemoryNodes(t *testing.T, drv *driver.Driver) {
	f := newGraphFixture(t, drv)
	s := newStream(t, f.ctx)
	m := Kernels(t, f.ctx)
	fill, err := m.Function(kernels.FillFloat)
	must(t, err)
	smem, err := m.Function(kernels.SmemCopy)
	must(t, err)
	g, err := graph.New(f.ctx)
	must(t, err)
	closeGraph(t, g)
	a, err := g.AddAlloc(4 * f.n)
	must(t, err)
	mustTrue(t, a.Ptr() != 0, "the allocation's address is known when the node is added")
	equal(t, a.Size(), 4*f.n, "the allocation's size")
	fa, err := fill.Args(a.Ptr(), float32(2), int32(f.n))
	must(t, err)
	k1, err := g.AddKernel(fill, f.cfg(), fa, a.Node())
	must(t, err)
	ca, err := smem.Args(f.buf, a.Ptr(), int32(f.n))
	must(t, err)
	cfg := f.cfg()
	cfg.SharedMem = 4 * 128
	k2, err := g.AddKernel(smem, cfg, ca, k1)
	must(t, err)
	_, err = g.AddFree(a, k2)
	must(t, err)
	x := instantiate(t, g)
	must(t, x.Launch(s))
	must(t, x.Launch(s))
	must(t, s.Synchronize())
	expectAll(t, f.buf, 6, "the graph's memory, filled with 2, copied times 3")

	_, err = g.Instantiate()
	mustErr(t, err, "a second Exec of a graph with memory nodes")
	parent, err := graph.New(f.ctx)
	must(t, err)
	closeGraph(t, parent)
	_, err = parent.AddChild(g)
	mustErr(t, err, "a graph with memory nodes as a child")
	other, err := graph.New(f.ctx)
	must(t, err)
	closeGraph(t, other)
	_, err = other.AddFree(a)
	mustIs(t, err, driver.ErrInvalidValue, "freeing another graph's allocation")
	_, err = g.AddAlloc(0)
	mustIs(t, err, driver.ErrInvalidValue, "an allocation of 0 bytes")
}

// testGraphConditional: an if node runs its body when its condition is
// non-zero, a while node not at all when it is zero; with reset, each
// launch starts from the default.
func testGraphConditional(t *testing.T, drv *driver.Driver) {
	f := newGraphFixture(t, drv)
	s := newStream(t, f.ctx)
	for _, c := range []struct {
		name  string
		def   uint32
		while bool
		want  float32 // after two launches
	}{
		{"if-true", 1, false, 2},
		{"if-false", 0, false, 0},
		{"while-false", 0, true, 0},
	} {
		must(t, memory.CopyToDevice(f.buf, make([]float32, f.n)))
		g, err := graph.New(f.ctx)
		must(t, err)
		cond, err := g.NewCondition(c.def, true)
		must(t, err, c.name)
		mustTrue(t, cond.Handle() != 0, "a condition has a handle")
		add := g.AddIf
		if c.while {
			add = g.AddWhile
		}
		_, body, err := add(cond)
		must(t, err, c.name)
		args, err := f.add1.Args(f.buf, int32(f.n))
		must(t, err)
		_, err = body.AddKernel(f.add1, f.cfg(), args)
		must(t, err, c.name+": a kernel in the body")
		must(t, body.Close(), "a body's Close does nothing")
		n, err := body.NodeCount()
		must(t, err, "the body is still open after its Close")
		equal(t, n, 1, "the body's nodes")
		x, err := g.Instantiate()
		must(t, err, c.name)
		must(t, x.Launch(s))
		must(t, x.Launch(s))
		must(t, s.Synchronize())
		expectAll(t, f.buf, c.want, c.name)
		must(t, x.Close())
		must(t, g.Close())
		_, err = body.NodeCount()
		mustIs(t, err, driver.ErrClosed, "the body after its graph's Close")
	}
	g, err := graph.New(f.ctx)
	must(t, err)
	closeGraph(t, g)
	other, err := graph.New(f.ctx)
	must(t, err)
	closeGraph(t, other)
	cond, err := other.NewCondition(1, false)
	must(t, err)
	_, _, err = g.AddIf(cond)
	mustIs(t, err, driver.ErrInvalidValue, "a condition of another graph")
	_, _, err = g.AddWhile(graph.Condition{})
	mustIs(t, err, driver.ErrInvalidValue, "a zero condition")
}

// testGraphExecSet: per-node updates of an Exec reach its next launches,
// not the graph nor another Exec; a node of the wrong kind is refused.
func testGraphExecSet(t *testing.T, drv *driver.Driver) {
	f := newGraphFixture(t, drv)
	s := newStream(t, f.ctx)
	other := newFloats(t, f.ctx, f.n)
	dst := newFloats(t, f.ctx, f.n)
	g, err := graph.New(f.ctx)
	must(t, err)
	closeGraph(t, g)
	args, err := f.add1.Args(f.buf, int32(f.n))
	must(t, err)
	k, err := g.AddKernel(f.add1, f.cfg(), args)
	must(t, err)
	fl, err := graph.AddFill(g, dst, float32(5), k)
	must(t, err)
	c, err := graph.AddCopy(g, dst, f.buf, fl)
	must(t, err)
	x := instantiate(t, g)
	y := instantiate(t, g)

	oargs, err := f.add1.Args(other, int32(f.n))
	must(t, err)
	must(t, x.SetKernel(k, f.add1, f.cfg(), oargs))
	must(t, graph.SetFill(x, fl, other, float32(7)))
	must(t, graph.SetCopy(x, c, f.buf, other))
	must(t, x.Launch(s))
	must(t, s.Synchronize())
	// x: other += 1 (0 -> 1), other = 7, f.buf = other (7).
	expectAll(t, other, 7, "the updated memset")
	expectAll(t, f.buf, 7, "the updated copy wrote f.buf")
	expectAll(t, dst, 0, "dst is no longer touched by x")
	must(t, y.Launch(s))
	must(t, s.Synchronize())
	// y keeps the graph's parameters: f.buf += 1 (8), dst = 5, dst = f.buf.
	expectAll(t, dst, 8, "the other Exec keeps the graph's nodes")

	mustIs(t, graph.SetFill(x, k, other, float32(1)), driver.ErrInvalidValue, "SetFill on a kernel node")
	mustIs(t, x.SetKernel(c, f.add1, f.cfg(), args), driver.ErrInvalidValue, "SetKernel on a copy node")
	g2, err := graph.New(f.ctx)
	must(t, err)
	closeGraph(t, g2)
	e, err := g2.AddEmpty()
	must(t, err)
	mustIs(t, graph.SetFill(x, e, other, float32(1)), driver.ErrInvalidValue, "a node of another graph")
}

// testGraphDOT: the dump is a DOT digraph with an edge per dependency.
func testGraphDOT(t *testing.T, drv *driver.Driver) {
	f := newGraphFixture(t, drv)
	g, err := graph.New(f.ctx)
	must(t, err)
	closeGraph(t, g)
	a, err := g.AddEmpty()
	must(t, err)
	b, err := graph.AddFill(g, f.buf, float32(1), a)
	must(t, err)
	_, err = g.AddEmpty(a, b)
	must(t, err)
	for _, verbose := range []bool{false, true} {
		var w bytes.Buffer
		must(t, g.DOT(&w, verbose))
		out := w.String()
		mustTrue(t, strings.HasPrefix(strings.TrimSpace(out), "digraph"), "the dump starts with digraph: %q", out)
		mustTrue(t, strings.Count(out, "->") >= 3, "three edges at least: %q", out)
		mustTrue(t, strings.Contains(out, "MEMSET"), "the memset node is named: %q", out)
	}
	mustIs(t, g.DOT(nil, false), driver.ErrInvalidValue, "a nil writer")
}

// testGraphRetention: a buffer a copy node uses and the module of a kernel
// node cannot be closed while the graph or an Exec of it is open; they can
// once those are closed.
func testGraphRetention(t *testing.T, drv *driver.Driver) {
	f := newGraphFixture(t, drv)
	m, err := module.Compile(f.ctx, kernels.Source, module.Options{Name: "retained.cu", NoCache: true, NameExpressions: []string{kernels.FillFloat}})
	must(t, err)
	add1, err := m.Function(kernels.Add1)
	must(t, err)
	src, err := memory.Alloc[float32](f.ctx, f.n)
	must(t, err)
	g, err := graph.New(f.ctx)
	must(t, err)
	_, err = graph.AddCopy(g, f.buf, src)
	must(t, err)
	args, err := add1.Args(f.buf, int32(f.n))
	must(t, err)
	_, err = g.AddKernel(add1, f.cfg(), args)
	must(t, err)
	x, err := g.Instantiate()
	must(t, err)
	mustIs(t, src.Close(), graph.ErrRetained, "closing a buffer a graph uses")
	mustIs(t, m.Close(), graph.ErrRetained, "closing a module a graph uses")
	mustTrue(t, !src.Closed(), "a refused Close changes nothing")
	must(t, g.Close())
	mustIs(t, src.Close(), graph.ErrRetained, "the Exec still uses the buffer")
	must(t, x.Close())
	must(t, src.Close(), "closing the buffer once the graph and Exec are closed")
	must(t, m.Close(), "closing the module once the graph and Exec are closed")

	g2, err := graph.New(f.ctx)
	must(t, err)
	kept, err := memory.Alloc[float32](f.ctx, 4)
	must(t, err)
	must(t, graph.KeepBuffer(g2, kept))
	c, err := g2.Clone()
	must(t, err)
	must(t, g2.Close())
	mustIs(t, kept.Close(), graph.ErrRetained, "a clone retains what its original did")
	must(t, c.Close())
	must(t, kept.Close())
}

// testGraphUserObject: a function handed to a graph with Retain runs once,
// after the graph and the Exec made from it are closed.
func testGraphUserObject(t *testing.T, drv *driver.Driver) {
	f := newGraphFixture(t, drv)
	s := newStream(t, f.ctx)
	g, err := graph.New(f.ctx)
	must(t, err)
	_, err = graph.AddFill(g, f.buf, float32(3))
	must(t, err)
	released := make(chan struct{}, 2)
	must(t, g.Retain(func() { released <- struct{}{} }))
	mustIs(t, g.Retain(nil), driver.ErrInvalidValue, "Retain of a nil func")
	x, err := g.Instantiate()
	must(t, err)
	must(t, g.Close())
	must(t, x.Launch(s))
	must(t, s.Synchronize())
	select {
	case <-released:
		t.Fatal("released while an Exec still holds it")
	case <-time.After(50 * time.Millisecond):
	}
	must(t, x.Close())
	select {
	case <-released:
	case <-time.After(10 * time.Second):
		t.Fatal("not released 10s after the last Exec's Close")
	}
	select {
	case <-released:
		t.Fatal("released twice")
	case <-time.After(50 * time.Millisecond):
	}
	expectAll(t, f.buf, 3, "the graph ran")
}
