package graph_test

import (
	"errors"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/graph"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// A captured graph retains what its work uses, as a built one does: the
// module of a captured launch, the buffers Launch was given, and the
// buffers of captured copies and fills; its Exec too, until both close.
func TestCaptureRetainsModuleAndBuffers(t *testing.T) {
	e := newEnv(t)
	m, err := module.Compile(e.ctx, kernels.Source, module.Options{Name: "k.cu", NoCache: true, NameExpressions: []string{kernels.FillFloat}})
	require.NoError(t, err)
	add1, err := m.Function(kernels.Add1)
	require.NoError(t, err)
	arg, err := memory.Alloc[float32](e.ctx, e.n)
	require.NoError(t, err)
	src, err := memory.Alloc[float32](e.ctx, e.n)
	require.NoError(t, err)
	filledBuf, err := memory.Alloc[float32](e.ctx, e.n)
	require.NoError(t, err)
	g, err := graph.Capture(e.s, graph.Global, func() error {
		if err := memory.Fill(e.s, filledBuf, 2); err != nil {
			return err
		}
		if err := memory.CopyDtoDAsync(e.s, arg, src); err != nil {
			return err
		}
		return add1.Launch(e.s, e.cfg(), arg, int32(e.n))
	})
	require.NoError(t, err)
	x, err := g.Instantiate()
	require.NoError(t, err)
	for _, c := range []interface{ Close() error }{m, arg, src, filledBuf} {
		require.ErrorIs(t, c.Close(), graph.ErrRetained, "%v is used by the captured graph", c)
	}
	require.NoError(t, g.Close())
	require.ErrorIs(t, m.Close(), graph.ErrRetained, "the Exec still uses the module")
	require.ErrorIs(t, arg.Close(), graph.ErrRetained, "the Exec still uses the kernel's buffer")
	require.NoError(t, x.Launch(e.s))
	require.NoError(t, e.s.Synchronize())
	require.Equal(t, filled(e.n, 1), all(t, arg), "the replay ran on memory still there")
	require.NoError(t, x.Close())
	for _, c := range []interface{ Close() error }{m, arg, src, filledBuf} {
		require.NoError(t, c.Close(), "nothing uses it any more")
	}
}

// A capture that fails retains nothing, and a stream closed while it
// captures lets go of what the capture took.
func TestCaptureRetainsNothingWithoutAGraph(t *testing.T) {
	e := newEnv(t)
	buf := e.floats(t)
	_, err := graph.Capture(e.s, graph.Global, func() error {
		if err := memory.Fill(e.s, buf, 1); err != nil {
			return err
		}
		return driver.ErrInvalidValue
	})
	require.ErrorIs(t, err, driver.ErrInvalidValue)
	other := e.floats(t)
	s, err := stream.New(e.ctx, stream.Options{Flags: stream.NonBlocking})
	require.NoError(t, err)
	require.NoError(t, graph.BeginCapture(s, graph.Relaxed))
	require.NoError(t, memory.Fill(s, other, 1))
	require.NoError(t, s.Close())
	// The cleanups close buf and other: they fail if anything kept them.
}

// On the fake, a replay of a kernel whose module was unloaded (through
// handles this library does not see) fails instead of running the code.
func TestFakeReplayOfUnloadedModuleFails(t *testing.T) {
	drv := fake.New(fake.Devices(1))
	if c, _ := fake.Of(drv).Compiler(); c == "nocgo/cuda fake" {
		t.Skip("the kernels package's CUDA C needs NVIDIA's NVRTC (the pretend compiler has no Go bodies for it)")
	}
	ctx := primary(t, drv)
	api := fake.Of(drv).Backend().(interface {
		backend.API
		backend.Graphs
	})
	m, err := module.Compile(ctx, kernels.Source, module.Options{Name: "k.cu", NoCache: true, NameExpressions: []string{kernels.FillFloat}})
	require.NoError(t, err)
	add1, err := m.Function(kernels.Add1)
	require.NoError(t, err)
	buf, err := memory.Alloc[float32](ctx, 128)
	require.NoError(t, err)
	defer buf.Close()
	s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, api.StreamBeginCapture(s.Handle(), backend.CaptureModeRelaxed))
	require.NoError(t, add1.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(128)}, buf, int32(128)))
	gh, err := api.StreamEndCapture(s.Handle())
	require.NoError(t, err)
	defer api.GraphDestroy(gh)
	require.NoError(t, m.Close(), "the library never saw the capture: nothing retains the module")
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	require.NoError(t, api.CtxPushCurrent(ctx.Handle()))
	defer api.CtxPopCurrent()
	xh, err := api.GraphInstantiate(gh, 0)
	require.NoError(t, err)
	defer api.GraphExecDestroy(xh)
	require.NoError(t, api.GraphLaunch(xh, s.Handle()))
	require.ErrorIs(t, api.StreamSynchronize(s.Handle()), driver.ErrInvalidHandle, "unloaded code does not run")
}

// Captures on several streams at once, with Closes racing them: every
// Close of a retained buffer is refused, every graph retains its own, and
// once the graphs are closed everything closes (run with -race).
func TestCaptureRetainConcurrent(t *testing.T) {
	e := newEnv(t)
	const k = 4
	bufs := make([]*memory.Buffer[float32], k)
	graphs := make([]*graph.Graph, k)
	errs := make(chan error, k)
	for i := range k {
		var err error
		bufs[i], err = memory.Alloc[float32](e.ctx, e.n)
		require.NoError(t, err)
	}
	for i := range k {
		go func() {
			s, err := stream.New(e.ctx, stream.Options{Flags: stream.NonBlocking})
			if err != nil {
				errs <- err
				return
			}
			graphs[i], err = graph.Capture(s, graph.ThreadLocal, func() error {
				if err := memory.Fill(s, bufs[i], float32(i)); err != nil {
					return err
				}
				return e.add1.Launch(s, e.cfg(), bufs[(i+1)%k], int32(e.n))
			})
			// The stream closes before the test hears of it: a deferred
			// Close would race the leak check at the end of the test.
			errs <- errors.Join(err, s.Close())
		}()
	}
	for range k {
		require.NoError(t, <-errs)
	}
	for i := range k {
		require.ErrorIs(t, bufs[i].Close(), graph.ErrRetained)
	}
	for i := range k {
		require.NoError(t, graphs[i].Close())
	}
	for i := range k {
		require.NoError(t, bufs[i].Close())
	}
}

// A buffer that only a captured launch uses (no copy or fill of the
// capture names it) is retained by the graph all the same: Launch keeps
// its buffer arguments (module's keepArgs).
func TestCaptureRetainsLaunchOnlyBuffer(t *testing.T) {
	e := newEnv(t)
	m, err := module.Compile(e.ctx, kernels.Source, module.Options{Name: "k.cu", NoCache: true, NameExpressions: []string{kernels.FillFloat}})
	require.NoError(t, err)
	add1, err := m.Function(kernels.Add1)
	require.NoError(t, err)
	arg, err := memory.Alloc[float32](e.ctx, e.n)
	require.NoError(t, err)
	g, err := graph.Capture(e.s, graph.Global, func() error {
		return add1.Launch(e.s, e.cfg(), arg, int32(e.n))
	})
	require.NoError(t, err)
	require.ErrorIs(t, arg.Close(), graph.ErrRetained, "the captured launch's buffer")
	require.NoError(t, g.Close())
	require.NoError(t, arg.Close(), "nothing uses it any more")
	require.NoError(t, m.Close())
}
