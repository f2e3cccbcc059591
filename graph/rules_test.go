package graph_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/cudatest/fakekernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/graph"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// The fake refuses what CUDA documents as invalid: a second free node of
// one allocation (cuGraphAddMemFreeNode: INVALID_VALUE), a clone of a graph
// with memory nodes, host and memory nodes in a conditional body.
func TestFakeGraphRules(t *testing.T) {
	e := newEnv(t)
	g, err := graph.New(e.ctx)
	require.NoError(t, err)
	defer g.Close()
	a, err := g.AddAlloc(64)
	require.NoError(t, err)
	free, err := g.AddFree(a, a.Node())
	require.NoError(t, err)
	_, err = g.AddFree(a, free)
	require.ErrorIs(t, err, driver.ErrInvalidValue, "an allocation freed twice in one graph")
	_, err = g.Clone()
	require.ErrorIs(t, err, driver.ErrNotSupported, "a graph with memory nodes cannot be cloned")

	h, err := graph.New(e.ctx)
	require.NoError(t, err)
	defer h.Close()
	c, err := h.NewCondition(1, true)
	require.NoError(t, err)
	_, body, err := h.AddIf(c)
	require.NoError(t, err)
	_, err = body.AddHost(func() {})
	require.NoError(t, err, "a host node in a conditional body: the H200 takes one (conformance graph-nodes/rules)")
	_, err = body.AddAlloc(64)
	require.NoError(t, err, "an allocation node in a conditional body: the H200 takes one (conformance graph-nodes/rules)")
	child, err := graph.New(e.ctx)
	require.NoError(t, err)
	defer child.Close()
	_, err = child.AddHost(func() {})
	require.NoError(t, err)
	_, err = body.AddChild(child)
	require.NoError(t, err, "a child graph with a host node in a conditional body, as a host node there")
	_, err = graph.AddFill(body, e.buf, 1)
	require.NoError(t, err, "a memset node is allowed there")
	_, err = body.AddEmpty()
	require.NoError(t, err, "and an empty node")
	n, err := h.NodeCount()
	require.NoError(t, err)
	require.Equal(t, 1, n, "the refused nodes changed nothing")
	_, err = h.Clone()
	require.ErrorIs(t, err, driver.ErrNotSupported, "a graph with conditional nodes cannot be cloned")
}

// Retain on a closed (or nil) graph returns the error and runs the
// function, as its doc promises: nothing else has it.
func TestRetainOnClosedGraphRunsRelease(t *testing.T) {
	e := newEnv(t)
	g, err := graph.New(e.ctx)
	require.NoError(t, err)
	require.NoError(t, g.Close())
	ran := make(chan struct{}, 2)
	require.ErrorIs(t, g.Retain(func() { ran <- struct{}{} }), driver.ErrClosed)
	var nilGraph *graph.Graph
	require.ErrorIs(t, nilGraph.Retain(func() { ran <- struct{}{} }), driver.ErrInvalidValue)
	for range 2 {
		select {
		case <-ran:
		case <-time.After(5 * time.Second):
			t.Fatal("the release function never ran")
		}
	}
}

// Closing a stream that captures ends the capture: the context takes
// legacy-stream work (a synchronous copy) again.
func TestClosingCapturingStreamEndsCapture(t *testing.T) {
	e := newEnv(t)
	s, err := stream.New(e.ctx, stream.Options{}) // blocking: its capture refuses legacy-stream work
	require.NoError(t, err)
	require.NoError(t, graph.BeginCapture(s, graph.Relaxed))
	require.ErrorIs(t, memory.CopyToDevice(e.buf, make([]float32, e.n)), graph.ErrCaptureImplicit)
	require.NoError(t, s.Close())
	require.NoError(t, memory.CopyToDevice(e.buf, make([]float32, e.n)), "no capture any more")
}

// Library.Close while an Exec uses one of its kernels refuses, changing
// nothing; after the Exec's Close it unloads, and no context reference is
// left (cudatest.Fake checks).
func TestLibraryCloseRetainedByExec(t *testing.T) {
	drv := fake.New(append([]fake.Option{fake.Devices(1)}, fakekernels.Options()...)...)
	t.Cleanup(func() { require.Empty(t, fake.Of(drv).Leaks(), "leaks") })
	ctx := primary(t, drv)
	lib, err := module.CompileLibrary(ctx, kernels.Source, module.Options{Name: "k.cu", NoCache: true, NameExpressions: []string{kernels.FillFloat}})
	require.NoError(t, err)
	k, err := lib.Kernel(kernels.Add1)
	require.NoError(t, err)
	f, err := k.Function(ctx)
	require.NoError(t, err)
	buf, err := memory.Alloc[float32](ctx, 128)
	require.NoError(t, err)
	defer buf.Close()
	g, err := graph.New(ctx)
	require.NoError(t, err)
	args, err := f.Args(buf, int32(128))
	require.NoError(t, err)
	_, err = g.AddKernel(f, module.Config{Grid: module.Dim(1), Block: module.Dim(128)}, args)
	require.NoError(t, err)
	x, err := g.Instantiate()
	require.NoError(t, err)
	require.NoError(t, g.Close())
	require.ErrorIs(t, lib.Close(), graph.ErrRetained)
	_, err = lib.Kernel(kernels.Add1)
	require.NoError(t, err, "the refused Close changed nothing")
	s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, x.Launch(s))
	require.NoError(t, s.Synchronize())
	require.NoError(t, x.Close())
	require.NoError(t, lib.Close())
	require.NoError(t, lib.Close(), "a second Close is a no-op")
}

// After a kernel fault, a graph and an Exec that were closed are not
// reported as leaks: their Close (refused by the poisoned driver) closed
// them all the same.
func TestClosedGraphsAreNoLeaksAfterFault(t *testing.T) {
	drv := cudatest.Fake(t, fakekernels.Options()...)
	ctx := primary(t, drv)
	m, err := module.Compile(ctx, kernels.Source, module.Options{Name: "k.cu", NoCache: true, NameExpressions: []string{kernels.FillFloat}})
	require.NoError(t, err)
	defer m.Close()
	writeAt, err := m.Function(kernels.WriteAt)
	require.NoError(t, err)
	buf, err := memory.Alloc[float32](ctx, 32)
	require.NoError(t, err)
	defer buf.Close()
	s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	require.NoError(t, err)
	defer s.Close()
	g, err := graph.New(ctx)
	require.NoError(t, err)
	_, err = graph.AddFill(g, buf, 1)
	require.NoError(t, err)
	x, err := g.Instantiate()
	require.NoError(t, err)
	require.NoError(t, writeAt.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(1)}, buf, int64(1)<<40))
	require.ErrorIs(t, s.Synchronize(), driver.ErrIllegalAddress)
	for _, c := range []interface{ Close() error }{x, g} {
		if err := c.Close(); err != nil {
			require.ErrorIs(t, err, driver.ErrStickyFault)
		}
		require.NoError(t, c.Close(), "closed")
	}
	// cudatest.Fake's leak check runs at the end.
}
