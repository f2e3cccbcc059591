package conformance

import (
	"errors"
	"runtime"
	"testing"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/graph"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// testGraphs checks package graph on drv: stream capture on owned and
// wrapped streams, replay in stream order, fork and join through events,
// the errors of calls not permitted during capture, explicit construction,
// update, and the ownership rules.
func testGraphs(t *testing.T, drv *driver.Driver) {
	for _, c := range []struct {
		name string
		run  func(*testing.T, *driver.Driver)
	}{
		{"capture-replay", testGraphCaptureReplay},
		{"capture-foreign", testGraphCaptureForeign},
		{"capture-status", testGraphCaptureStatus},
		{"capture-sync-invalidates", testGraphCaptureSync},
		{"capture-modes", testGraphCaptureModes},
		{"capture-implicit", testGraphCaptureImplicit},
		{"capture-illegal-state", testGraphCaptureIllegal},
		{"fork-join", testGraphForkJoin},
		{"unjoined", testGraphUnjoined},
		{"explicit", testGraphExplicit},
		{"update", testGraphUpdate},
		{"wrong-context", testGraphWrongContext},
		{"closed", testGraphClosed},
	} {
		t.Run(c.name, func(t *testing.T) { c.run(t, drv) })
		// Every graph and exec the case made was destroyed by its cleanups.
		if all, ok := leaks(drv); ok {
			for _, l := range all {
				if l.Kind == backend.LeakGraph || l.Kind == backend.LeakGraphExec {
					t.Errorf("after %s: leaked %s", c.name, l)
				}
			}
		}
	}
}

// graphFixture is what the graph cases share: a context, the add1 kernel
// and a float buffer of n zeros.
type graphFixture struct {
	ctx  *driver.Context
	add1 *module.Function
	buf  *memory.Buffer[float32]
	n    int
}

func newGraphFixture(t *testing.T, drv *driver.Driver) *graphFixture {
	t.Helper()
	ctx := streamContext(t, drv, 0)
	f, err := Kernels(t, ctx).Function(kernels.Add1)
	must(t, err)
	const n = 300
	buf := newFloats(t, ctx, n)
	return &graphFixture{ctx: ctx, add1: f, buf: buf, n: n}
}

// newFloats allocates n zeroed floats, freed at the end of the test.
func newFloats(t *testing.T, ctx *driver.Context, n int) *memory.Buffer[float32] {
	t.Helper()
	buf, err := memory.Alloc[float32](ctx, n)
	must(t, err)
	t.Cleanup(func() { must(t, buf.Close()) })
	must(t, memory.CopyToDevice(buf, make([]float32, n)))
	return buf
}

func (f *graphFixture) cfg() module.Config {
	return module.Config{Grid: module.Dim((f.n + 127) / 128), Block: module.Dim(128)}
}

// addOnes launches add1 on buf k times on s.
func (f *graphFixture) addOnes(t *testing.T, s *stream.Stream, buf *memory.Buffer[float32], k int) error {
	t.Helper()
	for range k {
		if err := f.add1.Launch(s, f.cfg(), buf, int32(f.n)); err != nil {
			return err
		}
	}
	return nil
}

// expectAll checks that every element of buf is want.
func expectAll(t *testing.T, buf *memory.Buffer[float32], want float32, what string) {
	t.Helper()
	got := make([]float32, buf.Len())
	must(t, memory.CopyToHost(got, buf))
	for i, v := range got {
		if v != want {
			t.Fatalf("%s: element %d is %v, want %v", what, i, v, want)
		}
	}
}

// endAnyCapture ends a capture left on s by a failed check, so that the
// cases after it find no stream capturing. Deferred in the case itself, so
// that it runs on the thread that began the capture.
func endAnyCapture(t *testing.T, s *stream.Stream) {
	st, _, err := graph.CaptureStatus(s)
	if err != nil || st == graph.None {
		return
	}
	if g, err := graph.EndCapture(s); err == nil {
		must(t, g.Close())
	}
}

func closeGraph(t *testing.T, g *graph.Graph) {
	t.Helper()
	t.Cleanup(func() { must(t, g.Close()) })
}

func instantiate(t *testing.T, g *graph.Graph) *graph.Exec {
	t.Helper()
	x, err := g.Instantiate()
	must(t, err)
	t.Cleanup(func() { must(t, x.Close()) })
	return x
}

// testGraphCaptureReplay: three add1 launches captured on a stream do not
// run at capture; the graph has three nodes and two edges; each replay on
// another stream adds 3, in the order of that stream's other work.
func testGraphCaptureReplay(t *testing.T, drv *driver.Driver) {
	f := newGraphFixture(t, drv)
	s := newStream(t, f.ctx, stream.Options{Flags: stream.NonBlocking})
	g, err := graph.Capture(s, graph.Global, func() error { return f.addOnes(t, s, f.buf, 3) })
	must(t, err)
	closeGraph(t, g)
	must(t, s.Synchronize())
	expectAll(t, f.buf, 0, "after capture, before any launch")
	nodes, err := g.NodeCount()
	must(t, err)
	equal(t, nodes, 3, "nodes of the captured graph")
	edges, err := g.EdgeCount()
	must(t, err)
	equal(t, edges, 2, "edges of the captured graph")

	x := instantiate(t, g)
	r := newStream(t, f.ctx)
	must(t, x.Upload(r))
	must(t, x.Launch(r))
	must(t, x.Launch(r))
	// Stream order: a memset after the launches runs after them.
	must(t, memory.Fill(r, f.buf, float32(10)))
	must(t, x.Launch(r))
	must(t, r.Synchronize())
	expectAll(t, f.buf, 13, "after two replays, a fill to 10 and a third replay")
}

// testGraphCaptureForeign: a graph captured on a wrapped foreign stream
// replays on an owned stream, and one captured on an owned stream replays
// on the foreign one.
func testGraphCaptureForeign(t *testing.T, drv *driver.Driver) {
	f := newGraphFixture(t, drv)
	foreign, err := stream.Wrap(f.ctx, rawStream(t, f.ctx, 0, 0))
	must(t, err)
	t.Cleanup(func() { must(t, foreign.Close()) })
	owned := newStream(t, f.ctx)

	g1, err := graph.Capture(foreign, graph.ThreadLocal, func() error { return f.addOnes(t, foreign, f.buf, 1) })
	must(t, err)
	closeGraph(t, g1)
	g2, err := graph.Capture(owned, graph.Relaxed, func() error { return f.addOnes(t, owned, f.buf, 2) })
	must(t, err)
	closeGraph(t, g2)
	x1, x2 := instantiate(t, g1), instantiate(t, g2)
	must(t, x1.Launch(owned))
	must(t, owned.Synchronize())
	expectAll(t, f.buf, 1, "the foreign stream's graph replayed on an owned stream")
	must(t, x2.Launch(foreign))
	must(t, foreign.Synchronize())
	expectAll(t, f.buf, 3, "the owned stream's graph replayed on the foreign stream")
}

// testGraphCaptureStatus: none before, active with a nonzero id during, a
// new id for the next capture, none after.
func testGraphCaptureStatus(t *testing.T, drv *driver.Driver) {
	runtime.LockOSThread() // Begin and End on one thread, as the driver requires
	defer runtime.UnlockOSThread()
	f := newGraphFixture(t, drv)
	s := newStream(t, f.ctx)
	defer endAnyCapture(t, s)
	st, id, err := graph.CaptureStatus(s)
	must(t, err)
	equal(t, st, graph.None, "status before capture")
	equal(t, id, uint64(0), "id before capture")
	var ids []uint64
	for range 2 {
		must(t, graph.BeginCapture(s, graph.Global))
		st, id, err = graph.CaptureStatus(s)
		must(t, err)
		equal(t, st, graph.Active, "status during capture")
		notZero(t, id, "capture id")
		ids = append(ids, id)
		must(t, f.addOnes(t, s, f.buf, 1))
		g, err := graph.EndCapture(s)
		must(t, err)
		must(t, g.Close())
	}
	notEqual(t, ids[1], ids[0], "two captures have different ids")
	st, _, err = graph.CaptureStatus(s)
	must(t, err)
	equal(t, st, graph.None, "status after capture")
	must(t, s.Synchronize())
	expectAll(t, f.buf, 0, "captured work never ran")
}

// testGraphCaptureSync: synchronizing or querying a capturing stream fails
// with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED (an event recorded in the
// capture, CUDA_ERROR_CAPTURED_EVENT) and invalidates the capture,
// which then ends with CUDA_ERROR_STREAM_CAPTURE_INVALIDATED and no graph;
// the stream works normally afterwards.
func testGraphCaptureSync(t *testing.T, drv *driver.Driver) {
	runtime.LockOSThread() // Begin and End on one thread, as the driver requires
	defer runtime.UnlockOSThread()
	f := newGraphFixture(t, drv)
	s := newStream(t, f.ctx)
	defer endAnyCapture(t, s)
	for _, call := range []struct {
		name string
		do   func() error
	}{
		{"Synchronize", s.Synchronize},
		{"Query", func() error { _, err := s.Query(); return err }},
	} {
		must(t, graph.BeginCapture(s, graph.Global))
		must(t, f.addOnes(t, s, f.buf, 1))
		mustIs(t, call.do(), graph.ErrCaptureUnsupported, call.name+" during capture")
		st, _, err := graph.CaptureStatus(s)
		must(t, err)
		equal(t, st, graph.Invalidated, "status after "+call.name)
		g, err := graph.EndCapture(s)
		mustIs(t, err, graph.ErrCaptureInvalidated, "EndCapture after "+call.name)
		isNil(t, g, "no graph from an invalidated capture")
		st, _, err = graph.CaptureStatus(s)
		must(t, err)
		equal(t, st, graph.None, "status after the failed EndCapture")
	}
	// Querying an event last recorded in the capture is as invalid:
	// CUDA_ERROR_CAPTURED_EVENT.
	ev := newEvent(t, f.ctx, stream.DisableTiming)
	must(t, graph.BeginCapture(s, graph.Global))
	must(t, f.addOnes(t, s, f.buf, 1))
	must(t, ev.Record(s))
	_, err := ev.Query()
	mustIs(t, err, graph.ErrCapturedEvent, "Event.Query of an event recorded in the capture")
	_, err = graph.EndCapture(s)
	mustIs(t, err, graph.ErrCaptureInvalidated, "EndCapture after Event.Query")

	must(t, f.addOnes(t, s, f.buf, 1))
	must(t, s.Synchronize())
	expectAll(t, f.buf, 1, "work after the failed captures runs")
}

// testGraphCaptureIllegal: the legacy stream cannot capture; a stream
// cannot begin twice or end a capture it is not in.
func testGraphCaptureIllegal(t *testing.T, drv *driver.Driver) {
	runtime.LockOSThread() // Begin and End on one thread, as the driver requires
	defer runtime.UnlockOSThread()
	f := newGraphFixture(t, drv)
	legacy, err := stream.Legacy(f.ctx)
	must(t, err)
	defer legacy.Close()
	mustIs(t, graph.BeginCapture(legacy, graph.Global), graph.ErrCaptureUnsupported, "capture on the legacy stream")
	s := newStream(t, f.ctx)
	defer endAnyCapture(t, s)
	_, err = graph.EndCapture(s)
	mustIs(t, err, driver.ErrIllegalState, "EndCapture without a capture")
	must(t, graph.BeginCapture(s, graph.Global))
	mustIs(t, graph.BeginCapture(s, graph.Global), driver.ErrIllegalState, "BeginCapture twice")
	g, err := graph.EndCapture(s)
	must(t, err)
	must(t, g.Close())
	_, err = graph.Capture(s, graph.Global, nil)
	mustIs(t, err, driver.ErrInvalidValue, "Capture with a nil function")
}

// testGraphForkJoin: a second stream joins the capture by waiting on an
// event recorded in the capturing stream, and is joined back the same way:
// the graph has the fork's shape (3 nodes, 2 edges) and adds 3 per replay.
func testGraphForkJoin(t *testing.T, drv *driver.Driver) {
	f := newGraphFixture(t, drv)
	a := newStream(t, f.ctx, stream.Options{Flags: stream.NonBlocking})
	b := newStream(t, f.ctx, stream.Options{Flags: stream.NonBlocking})
	fork := newEvent(t, f.ctx, stream.DisableTiming)
	join := newEvent(t, f.ctx, stream.DisableTiming)
	other := newFloats(t, f.ctx, f.n)
	g, err := graph.Capture(a, graph.Global, func() error {
		must(t, f.addOnes(t, a, f.buf, 1))
		must(t, fork.Record(a))
		must(t, b.Wait(fork))
		st, _, err := graph.CaptureStatus(b)
		must(t, err)
		equal(t, st, graph.Active, "the waiting stream joined the capture")
		must(t, f.addOnes(t, b, other, 1))
		must(t, f.addOnes(t, a, f.buf, 1))
		must(t, join.Record(b))
		return a.Wait(join)
	})
	must(t, err)
	closeGraph(t, g)
	st, _, err := graph.CaptureStatus(b)
	must(t, err)
	equal(t, st, graph.None, "the forked stream left capture at EndCapture")
	nodes, err := g.NodeCount()
	must(t, err)
	equal(t, nodes, 3, "nodes")
	edges, err := g.EdgeCount()
	must(t, err)
	equal(t, edges, 2, "edges")
	x := instantiate(t, g)
	for range 3 {
		must(t, x.Launch(b))
	}
	must(t, b.Synchronize())
	expectAll(t, f.buf, 6, "the capturing stream's kernels, 3 replays")
	expectAll(t, other, 3, "the forked stream's kernel, 3 replays")
}

// testGraphUnjoined: a forked stream that is not joined back makes
// EndCapture fail with CUDA_ERROR_STREAM_CAPTURE_UNJOINED.
func testGraphUnjoined(t *testing.T, drv *driver.Driver) {
	runtime.LockOSThread() // Begin and End on one thread, as the driver requires
	defer runtime.UnlockOSThread()
	f := newGraphFixture(t, drv)
	a := newStream(t, f.ctx, stream.Options{Flags: stream.NonBlocking})
	defer endAnyCapture(t, a)
	b := newStream(t, f.ctx, stream.Options{Flags: stream.NonBlocking})
	defer endAnyCapture(t, b)
	fork := newEvent(t, f.ctx, stream.DisableTiming)
	must(t, graph.BeginCapture(a, graph.Global))
	must(t, f.addOnes(t, a, f.buf, 1))
	must(t, fork.Record(a))
	must(t, b.Wait(fork))
	must(t, f.addOnes(t, b, f.buf, 1))
	g, err := graph.EndCapture(a)
	mustIs(t, err, graph.ErrCaptureUnjoined, "EndCapture with b not joined")
	isNil(t, g, "no graph")
	for _, s := range []*stream.Stream{a, b} {
		st, _, err := graph.CaptureStatus(s)
		must(t, err)
		equal(t, st, graph.None, "every stream left capture")
	}
}

// testGraphExplicit builds fill(1) -> add1 -> copy to other -> child(add1
// on other) with an event record and an empty join node, and checks the
// values after two launches, the node and edge counts, and a clone.
func testGraphExplicit(t *testing.T, drv *driver.Driver) {
	f := newGraphFixture(t, drv)
	other := newFloats(t, f.ctx, f.n)
	ev := newEvent(t, f.ctx, stream.DisableTiming)
	g, err := graph.New(f.ctx)
	must(t, err)
	closeGraph(t, g)
	child, err := graph.New(f.ctx)
	must(t, err)
	closeGraph(t, child)
	otherArgs, err := f.add1.Args(other, int32(f.n))
	must(t, err)
	_, err = child.AddKernel(f.add1, f.cfg(), otherArgs)
	must(t, err)

	fill, err := graph.AddFill(g, f.buf, float32(1))
	must(t, err)
	args, err := f.add1.Args(f.buf, int32(f.n))
	must(t, err)
	k, err := g.AddKernel(f.add1, f.cfg(), args, fill)
	must(t, err)
	cp, err := graph.AddCopy(g, other, f.buf, k)
	must(t, err)
	c, err := g.AddChild(child, cp)
	must(t, err)
	rec, err := g.AddEventRecord(ev, k)
	must(t, err)
	_, err = g.AddEmpty(c, rec)
	must(t, err)
	nodes, err := g.NodeCount()
	must(t, err)
	equal(t, nodes, 6, "nodes")
	edges, err := g.EdgeCount()
	must(t, err)
	equal(t, edges, 6, "edges")

	clone, err := g.Clone()
	must(t, err)
	closeGraph(t, clone)
	cn, err := clone.NodeCount()
	must(t, err)
	equal(t, cn, 6, "nodes of the clone")

	s := newStream(t, f.ctx)
	x := instantiate(t, clone)
	must(t, x.Launch(s))
	must(t, x.Launch(s))
	must(t, s.Synchronize())
	done, err := ev.Query()
	must(t, err)
	isTrue(t, done, "the event recorded by the graph completed")
	expectAll(t, f.buf, 2, "fill 1 then add 1")
	expectAll(t, other, 3, "copy of 2 then add 1 in the child graph")

	_, err = g.AddEmpty(graph.Node{})
	mustIs(t, err, driver.ErrInvalidValue, "a zero Node as dependency")
	_, err = g.AddEmpty(cn2(t, clone))
	mustIs(t, err, driver.ErrInvalidValue, "a node of another graph as dependency")
	_, err = g.AddChild(g)
	mustIs(t, err, driver.ErrInvalidValue, "a graph as its own child")
	empty, err := f.buf.Slice(0, 0)
	must(t, err)
	_, err = graph.AddFill(g, empty, 0)
	mustIs(t, err, driver.ErrInvalidValue, "fill of an empty buffer")
}

// cn2 returns a node of g (a new empty node).
func cn2(t *testing.T, g *graph.Graph) graph.Node {
	t.Helper()
	n, err := g.AddEmpty()
	must(t, err)
	return n
}

// testGraphUpdate: an Exec is updated from a graph re-captured with other
// arguments and then runs them; a graph of another shape is refused with
// an *UpdateError (topology changed) and the Exec keeps working.
func testGraphUpdate(t *testing.T, drv *driver.Driver) {
	f := newGraphFixture(t, drv)
	other := newFloats(t, f.ctx, f.n)
	s := newStream(t, f.ctx)
	g1, err := graph.Capture(s, graph.Global, func() error { return f.addOnes(t, s, f.buf, 1) })
	must(t, err)
	closeGraph(t, g1)
	x := instantiate(t, g1)
	g2, err := graph.Capture(s, graph.Global, func() error { return f.addOnes(t, s, other, 1) })
	must(t, err)
	closeGraph(t, g2)
	must(t, x.Update(g2))
	must(t, x.Launch(s))
	must(t, s.Synchronize())
	expectAll(t, f.buf, 0, "the old arguments' buffer after the update")
	expectAll(t, other, 1, "the new arguments' buffer after the update")

	g3, err := graph.Capture(s, graph.Global, func() error { return f.addOnes(t, s, f.buf, 2) })
	must(t, err)
	closeGraph(t, g3)
	err = x.Update(g3)
	var ue *graph.UpdateError
	mustAs(t, err, &ue, "update to another topology")
	equal(t, ue.Result, graph.UpdateTopologyChanged, "why the update was refused")
	mustIs(t, err, graph.ErrUpdateFailure, "the driver's error")
	must(t, x.Launch(s))
	must(t, s.Synchronize())
	expectAll(t, other, 2, "the Exec still runs the last accepted graph")
}

// testGraphWrongContext: an Exec does not launch on a stream of another
// context, and a kernel of another context is not added to a graph.
func testGraphWrongContext(t *testing.T, drv *driver.Driver) {
	f := newGraphFixture(t, drv)
	own := streamOwnContext(t, drv, 0)
	s := newStream(t, f.ctx)
	g, err := graph.Capture(s, graph.Global, func() error { return f.addOnes(t, s, f.buf, 1) })
	must(t, err)
	closeGraph(t, g)
	x := instantiate(t, g)
	so := newStream(t, own)
	mustIs(t, x.Launch(so), driver.ErrWrongContext, "launch on another context's stream")
	g2, err := graph.New(own)
	must(t, err)
	closeGraph(t, g2)
	args, err := f.add1.Args(f.buf, int32(f.n))
	must(t, err)
	_, err = g2.AddKernel(f.add1, f.cfg(), args)
	mustIs(t, err, driver.ErrWrongContext, "a kernel of another context")
	must(t, s.Synchronize())
	expectAll(t, f.buf, 0, "nothing ran")
}

// testGraphClosed: Close twice is nil; use after Close is ErrClosed; an
// Exec outlives its Graph.
func testGraphClosed(t *testing.T, drv *driver.Driver) {
	f := newGraphFixture(t, drv)
	s := newStream(t, f.ctx)
	g, err := graph.Capture(s, graph.Global, func() error { return f.addOnes(t, s, f.buf, 1) })
	must(t, err)
	x, err := g.Instantiate()
	must(t, err)
	must(t, g.Close())
	must(t, g.Close())
	_, err = g.Instantiate()
	mustIs(t, err, driver.ErrClosed, "Instantiate after Close")
	_, err = g.AddEmpty()
	mustIs(t, err, driver.ErrClosed, "AddEmpty after Close")
	must(t, x.Launch(s))
	must(t, s.Synchronize())
	expectAll(t, f.buf, 1, "the Exec ran after its graph was closed")
	must(t, x.Close())
	must(t, x.Close())
	mustIs(t, x.Launch(s), driver.ErrClosed, "Launch after Close")
	var nilExec *graph.Exec
	mustIs(t, nilExec.Launch(s), driver.ErrInvalidValue, "Launch of a nil Exec")
	if !errors.Is(nilExec.Close(), driver.ErrInvalidValue) {
		t.Fatal("Close of a nil Exec must fail with ErrInvalidValue")
	}
}
