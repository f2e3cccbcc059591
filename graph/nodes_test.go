package graph_test

import (
	"bytes"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/graph"
	"github.com/nocgo/cuda/memory"
)

// graphsOnly is a backend with CUDA graphs but none of the node kinds of
// backend.GraphNodes, nor user objects.
type graphsOnly struct {
	backend.API
	backend.Graphs
}

// A backend without backend.GraphNodes or backend.UserObjects: every call
// that needs them says so with errors.ErrUnsupported, and the graph's
// other calls work.
func TestNodeKindsUnsupported(t *testing.T) {
	b := fake.NewBackend(fake.Devices(1))
	drv, err := driver.New(graphsOnly{b, b.(backend.Graphs)})
	require.NoError(t, err)
	ctx := primary(t, drv)
	g, err := graph.New(ctx)
	require.NoError(t, err)
	defer g.Close()
	_, err = g.AddHost(func() {})
	require.ErrorIs(t, err, errors.ErrUnsupported)
	_, err = g.AddAlloc(16)
	require.ErrorIs(t, err, errors.ErrUnsupported)
	_, err = g.NewCondition(1, false)
	require.ErrorIs(t, err, errors.ErrUnsupported)
	require.ErrorIs(t, g.DOT(&bytes.Buffer{}, false), errors.ErrUnsupported)
	require.ErrorIs(t, g.Retain(func() {}), errors.ErrUnsupported)
	_, err = g.AddEmpty()
	require.NoError(t, err, "the core graph calls still work")
}

// The node kinds on a closed graph, a zero Condition or Alloc, a body's
// own condition, and nil arguments are refused with errors, changing
// nothing.
func TestNodeKindsRefuseBadInput(t *testing.T) {
	e := newEnv(t)
	g, err := graph.New(e.ctx)
	require.NoError(t, err)
	_, err = g.AddFree(graph.Alloc{})
	require.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = g.AddAlloc(-1)
	require.ErrorIs(t, err, driver.ErrInvalidValue)
	c, err := g.NewCondition(0, false)
	require.NoError(t, err)
	_, body, err := g.AddWhile(c)
	require.NoError(t, err)
	_, err = body.NewCondition(1, false)
	require.ErrorIs(t, err, driver.ErrInvalidValue, "conditions are made on the top graph")
	_, _, err = body.AddIf(c)
	require.NoError(t, err, "a body's nested conditional uses the top graph's condition")
	require.ErrorIs(t, graph.KeepBuffer(g, (*memory.Buffer[float32])(nil)), driver.ErrInvalidValue)
	n, err := g.NodeCount()
	require.NoError(t, err)
	assert.Equal(t, 1, n, "only the while node")

	require.NoError(t, g.Close())
	_, err = g.AddHost(func() {})
	require.ErrorIs(t, err, driver.ErrClosed)
	_, err = body.AddEmpty()
	require.ErrorIs(t, err, driver.ErrClosed, "a body goes with its graph")
	require.ErrorIs(t, g.DOT(&bytes.Buffer{}, true), driver.ErrClosed)
	require.ErrorIs(t, graph.KeepBuffer(g, e.buf), driver.ErrClosed)
	require.NoError(t, e.buf.Close(), "nothing was kept by the refused calls")
}

// A closed Exec refuses per-node updates; an update of a node that is not
// the Exec's graph's is refused before the driver.
func TestExecSetRefusals(t *testing.T) {
	e := newEnv(t)
	g, err := graph.New(e.ctx)
	require.NoError(t, err)
	defer g.Close()
	fill, err := graph.AddFill(g, e.buf, float32(1))
	require.NoError(t, err)
	x, err := g.Instantiate()
	require.NoError(t, err)
	require.ErrorIs(t, graph.SetFill(x, graph.Node{}, e.buf, float32(2)), driver.ErrInvalidValue)
	require.ErrorIs(t, x.SetHost(fill, nil), driver.ErrInvalidValue)
	require.NoError(t, x.Close())
	require.ErrorIs(t, graph.SetFill(x, fill, e.buf, float32(2)), driver.ErrClosed)
	require.ErrorIs(t, graph.SetCopy(x, fill, e.buf, e.buf), driver.ErrClosed)
	require.ErrorIs(t, x.SetHost(fill, func() {}), driver.ErrClosed)
	require.ErrorIs(t, (&graph.Exec{}).HostPanic(), driver.ErrInvalidValue, "HostPanic of a zero Exec")
}

