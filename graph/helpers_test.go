package graph_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/cudatest/fakekernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/graph"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// env is a fake driver's primary context with add1 compiled, a stream, and
// a buffer of n zero floats; at the end of the test it checks that the fake
// reports no leaks.
type env struct {
	drv  *driver.Driver
	ctx  *driver.Context
	s    *stream.Stream
	add1 *module.Function
	buf  *memory.Buffer[float32]
	n    int
}

func newEnv(t *testing.T, opts ...fake.Option) *env {
	t.Helper()
	drv := fake.New(append(append([]fake.Option{fake.Devices(1)}, fakekernels.Options()...), opts...)...)
	t.Cleanup(func() { require.Empty(t, fake.Of(drv).Leaks(), "leaks") })
	e := &env{drv: drv, n: 100}
	e.ctx = primary(t, drv)
	var err error
	e.s, err = stream.New(e.ctx, stream.Options{Flags: stream.NonBlocking})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.s.Close()) })
	m, err := module.Compile(e.ctx, kernels.Source, module.Options{Name: "k.cu", NoCache: true, NameExpressions: []string{kernels.FillFloat}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, m.Close()) })
	e.add1, err = m.Function(kernels.Add1)
	require.NoError(t, err)
	e.buf = e.floats(t)
	return e
}

func primary(t testing.TB, drv *driver.Driver) *driver.Context {
	t.Helper()
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, ctx.Close()) })
	return ctx
}

func (e *env) floats(t *testing.T) *memory.Buffer[float32] {
	t.Helper()
	b, err := memory.Alloc[float32](e.ctx, e.n)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	require.NoError(t, memory.CopyToDevice(b, make([]float32, e.n)))
	return b
}

func (e *env) cfg() module.Config {
	return module.Config{Grid: module.Cover(e.n, 128), Block: module.Dim(128)}
}

func (e *env) launch(s *stream.Stream, b *memory.Buffer[float32]) error {
	return e.add1.Launch(s, e.cfg(), b, int32(e.n))
}

func (e *env) capture(t *testing.T, k int) *graph.Graph {
	t.Helper()
	g, err := graph.Capture(e.s, graph.Global, func() error {
		for range k {
			if err := e.launch(e.s, e.buf); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, g.Close()) })
	return g
}

func all(t *testing.T, b *memory.Buffer[float32]) []float32 {
	t.Helper()
	out := make([]float32, b.Len())
	require.NoError(t, memory.CopyToHost(out, b))
	return out
}

func filled(n int, v float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = v
	}
	return out
}
