package segscale_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/cudatest/fakekernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/module"
)

func TestReference(t *testing.T) {
	in := []float32{1, 2, 3, 4, 5, 6, 7, 8}
	out := make([]float32, len(in))
	segscale.Reference(out, in)
	// q = 2: two halved, four unchanged, two doubled.
	assert.Equal(t, []float32{0.5, 1, 3, 4, 5, 6, 14, 16}, out)

	// q = 5/4 = 1: the quarters are one element each.
	in = []float32{2, 2, 2, 2, 2}
	out = make([]float32, 5)
	segscale.Reference(out, in)
	assert.Equal(t, []float32{1, 2, 2, 2, 4}, out)

	// Below four elements there are no quarters.
	in = []float32{3, 3, 3}
	out = make([]float32, 3)
	segscale.Reference(out, in)
	assert.Equal(t, in, out)

	assert.Equal(t, float32(0.5), segscale.Scale(0, 4))
	assert.Equal(t, float32(1), segscale.Scale(1, 4))
	assert.Equal(t, float32(2), segscale.Scale(3, 4))
}

func TestInput(t *testing.T) {
	a, b := segscale.Input(5000), segscale.Input(5000)
	assert.Equal(t, a, b, "deterministic")
	neg := 0
	for _, v := range a {
		// Halving must stay exact: nothing halves into the subnormals.
		h := v * 0.5
		assert.Equal(t, v, h*2)
		assert.True(t, v == 0 || math.Abs(float64(h)) >= 0x1p-126, "%v", v)
		if v < 0 {
			neg++
		}
	}
	assert.Positive(t, neg, "signs vary")
}

func TestCompare(t *testing.T) {
	assert.NoError(t, segscale.Compare([]float32{1, 2}, []float32{1, 2}))
	err := segscale.Compare([]float32{1, 3, 5}, []float32{1, 2, 4})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "2 of 3 elements differ")
	assert.Contains(t, err.Error(), "out[1] = 3, want 2")
	assert.Error(t, segscale.Compare([]float32{1}, []float32{1, 2}))
	// Bit for bit: -0 is not 0, a NaN is not a number.
	assert.Error(t, segscale.Compare([]float32{float32(math.Copysign(0, -1))}, []float32{0}))
	assert.Error(t, segscale.Compare([]float32{float32(math.NaN())}, []float32{1}))
}

func TestRunFake(t *testing.T) {
	drv, api := newFake(t, fake.Devices(1), fake.Kernel(segscale.Name, fakekernels.SegmentScale))
	for _, n := range []int{1, 4, 255, 256, 257, 10000} {
		res, err := segscale.Run(drv, api, n, module.Options{NoCache: true})
		require.NoError(t, err, "n = %d", n)
		assert.Equal(t, n, res.N)
		assert.Equal(t, module.CUBIN, res.Kind)
		assert.Equal(t, "sm_90", res.Arch)
		assert.False(t, res.Cached)
		assert.Contains(t, res.String(), "match the Go reference exactly")
	}
	assert.Empty(t, leaks(t, api), "Run releases everything, the raw objects by raw calls")

	// With a cache: the second run compiles nothing.
	dir := t.TempDir()
	_, err := segscale.Run(drv, api, 100, module.Options{CacheDir: dir})
	require.NoError(t, err)
	res, err := segscale.Run(drv, api, 100, module.Options{CacheDir: dir})
	require.NoError(t, err)
	assert.True(t, res.Cached)
	assert.Contains(t, res.String(), "from cache")
}

func TestRunDetectsWrongKernel(t *testing.T) {
	// A kernel body that forgets the last quarter: Run must say so.
	wrong := func(t fake.Thread, out, in fake.Ptr, n int32) {
		if i := t.X(); i < int(n) {
			v := fake.Load[float32](t, in, i)
			if i < int(n)/4 {
				v *= 0.5
			}
			fake.Store(t, out, i, v)
		}
	}
	drv, api := newFake(t, fake.Devices(1), fake.Kernel(segscale.Name, wrong))
	_, err := segscale.Run(drv, api, 100, module.Options{NoCache: true})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "25 of 100 elements differ")
	assert.Contains(t, err.Error(), "out[75]")
	assert.Empty(t, leaks(t, api))
}

func TestRunErrors(t *testing.T) {
	_, err := segscale.Run(nil, fake.NewBackend(), 10, module.Options{})
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	drv, api := newFake(t, fake.Devices(1), fake.Kernel(segscale.Name, fakekernels.SegmentScale))
	_, err = segscale.Run(drv, nil, 10, module.Options{})
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "nil backend")
	for _, n := range []int{0, -1, math.MaxInt32 + 1} {
		_, err := segscale.Run(drv, api, n, module.Options{NoCache: true})
		assert.ErrorIs(t, err, driver.ErrInvalidValue, "n = %d", n)
	}

	// A failure at each step still releases what was made.
	for _, op := range []string{"cuMemAlloc", "cuStreamCreateWithPriority", "cuLaunchKernel", "nvrtcCompileProgram", "cuModuleLoadData"} {
		drv, api := newFake(t, fake.Devices(1), fake.Kernel(segscale.Name, fakekernels.SegmentScale), fake.FailNth(op, 1, driver.ErrOutOfMemory))
		_, err := segscale.Run(drv, api, 64, module.Options{NoCache: true})
		assert.Error(t, err, op)
		assert.Empty(t, leaks(t, api), op)
	}
}

// TestRunReal is the self-test on a GPU; the conformance suite runs it too.
func TestRunReal(t *testing.T) {
	api := cudatest.RealBackend(t)
	drv, err := driver.New(api)
	require.NoError(t, err)
	res, err := segscale.Run(drv, api, 1<<20, module.Options{NoCache: true})
	require.NoError(t, err)
	t.Log(res)
}

// newFake returns a Driver over a new fake backend and the backend, for Run.
func newFake(t *testing.T, opts ...fake.Option) (*driver.Driver, backend.API) {
	t.Helper()
	api := fake.NewBackend(opts...)
	drv, err := driver.New(api)
	require.NoError(t, err)
	return drv, api
}

// leaks returns what the fake backend api reports still alive.
func leaks(t *testing.T, api backend.API) []backend.Leak {
	t.Helper()
	r, ok := api.(backend.LeakReporter)
	require.True(t, ok, "the fake reports its leaks")
	return r.Leaks()
}
