package graph_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest/fakekernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/graph"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// Objects of another *driver.Driver are refused with an error wrapping
// driver.ErrWrongContext by every call that takes objects, before any
// driver call, even where their handles could equal this driver's (a
// device ordinal always does): the call is never applied to this driver's
// object of the same number.
func TestObjectsOfAnotherDriverAreRefused(t *testing.T) {
	e := newEnv(t, fake.Devices(2))
	other := fake.New(append([]fake.Option{fake.Devices(2)}, fakekernels.Options()...)...)
	t.Cleanup(func() { require.Empty(t, fake.Of(other).Leaks(), "leaks") })
	octx := primary(t, other)
	assert.False(t, e.ctx.Same(octx))
	os, err := stream.New(octx, stream.Options{Flags: stream.NonBlocking})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, os.Close()) })
	ob, err := memory.Alloc[float32](octx, e.n)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, ob.Close()) })
	oev, err := stream.NewEvent(octx, stream.EventOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, oev.Close()) })
	odev1, err := other.Device(1)
	require.NoError(t, err)

	pool, err := memory.NewPool(e.ctx, memory.PoolOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pool.Close()) })
	managed, err := memory.AllocManaged[float32](e.ctx, 16, memory.AttachGlobal)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, managed.Close()) })

	g, err := graph.New(e.ctx)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, g.Close()) })
	_, err = g.AddEmpty()
	require.NoError(t, err)
	x, err := g.Instantiate()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, x.Close()) })
	og, err := graph.New(octx)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, og.Close()) })

	_, accessErr := pool.Access(odev1)
	for name, err := range map[string]error{
		"Pool.SetAccess":       pool.SetAccess(odev1, memory.AccessReadWrite),
		"Pool.Access":          accessErr,
		"Prefetch":             memory.Prefetch(e.s, managed, memory.On(odev1)),
		"Advise":               memory.Advise(managed, memory.SetPreferredLocation, memory.On(odev1)),
		"CopyDtoD":             memory.CopyDtoD(e.buf, ob),
		"CopyDtoDAsync":        memory.CopyDtoDAsync(e.s, e.buf, ob),
		"Fill":                 memory.Fill(os, e.buf, 1),
		"CopyToDeviceAsync":    memory.CopyToDeviceAsync(os, e.buf, make([]float32, e.n)),
		"Function.Launch":      e.launch(os, e.buf),
		"Exec.Launch":          x.Launch(os),
		"Exec.Upload":          x.Upload(os),
		"Exec.Update":          x.Update(og),
		"Graph.AddChild":       addErr(g.AddChild(og)),
		"Graph.AddEventRecord": addErr(g.AddEventRecord(oev)),
		"AddFill":              addErr(graph.AddFill(g, ob, 1)),
		"Event.Record":         oev.Record(e.s),
		"Stream.Wait":          e.s.Wait(oev),
		"Stream.WaitStream":    e.s.WaitStream(os),
	} {
		assert.ErrorIs(t, err, driver.ErrWrongContext, name)
	}
	require.NoError(t, e.s.Synchronize())
	assert.Equal(t, make([]float32, e.n), all(t, e.buf), "nothing was applied to this driver's objects")
}

func addErr(_ graph.Node, err error) error { return err }
