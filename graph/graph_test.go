package graph_test

import (
	"errors"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/graph"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// noGraphs is a backend without backend.Graphs.
type noGraphs struct{ backend.API }

func TestUnsupportedBackend(t *testing.T) {
	drv, err := driver.New(noGraphs{fake.NewBackend()})
	require.NoError(t, err)
	ctx := primary(t, drv)
	_, err = graph.New(ctx)
	require.ErrorIs(t, err, errors.ErrUnsupported)
	assert.ErrorContains(t, err, "graph.New: ")
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	defer s.Close()
	require.ErrorIs(t, graph.BeginCapture(s, graph.Global), errors.ErrUnsupported)
	_, _, err = graph.CaptureStatus(s)
	require.ErrorIs(t, err, errors.ErrUnsupported)
}

func TestCaptureFunctionErrorEndsCapture(t *testing.T) {
	e := newEnv(t)
	boom := errors.New("boom")
	g, err := graph.Capture(e.s, graph.Global, func() error {
		require.NoError(t, e.launch(e.s, e.buf))
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.Nil(t, g)
	st, _, err := graph.CaptureStatus(e.s)
	require.NoError(t, err)
	require.Equal(t, graph.None, st)
	require.NoError(t, e.s.Synchronize())
	require.Equal(t, filled(e.n, 0), all(t, e.buf), "the captured launch never ran")
}

// The fake refuses a context-wide synchronisation while a stream of the
// context captures, and invalidates the capture, as the programming guide
// says of "a broader handle which encompasses an active stream capture".
func TestContextSynchronizeInvalidatesCapture(t *testing.T) {
	e := newEnv(t)
	require.NoError(t, graph.BeginCapture(e.s, graph.Relaxed))
	require.NoError(t, e.launch(e.s, e.buf))
	require.ErrorIs(t, e.ctx.Synchronize(), graph.ErrCaptureUnsupported)
	require.ErrorIs(t, e.launch(e.s, e.buf), graph.ErrCaptureInvalidated, "work on an invalidated capture")
	_, err := graph.EndCapture(e.s)
	require.ErrorIs(t, err, graph.ErrCaptureInvalidated)
	require.NoError(t, e.ctx.Synchronize())
}

func TestThreadLocalCaptureEndsOnItsThread(t *testing.T) {
	e := newEnv(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	require.NoError(t, graph.BeginCapture(e.s, graph.ThreadLocal))
	done := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		_, err := graph.EndCapture(e.s)
		done <- err
	}()
	require.ErrorIs(t, <-done, graph.ErrCaptureWrongThread)
	g, err := graph.EndCapture(e.s)
	require.NoError(t, err)
	require.NoError(t, g.Close())
}

func TestCaptureMerge(t *testing.T) {
	e := newEnv(t)
	other, err := stream.New(e.ctx, stream.Options{Flags: stream.NonBlocking})
	require.NoError(t, err)
	defer other.Close()
	ev, err := stream.NewEvent(e.ctx, stream.EventOptions{Flags: stream.DisableTiming})
	require.NoError(t, err)
	defer ev.Close()
	require.NoError(t, graph.BeginCapture(e.s, graph.Relaxed))
	require.NoError(t, graph.BeginCapture(other, graph.Relaxed))
	require.NoError(t, ev.Record(e.s))
	require.ErrorIs(t, other.Wait(ev), graph.ErrCaptureMerge)
	for _, s := range []*stream.Stream{e.s, other} {
		g, err := graph.EndCapture(s)
		require.NoError(t, err, "each capture ends on its own stream")
		require.NoError(t, g.Close())
	}
}

func TestHostCopyNodesReadAtEachLaunch(t *testing.T) {
	e := newEnv(t)
	in, err := memory.AllocHost[float32](e.ctx, e.n)
	require.NoError(t, err)
	defer in.Close()
	out, err := memory.AllocHost[float32](e.ctx, e.n)
	require.NoError(t, err)
	defer out.Close()
	g, err := graph.New(e.ctx)
	require.NoError(t, err)
	defer g.Close()
	up, err := graph.AddCopyToDevice(g, e.buf, in)
	require.NoError(t, err)
	args, err := e.add1.Args(e.buf, int32(e.n))
	require.NoError(t, err)
	k, err := g.AddKernel(e.add1, e.cfg(), args, up)
	require.NoError(t, err)
	_, err = graph.AddCopyToHost(g, out, e.buf, k)
	require.NoError(t, err)
	x, err := g.Instantiate()
	require.NoError(t, err)
	defer x.Close()
	for _, v := range []float32{1, 41} {
		copy(in.Slice(), filled(e.n, v))
		require.NoError(t, x.Launch(e.s))
		require.NoError(t, e.s.Synchronize())
		require.Equal(t, filled(e.n, v+1), out.Slice())
	}

	short, err := memory.AllocHost[float32](e.ctx, e.n-1)
	require.NoError(t, err)
	defer short.Close()
	_, err = graph.AddCopyToDevice(g, e.buf, short)
	require.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = graph.AddCopyToHost(g, nil, e.buf)
	require.ErrorIs(t, err, driver.ErrInvalidValue)
}

func TestFillElementSizes(t *testing.T) {
	e := newEnv(t)
	wide, err := memory.Alloc[float64](e.ctx, 4)
	require.NoError(t, err)
	defer wide.Close()
	half, err := memory.Alloc[uint16](e.ctx, 6)
	require.NoError(t, err)
	defer half.Close() // after the graph's Close, which lets go of it
	g, err := graph.New(e.ctx)
	require.NoError(t, err)
	defer g.Close()
	_, err = graph.AddFill(g, wide, 1.5)
	require.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.ErrorContains(t, err, "8 bytes")
	_, err = graph.AddFill(g, half, uint16(0xbeef))
	require.NoError(t, err)
	x, err := g.Instantiate()
	require.NoError(t, err)
	defer x.Close()
	require.NoError(t, x.Launch(e.s))
	got := make([]uint16, 6)
	require.NoError(t, memory.CopyToHostAsync(e.s, got, half))
	require.NoError(t, e.s.Synchronize())
	require.Equal(t, []uint16{0xbeef, 0xbeef, 0xbeef, 0xbeef, 0xbeef, 0xbeef}, got)
}

// An event wait node makes the replay wait for the event's record at
// launch: the fill recorded on another stream lands before the add.
func TestEventWaitNode(t *testing.T) {
	e := newEnv(t)
	other, err := stream.New(e.ctx, stream.Options{Flags: stream.NonBlocking})
	require.NoError(t, err)
	defer other.Close()
	ev, err := stream.NewEvent(e.ctx, stream.EventOptions{Flags: stream.DisableTiming})
	require.NoError(t, err)
	defer ev.Close()
	g, err := graph.New(e.ctx)
	require.NoError(t, err)
	defer g.Close()
	w, err := g.AddEventWait(ev)
	require.NoError(t, err)
	args, err := e.add1.Args(e.buf, int32(e.n))
	require.NoError(t, err)
	_, err = g.AddKernel(e.add1, e.cfg(), args, w)
	require.NoError(t, err)
	x, err := g.Instantiate()
	require.NoError(t, err)
	defer x.Close()

	require.NoError(t, memory.Fill(other, e.buf, float32(7)))
	require.NoError(t, ev.Record(other))
	require.NoError(t, x.Launch(e.s))
	require.NoError(t, e.s.Synchronize())
	require.Equal(t, filled(e.n, 8), all(t, e.buf))
}

func TestLeaksNameGraphsAndExecs(t *testing.T) {
	drv := fake.New(fake.Devices(1))
	ctx := primary(t, drv)
	g, err := graph.New(ctx)
	require.NoError(t, err)
	_, err = g.AddEmpty()
	require.NoError(t, err)
	x, err := g.Instantiate()
	require.NoError(t, err)
	leaks := fake.Of(drv).Leaks()
	require.Len(t, leaks, 3, "%q", leaks) // the primary context, the graph, the exec
	assert.Equal(t, fake.Leak{Kind: backend.LeakGraph, Handle: leaks[1].Handle, Detail: "1 nodes"}, leaks[1])
	assert.Contains(t, leaks[1].String(), "graph 0x")
	assert.Equal(t, backend.LeakGraphExec, leaks[2].Kind)
	assert.Equal(t, ctx.Handle(), leaks[2].Context)
	require.NoError(t, x.Close())
	require.NoError(t, g.Close())
	require.Len(t, fake.Of(drv).Leaks(), 1)
}

func TestUpdateErrorSaysWhy(t *testing.T) {
	e := newEnv(t)
	x, err := e.capture(t, 1).Instantiate()
	require.NoError(t, err)
	defer x.Close()
	err = x.Update(e.capture(t, 2))
	var ue *graph.UpdateError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, graph.UpdateTopologyChanged, ue.Result)
	assert.ErrorIs(t, err, graph.ErrUpdateFailure)
	assert.ErrorContains(t, err, "graph.Exec.Update: ")
	assert.ErrorContains(t, err, "update refused: the topology changed")
	assert.Equal(t, "graph.Exec.Update", err.Error()[:len("graph.Exec.Update")])

	other := primaryOther(t)
	g, err := graph.New(other)
	require.NoError(t, err)
	defer g.Close()
	require.ErrorIs(t, x.Update(g), driver.ErrWrongContext)
	require.ErrorIs(t, x.Update(nil), driver.ErrInvalidValue)
}

// primaryOther is the primary context of another fake driver.
func primaryOther(t *testing.T) *driver.Context {
	return primary(t, fake.New(fake.Devices(1)))
}

func TestNilAndZeroValues(t *testing.T) {
	var g *graph.Graph
	require.ErrorIs(t, g.Close(), driver.ErrInvalidValue)
	_, err := g.Instantiate()
	require.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = g.NodeCount()
	require.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = graph.New(nil)
	require.ErrorIs(t, err, driver.ErrInvalidValue)
	require.ErrorIs(t, graph.BeginCapture(nil, graph.Global), driver.ErrInvalidValue)
	_, err = graph.EndCapture(&stream.Stream{})
	require.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.Equal(t, "nil graph", g.String())
	assert.Equal(t, uintptr(0), g.Handle())
}
