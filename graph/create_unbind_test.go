package graph_test

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/cudatest/fakekernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/graph"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// failPop is a fake whose next cuCtxPopCurrent fails, once armed.
type failPop struct {
	fake.Backend
	armed atomic.Bool
}

func (f *failPop) CtxPopCurrent() (uintptr, error) {
	if f.armed.CompareAndSwap(true, false) {
		return 0, driver.ErrUnknown
	}
	return f.Backend.CtxPopCurrent()
}

var _ backend.API = (*failPop)(nil)

// When the unbinding of a create call fails after the driver made the
// object, the call returns the error and destroys the object: nothing the
// driver made is dropped (the fake reports no leak). Each call runs on a
// goroutine of its own, whose thread the failed pop leaves locked with the
// context pushed.
func TestCreateDestroysWhatItMadeWhenUnbindFails(t *testing.T) {
	api := &failPop{Backend: fake.NewBackend(append([]fake.Option{fake.Devices(1)}, fakekernels.Options()...)...)}
	drv, err := driver.New(api)
	require.NoError(t, err)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	g, err := graph.New(ctx)
	require.NoError(t, err)
	_, err = g.AddEmpty()
	require.NoError(t, err)
	ptx, err := module.Compile(ctx, kernels.Source, module.Options{Name: "k.cu", NoCache: true})
	require.NoError(t, err)
	image := ptx.Image()
	require.NoError(t, ptx.Close())
	host := make([]float32, 1024)

	for name, create := range map[string]func() (interface{ Close() error }, error){
		"stream.New":      func() (interface{ Close() error }, error) { return stream.New(ctx, stream.Options{}) },
		"stream.NewEvent": func() (interface{ Close() error }, error) { return stream.NewEvent(ctx, stream.EventOptions{}) },
		"memory.Alloc":    func() (interface{ Close() error }, error) { return memory.Alloc[float32](ctx, 16) },
		"memory.AllocHost": func() (interface{ Close() error }, error) {
			return memory.AllocHost[float32](ctx, 16)
		},
		"memory.AllocManaged": func() (interface{ Close() error }, error) {
			return memory.AllocManaged[float32](ctx, 16, memory.AttachGlobal)
		},
		"memory.AllocPitched": func() (interface{ Close() error }, error) {
			return memory.AllocPitched[float32](ctx, 16, 4)
		},
		"memory.Register": func() (interface{ Close() error }, error) { return memory.Register(ctx, host, 0) },
		"memory.NewPool": func() (interface{ Close() error }, error) {
			return memory.NewPool(ctx, memory.PoolOptions{})
		},
		"module.Load":       func() (interface{ Close() error }, error) { return module.Load(ctx, image) },
		"graph.New":         func() (interface{ Close() error }, error) { return graph.New(ctx) },
		"Graph.Instantiate": func() (interface{ Close() error }, error) { return g.Instantiate() },
		"Graph.Clone":       func() (interface{ Close() error }, error) { return g.Clone() },
	} {
		done := make(chan error, 1)
		go func() {
			api.armed.Store(true)
			obj, err := create()
			if err == nil {
				err = obj.Close()
				t.Errorf("%s: the failed pop was not reported", name)
			}
			done <- err
		}()
		err := <-done
		assert.ErrorIs(t, err, driver.ErrUnknown, name)
		assert.False(t, api.armed.Load(), "%s: no pop was made", name)
	}
	require.NoError(t, g.Close())
	// Checked before the context ends (which takes its objects along).
	for _, l := range api.Leaks() {
		assert.Equal(t, backend.LeakPrimaryContext, l.Kind, "made by a failed call and left alive: %v", l)
	}
	require.NoError(t, ctx.Close())
}

// A WaitStream whose internal event the driver fails to destroy says so and
// keeps the event: the next WaitStream, or the stream's Close, destroys it.
func TestWaitStreamKeepsTheEventItCouldNotDestroy(t *testing.T) {
	for _, end := range []string{"WaitStream", "Close"} {
		drv := fake.New(fake.Devices(1), fake.FailNth("cuEventDestroy", 1, driver.ErrUnknown))
		ctx := primary(t, drv)
		s, err := stream.New(ctx, stream.Options{})
		require.NoError(t, err)
		o, err := stream.New(ctx, stream.Options{})
		require.NoError(t, err)
		err = s.WaitStream(o)
		require.ErrorIs(t, err, driver.ErrUnknown)
		require.ErrorContains(t, err, "cuEventDestroy")
		if end == "WaitStream" {
			require.NoError(t, s.WaitStream(o))
		}
		require.NoError(t, s.Close())
		require.NoError(t, o.Close())
		// Checked before the context ends (which takes its events along).
		for _, l := range fake.Of(drv).Leaks() {
			assert.Equal(t, backend.LeakPrimaryContext, l.Kind, "left alive (%s): %v", end, l)
		}
	}
}