// A host node's function that calls runtime.Goexit (t.FailNow) ends only
// itself; HostPanic says so.
func TestHostNodeGoexit(t *testing.T) {
	e := newEnv(t)
	g, err := graph.New(e.ctx)
	require.NoError(t, err)
	defer g.Close()
	var ran atomic.Int32
	h, err := g.AddHost(func() { ran.Add(1); runtime.Goexit() })
	require.NoError(t, err)
	_, err = g.AddHost(func() { ran.Add(10) }, h)
	require.NoError(t, err)
	x, err := g.Instantiate()
	require.NoError(t, err)
	defer x.Close()
	require.NoError(t, x.Launch(e.s))
	require.NoError(t, e.s.Synchronize())
	assert.Equal(t, int32(11), ran.Load())
	var pe *graph.HostPanicError
	require.ErrorAs(t, x.HostPanic(), &pe)
	assert.Contains(t, pe.Error(), "Goexit")
}

// Retention across Update: the Exec lets go of the old graph's buffers and
// keeps the new one's.
func TestUpdateMovesRetention(t *testing.T) {
	e := newEnv(t)
	a, err := memory.Alloc[float32](e.ctx, e.n)
	require.NoError(t, err)
	b, err := memory.Alloc[float32](e.ctx, e.n)
	require.NoError(t, err)
	g1, err := graph.New(e.ctx)
	require.NoError(t, err)
	_, err = graph.AddFill(g1, a, float32(1))
	require.NoError(t, err)
	g2, err := graph.New(e.ctx)
	require.NoError(t, err)
	_, err = graph.AddFill(g2, b, float32(2))
	require.NoError(t, err)
	x, err := g1.Instantiate()
	require.NoError(t, err)
	require.NoError(t, x.Update(g2))
	require.NoError(t, g1.Close())
	require.NoError(t, g2.Close())
	require.NoError(t, a.Close(), "the Exec no longer uses a")
	require.ErrorIs(t, b.Close(), graph.ErrRetained, "the Exec uses b now")
	require.NoError(t, x.Launch(e.s))
	require.NoError(t, e.s.Synchronize())
	require.NoError(t, x.Close())
	require.NoError(t, b.Close())
}

// Closing buffers while graphs that use them are built and closed on other
// goroutines: every Close either succeeds with no graph holding the buffer
// or is refused with ErrRetained; nothing leaks (the env checks).
func TestRetentionRace(t *testing.T) {
	e := newEnv(t)
	done := make(chan struct{})
	for range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 50 {
				b, err := memory.Alloc[float32](e.ctx, 8)
				if err != nil {
					t.Error(err)
					return
				}
				g, err := graph.New(e.ctx)
				if err != nil {
					t.Error(err)
					return
				}
				closed := make(chan error, 1)
				go func() { closed <- b.Close() }()
				_, addErr := graph.AddFill(g, b, float32(1))
				cerr := <-closed
				if cerr != nil && !errors.Is(cerr, graph.ErrRetained) {
					t.Errorf("Close: %v", cerr)
				}
				if cerr == nil && addErr == nil {
					t.Error("the buffer was freed under a node that uses it")
				}
				if err := g.Close(); err != nil {
					t.Error(err)
				}
				if cerr != nil {
					if err := b.Close(); err != nil {
						t.Error(err)
					}
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
}
