package cudatest_test

// The first hour of a new user (project issue 32): the eight everyday
// tasks, written from the README and go doc alone, on the fake (the GPU
// where one loads). docs/FIRST-HOUR.md counts their lines beside the
// peers'. Each task is the body between the "task" markers.

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cublas"
	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/cufft"
	"github.com/nocgo/cuda/curand"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/graph"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// Task 1: a kernel from CUDA C and its table test.
func TestFirstHourKernel(t *testing.T) {
	// task
	s := cudatest.Stream(t, fake.Kernel("scale", scaleBody))
	f := cudatest.Kernel(t, s, scaleSource, "scale")
	for _, c := range []struct{ in, want []float32 }{{[]float32{1, 2, 3}, []float32{2, 4, 6}}, {nil, []float32{}}} {
		in, n := cudatest.FromSlice(t, s, c.in), len(c.in)
		require.NoError(t, f.Launch(s, module.ForElems(n), in, in, float32(2), int32(n)))
		assert.Equal(t, c.want, cudatest.ToSlice(t, s, in))
	}
	// task
}

// Task 2: cuBLAS products from row-major Go slices.
func TestFirstHourGemm(t *testing.T) {
	// task
	s := cudatest.Stream(t)
	h, err := cublas.New(s)
	require.NoError(t, err)
	defer h.Close()
	a := cudatest.FromSlice(t, s, []float32{1, 2, 3, 4, 5, 6})    // 2×3, row by row
	b := cudatest.FromSlice(t, s, []float32{7, 8, 9, 10, 11, 12}) // 3×2
	c := cudatest.Alloc[float32](t, s, 2*2)
	require.NoError(t, cublas.Mul(h, 1, cublas.RowMajor(a, 2, 3), cublas.RowMajor(b, 3, 2), 0, cublas.RowMajor(c, 2, 2)))
	assert.Equal(t, []float32{58, 64, 139, 154}, cudatest.ToSlice(t, s, c))
	// task
}

// Task 3: cuRAND numbers, and their spectrum with cuFFT.
func TestFirstHourRandFFT(t *testing.T) {
	// task
	s := cudatest.Stream(t)
	g, err := curand.New(s, curand.Philox)
	require.NoError(t, err)
	defer g.Close()
	require.NoError(t, g.SetSeed(1234))
	u, spec := cudatest.Alloc[float32](t, s, 1024), cudatest.Alloc[complex64](t, s, 1024/2+1)
	require.NoError(t, curand.Uniform(g, u))
	p, err := cufft.Plan1D(s, 1024, cufft.R2C, 1)
	require.NoError(t, err)
	defer p.Close()
	require.NoError(t, cufft.ExecR2C(p, u, spec))
	got := cudatest.ToSlice(t, s, spec)
	assert.InDelta(t, 512, real(got[0]), 128, "the mean of uniform numbers is 1/2")
	// task
}

// Task 4: the race detector finds two streams writing one buffer with
// nothing ordering them. Under cudatest the report fails the test; here
// the test takes it (Fake.TakeHazards) to show it.
func TestFirstHourRace(t *testing.T) {
	// task
	cc := cudatest.Context(t, fake.DetectRaces(func(fake.Hazard) {})) // the test takes the reports
	if !cudatest.IsFake(cc.Driver()) {
		t.Skip("the race detector is the fake's")
	}
	buf, err := memory.Alloc[int32](cc, 256)
	require.NoError(t, err)
	defer buf.Close()
	for range 2 {
		s, err := stream.New(cc, stream.Options{Flags: stream.NonBlocking})
		require.NoError(t, err)
		defer s.Close()
		require.NoError(t, memory.Fill(s, buf, 1))
	}
	require.NoError(t, cc.Synchronize())
	races := fake.Of(cc.Driver()).TakeHazards()
	require.Len(t, races, 1)
	assert.Contains(t, races[0].String(), "WARNING: DATA RACE between CUDA streams")
	// task
}

// Task 5: wrap a stream and a pointer another library owns.
func TestFirstHourForeign(t *testing.T) {
	// task
	cc := cudatest.Context(t)
	other := cudatest.NewForeign(t, cc) // what PyTorch or a C library would own
	s, err := stream.Wrap(cc, other.Stream(true))
	require.NoError(t, err)
	defer s.Close()
	buf, err := memory.Borrow[float32](cc, other.Alloc(4*3), 3, nil)
	require.NoError(t, err)
	defer buf.Close()
	require.NoError(t, memory.CopyToDeviceAsync(s, buf, []float32{1, 2, 3}))
	assert.Equal(t, []float32{1, 2, 3}, cudatest.ToSlice(t, s, buf))
	// task
}

// Task 7: a CUDA graph, captured from a stream and launched twice.
func TestFirstHourGraph(t *testing.T) {
	// task
	s := cudatest.Stream(t, fake.Kernel("scale", scaleBody))
	f := cudatest.Kernel(t, s, scaleSource, "scale")
	p := cudatest.FromSlice(t, s, []float32{1, 2, 3})
	g, err := graph.Capture(s, graph.Global, func() error {
		return f.Launch(s, module.ForElems(3), p, p, float32(2), int32(3))
	})
	require.NoError(t, err)
	defer g.Close()
	x, err := g.Instantiate()
	require.NoError(t, err)
	defer x.Close()
	require.NoError(t, x.Launch(s))
	require.NoError(t, x.Launch(s))
	assert.Equal(t, []float32{4, 8, 12}, cudatest.ToSlice(t, s, p))
	// task
}

// Task 8: deliberate misuse, each refused with a message that says what
// to do, and nothing launched.
func TestFirstHourMisuse(t *testing.T) {
	// task
	s := cudatest.Stream(t, fake.Kernel("scale", scaleBody))
	f := cudatest.Kernel(t, s, scaleSource, "scale")
	_, err := f.Module().Function("sclae")
	assert.ErrorContains(t, err, "(the module has: scale)")
	in, ints := cudatest.FromSlice(t, s, []float32{1, 2}), cudatest.Alloc[int32](t, s, 2)
	cfg := module.ForElems(2)
	assert.ErrorContains(t, f.Launch(s, cfg, in, in, 2.0, int32(2)), "argument 2 (float k): a float64 of 8 bytes for a .f32 parameter: pass a float32")
	assert.ErrorContains(t, f.Launch(s, cfg, in, in, float32(2), 2), "argument 3 (int n): an int of 8 bytes for a .u32 parameter: pass an int32")
	assert.ErrorContains(t, f.Launch(s, cfg, in, ints, float32(2), int32(2)), "pass a *memory.Buffer[float32]")
	assert.ErrorContains(t, memory.CopyToDeviceAsync(s, in, []float32{1, 2, 3}), "src holds 3 elements, dst only 2: the copy does not fit")
	assert.NoError(t, f.Launch(s, module.ForElems(0), in, in, float32(2), int32(0)), "an empty launch is a no-op")
	// task
}
