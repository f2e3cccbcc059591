package conformance

import (
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/graph"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// testGraphRules: what CUDA documents as invalid in a graph is refused by
// the driver (cuGraphAddMemFreeNode: an allocation freed twice is
// INVALID_VALUE; a graph with memory or conditional nodes cannot be
// cloned; a conditional body takes kernel, copy, memset, empty, child and
// conditional nodes, and, as the H200 with driver 580 answers, host,
// allocation and event nodes too), each refusal changing nothing.
func testGraphRules(t *testing.T, drv *driver.Driver) {
	f := newGraphFixture(t, drv)
	g, err := graph.New(f.ctx)
	must(t, err)
	closeGraph(t, g)
	a, err := g.AddAlloc(256)
	must(t, err)
	free, err := g.AddFree(a, a.Node())
	must(t, err)
	_, err = g.AddFree(a, free)
	mustIs(t, err, driver.ErrInvalidValue, "a second free node of one allocation")
	c, err := g.Clone()
	if err == nil {
		must(t, c.Close())
	}
	mustErr(t, err, "a graph with memory nodes cannot be cloned")
	t.Logf("Clone of a graph with memory nodes: %v", err)

	h, err := graph.New(f.ctx)
	must(t, err)
	closeGraph(t, h)
	cond, err := h.NewCondition(1, true)
	must(t, err)
	_, body, err := h.AddIf(cond)
	must(t, err)
	// What a body takes beyond the Programming Guide's list, as the H200
	// (driver 580, run G2) answers: each kind is tried on its own and all
	// are reported, so that one run shows them.
	ev, err := stream.NewEvent(f.ctx, stream.EventOptions{Flags: stream.DisableTiming})
	must(t, err)
	defer func() { must(t, ev.Close()) }()
	for _, c := range []struct {
		kind string
		ok   bool
		add  func() error
	}{
		{"a host node", true, func() error { _, err := body.AddHost(func() {}); return err }},
		{"an allocation node", true, func() error { _, err := body.AddAlloc(256); return err }},
		{"an event record node", true, func() error { _, err := body.AddEventRecord(ev); return err }},
		{"an event wait node", true, func() error { _, err := body.AddEventWait(ev); return err }},
	} {
		err := c.add()
		t.Logf("%s in a conditional body: %v", c.kind, err)
		if (err == nil) != c.ok {
			t.Errorf("%s in a conditional body: got %v, want accepted %v", c.kind, err, c.ok)
		}
	}
	_, err = graph.AddFill(body, f.buf, float32(1))
	must(t, err, "a memset node in a conditional body")
	n, err := h.NodeCount()
	must(t, err)
	mustEqual(t, n, 1, "the refused nodes changed nothing (the body's nodes are the body's)")
	hc, err := h.Clone()
	if err == nil {
		must(t, hc.Close())
	}
	mustErr(t, err, "a graph with conditional nodes cannot be cloned")
	t.Logf("Clone of a graph with a conditional node: %v", err)
}

// testGraphCaptureStreamClosed: closing (destroying) a blocking stream
// while it captures ends the capture's hold on the context: legacy-stream
// work (a synchronous copy), refused with STREAM_CAPTURE_IMPLICIT while
// the capture ran, is accepted again.
func testGraphCaptureStreamClosed(t *testing.T, drv *driver.Driver) {
	f := newGraphFixture(t, drv)
	s, err := stream.New(f.ctx, stream.Options{})
	must(t, err)
	must(t, graph.BeginCapture(s, graph.Relaxed))
	must(t, f.add1.Launch(s, f.cfg(), f.buf, int32(f.n)))
	mustIs(t, memory.CopyToDevice(f.buf, make([]float32, f.n)), graph.ErrCaptureImplicit, "legacy-stream work while a blocking stream captures")
	if err := s.Close(); err != nil {
		t.Logf("closing the capturing stream: %v", err)
	}
	must(t, memory.CopyToDevice(f.buf, make([]float32, f.n)), "legacy-stream work once the capturing stream is gone")
}

// testGraphCaptureRetains: a captured graph retains the module of its
// launches and the buffers of its copies and fills, as a built one does.
func testGraphCaptureRetains(t *testing.T, drv *driver.Driver) {
	f := newGraphFixture(t, drv)
	s := newStream(t, f.ctx)
	src, err := memory.Alloc[float32](f.ctx, f.n)
	must(t, err)
	must(t, memory.Fill(s, src, float32(0)))
	g, err := graph.Capture(s, graph.Global, func() error {
		if err := memory.CopyDtoDAsync(s, f.buf, src); err != nil {
			return err
		}
		return f.add1.Launch(s, f.cfg(), f.buf, int32(f.n))
	})
	must(t, err)
	x, err := g.Instantiate()
	must(t, err)
	must(t, g.Close())
	mustIs(t, src.Close(), graph.ErrRetained, "the Exec's copy reads src")
	must(t, x.Launch(s))
	must(t, s.Synchronize())
	must(t, x.Close())
	must(t, src.Close(), "nothing uses src any more")
}
