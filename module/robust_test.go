package module_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/module"
)

// Accessors of nil modules and functions answer with zero values and
// errors, never a panic.
func TestNilModuleAndFunction(t *testing.T) {
	var m *module.Module
	assert.NotPanics(t, func() {
		assert.Nil(t, m.Context())
		assert.Zero(t, m.Handle())
		assert.Zero(t, m.Kind())
		assert.Empty(t, m.Arch())
		assert.Empty(t, m.Log())
		assert.False(t, m.Cached())
		assert.Nil(t, m.PTX())
		assert.Nil(t, m.Image())
		_, ok := m.LoweredName("x")
		assert.False(t, ok)
		assert.Nil(t, m.Kernels())
		assert.Equal(t, "nil module", m.String())
		_, err := m.Function("k")
		assert.ErrorIs(t, err, driver.ErrInvalidValue)
		assert.ErrorIs(t, m.Close(), driver.ErrInvalidValue)
	})
	var f *module.Function
	assert.NotPanics(t, func() {
		assert.Empty(t, f.Name())
		assert.Empty(t, f.LoweredName())
		assert.Nil(t, f.Module())
		assert.Zero(t, f.Handle())
		assert.Equal(t, "nil kernel", f.String())
		_, err := f.Params()
		assert.ErrorIs(t, err, driver.ErrInvalidValue)
	})
}

// Cover never overflows: the grid covers n for every n, up to the largest.
func TestCoverDoesNotOverflow(t *testing.T) {
	for _, c := range []struct{ n, block, want int }{
		{math.MaxInt, 256, math.MaxInt/256 + 1},
		{math.MaxInt, 1, math.MaxInt},
		{math.MaxInt - 255, 256, (math.MaxInt - 255) / 256}, // a multiple of 256
		{1 << 20, 256, 4096},
		{1<<20 + 1, 256, 4097},
		{1, 1024, 1},
	} {
		g := module.Cover(c.n, c.block)
		assert.Equal(t, c.want, g.X, "Cover(%d, %d)", c.n, c.block)
		assert.Positive(t, g.X)
	}
}

// A failed nvrtcDestroyProgram is tried once more; one that keeps failing
// is reported, not swallowed.
func TestCompileReportsDestroyProgramFailure(t *testing.T) {
	code := driver.Result(backend.NVRTCErrorInvalidInput)
	drv := fake.New(fake.FailNth("nvrtcDestroyProgram", 1, code), fake.FailNth("nvrtcDestroyProgram", 2, code),
		fake.FailNth("nvrtcDestroyProgram", 4, code), fake.Kernel("k", func(fake.Thread) {}))
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer ctx.Close()
	_, err = module.Compile(ctx, `extern "C" __global__ void k() {}`, module.Options{NoCache: true})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nvrtcDestroyProgram")
	var nv *backend.NVRTCError
	assert.True(t, errors.As(err, &nv) || errors.Is(err, driver.Result(backend.NVRTCErrorInvalidInput)), "the cause is kept: %v", err)
	m, err := module.Compile(ctx, `extern "C" __global__ void k() {}`, module.Options{NoCache: true})
	require.NoError(t, err, "one failure (the 4th destroy) is absorbed by the retry")
	require.NoError(t, m.Close())
	programs := 0
	for _, l := range fake.Of(drv).Leaks() {
		if l.Kind == backend.LeakProgram {
			programs++
		}
	}
	assert.Equal(t, 1, programs, "only the program whose destroy kept failing is left; the retried one is destroyed")
}
