package fake_test

import (
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// TestInterpreterMatchesGPU runs NVRTC's PTX of the interpreter's test
// kernels (internal/ptxexec/testdata/kernels.cu) on the fake and on the
// real driver with the same inputs, and compares: bit for bit, except
// softmax, whose ex2.approx may differ by the GPU's error (2 ulp per
// exponential, about 4 ulp after the division). It needs a GPU (skipped
// without one; NOCGO_CUDA_REQUIRE_GPU=1 makes that a failure).
func TestInterpreterMatchesGPU(t *testing.T) {
	real := cudatest.Real(t)
	src, err := os.ReadFile("internal/ptxexec/testdata/kernels_90.ptx")
	require.NoError(t, err)
	want := interpreterRuns(t, real, src)
	got := interpreterRuns(t, fake.New(), src)
	values, worst := 0, 0.0
	for name, w := range want {
		g := got[name]
		require.Len(t, g, len(w), name)
		values += len(w)
		if name == "softmax" {
			for i := range w {
				a, b := math.Float32frombits(uint32(w[i])), math.Float32frombits(uint32(g[i]))
				ulp := float64(math.Nextafter32(a, 2) - a)
				assert.InDelta(t, a, b, 4*ulp+1e-45, "softmax[%d]", i)
				worst = max(worst, math.Abs(float64(a)-float64(b))/ulp)
			}
			continue
		}
		for i := range w {
			if w[i] != g[i] {
				t.Errorf("%s[%d]: GPU %#x, interpreter %#x", name, i, w[i], g[i])
				break
			}
		}
	}
	t.Logf("%d kernels, %d values compared; softmax within %.2f ulp, the rest bit for bit", len(want), values, worst)
}

// interpreterRuns runs each kernel on drv and returns its outputs as bit
// patterns.
func interpreterRuns(t *testing.T, drv *driver.Driver, ptx []byte) map[string][]uint64 {
	t.Helper()
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	t.Cleanup(func() { ctx.Close() })
	m, err := module.Load(ctx, ptx)
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	s, err := stream.Default(ctx)
	require.NoError(t, err)
	out := map[string][]uint64{}

	f32s := func(vals []float32) *memory.Buffer[float32] {
		b, err := memory.Alloc[float32](ctx, len(vals))
		require.NoError(t, err)
		t.Cleanup(func() { b.Close() })
		require.NoError(t, memory.CopyToDevice(b, vals))
		return b
	}
	i32s := func(vals []int32) *memory.Buffer[int32] {
		b, err := memory.Alloc[int32](ctx, len(vals))
		require.NoError(t, err)
		t.Cleanup(func() { b.Close() })
		require.NoError(t, memory.CopyToDevice(b, vals))
		return b
	}
	launch := func(name string, cfg module.Config, args ...any) {
		f, err := m.Function(name)
		require.NoError(t, err, name)
		require.NoError(t, f.Launch(s, cfg, args...), name)
	}
	readF32 := func(name string, b *memory.Buffer[float32]) {
		h := make([]float32, b.Len())
		require.NoError(t, memory.CopyToHost(h, b))
		for _, v := range h {
			out[name] = append(out[name], uint64(math.Float32bits(v)))
		}
	}
	readI32 := func(name string, b *memory.Buffer[int32]) {
		h := make([]int32, b.Len())
		require.NoError(t, memory.CopyToHost(h, b))
		for _, v := range h {
			out[name] = append(out[name], uint64(uint32(v)))
		}
	}

	const n = 3000
	x, y := make([]float32, n), make([]float32, n)
	ints := make([]int32, n)
	for i := range x {
		x[i] = float32(math.Sin(float64(i))) * 100
		y[i] = float32(i%37) * 0.3
		ints[i] = int32(i*7919%1000 - 500)
	}
	dx, dy := f32s(x), f32s(y)

	axpyOut := f32s(make([]float32, n))
	launch("axpy", module.Config{Grid: module.Dim((n + 255) / 256), Block: module.Dim(256)}, float32(1.7), dx, dy, axpyOut, int32(n))
	readF32("axpy", axpyOut)

	ones := make([]float32, n)
	for i := range ones {
		ones[i] = float32(i % 9) // integers: the atomic order does not matter
	}
	total := f32s([]float32{0})
	launch("block_sum", module.Config{Grid: module.Dim((n + 255) / 256), Block: module.Dim(256)}, f32s(ones), total, int32(n))
	readF32("block_sum", total)

	wsum := i32s([]int32{0, 0})
	launch("warp_sum", module.Config{Grid: module.Dim((n + 127) / 128), Block: module.Dim(128)}, i32s(ints), wsum, int32(n))
	readI32("warp_sum", wsum)

	const mn = 45
	c := f32s(make([]float32, mn*mn))
	launch("matmul", module.Config{Grid: module.Dim(3, 3), Block: module.Dim(16, 16)}, f32s(x[:mn*mn]), f32s(y[:mn*mn]), c, int32(mn))
	readF32("matmul", c)

	const rows, cols = 4, 500
	sm := f32s(make([]float32, rows*cols))
	launch("softmax", module.Config{Grid: module.Dim(rows), Block: module.Dim(128), SharedMem: 128 * 4}, f32s(x[:rows*cols]), sm, int32(cols))
	readF32("softmax", sm)

	sin := f32s(make([]float32, n))
	big := make([]float32, n)
	for i := range big {
		big[i] = x[i] * float32(math.Pow(10, float64(i%30)))
	}
	launch("sines", module.Config{Grid: module.Dim((n + 255) / 256), Block: module.Dim(256)}, f32s(big), sin, int32(n))
	readF32("sines", sin)

	la := i32s(make([]int32, 2*n))
	launch("local_array", module.Config{Grid: module.Dim((n + 127) / 128), Block: module.Dim(128)}, i32s(ints), la, int32(n))
	readI32("local_array", la)

	scaled := f32s(x)
	launch("_Z5scaleIfEvPT_S0_x", module.Config{Grid: module.Dim(4), Block: module.Dim(64)}, scaled, float32(0.37), int64(n))
	readF32("scale<float>", scaled)

	d := make([]float64, n)
	for i := range d {
		d[i] = float64(x[i]) * 1e3
	}
	dd, err := memory.Alloc[float64](ctx, n)
	require.NoError(t, err)
	t.Cleanup(func() { dd.Close() })
	require.NoError(t, memory.CopyToDevice(dd, d))
	dout, err := memory.Alloc[float64](ctx, n)
	require.NoError(t, err)
	t.Cleanup(func() { dout.Close() })
	launch("dmath", module.Config{Grid: module.Dim((n + 255) / 256), Block: module.Dim(256)}, dd, dout, int32(n))
	hd := make([]float64, n)
	require.NoError(t, memory.CopyToHost(hd, dout))
	for _, v := range hd {
		out["dmath"] = append(out["dmath"], math.Float64bits(v))
	}
	require.NoError(t, s.Synchronize())
	return out
}

// TestInterpreterRunsRepeatable runs the comparison's kernels twice on the
// fake, once with parallel workers: the results are the same, bit for bit.
func TestInterpreterRunsRepeatable(t *testing.T) {
	src, err := os.ReadFile("internal/ptxexec/testdata/kernels_90.ptx")
	require.NoError(t, err)
	one := interpreterRuns(t, fake.New(), src)
	par := interpreterRuns(t, fake.New(fake.Workers(3)), src)
	require.Equal(t, 9, len(one), "kernels run")
	for name, w := range one {
		assert.True(t, equalBits(w, par[name]), "%s differs with parallel workers", name)
	}
	assert.NotZero(t, one["block_sum"][0])
}

func equalBits(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
