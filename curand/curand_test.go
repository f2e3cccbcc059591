package curand_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/curand"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

func meanVar(xs []float64) (m, v float64) {
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return m, v / float64(len(xs))
}

func f64s[T float32 | float64 | uint32](xs []T) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// Every pseudo-random generator gives numbers of the right distributions,
// the same for the same seed, others for another.
func TestDistributions(t *testing.T) {
	_, ctx, s := setup(t)
	const n = 1 << 14
	for _, r := range []curand.RNG{curand.Philox, curand.XORWOW, curand.MRG32k3a, curand.MTGP32} {
		t.Run(r.String(), func(t *testing.T) {
			g, err := curand.New(s, r)
			require.NoError(t, err)
			defer func() { require.NoError(t, g.Close()) }()
			require.NoError(t, g.SetSeed(42))
			u := alloc[float32](t, ctx, n)
			require.NoError(t, curand.Uniform(g, u))
			us := download(t, s, u)
			for _, x := range us {
				require.True(t, x > 0 && x <= 1, "uniform %v outside (0, 1]", x)
			}
			m, v := meanVar(f64s(us))
			assert.InDelta(t, 0.5, m, 0.02)
			assert.InDelta(t, 1.0/12, v, 0.01)

			d := alloc[float64](t, ctx, n)
			require.NoError(t, curand.Normal(g, d, 3, 2))
			m, v = meanVar(download(t, s, d))
			assert.InDelta(t, 3, m, 0.1)
			assert.InDelta(t, 4, v, 0.3)

			require.NoError(t, curand.LogNormal(g, u, 0, 0.5))
			m, _ = meanVar(f64s(download(t, s, u)))
			assert.InDelta(t, math.Exp(0.125), m, 0.05)

			p := alloc[uint32](t, ctx, n)
			require.NoError(t, curand.Poisson(g, p, 7.5))
			m, v = meanVar(f64s(download(t, s, p)))
			assert.InDelta(t, 7.5, m, 0.2)
			assert.InDelta(t, 7.5, v, 0.6)

			// Reproducible: the same seed from the start, the same bits;
			// another seed, others.
			fresh := func(seed uint64) []uint32 {
				f, err := curand.New(s, r)
				require.NoError(t, err)
				defer func() { require.NoError(t, f.Close()) }()
				require.NoError(t, f.SetSeed(seed))
				a := alloc[uint32](t, ctx, 1024)
				require.NoError(t, curand.Bits(f, a))
				return download(t, s, a)
			}
			first := fresh(7)
			assert.Equal(t, first, fresh(7))
			assert.NotEqual(t, first, fresh(8))
			if r == curand.MTGP32 {
				// libcurand refuses an offset for MTGP32 (TYPE_ERROR).
				assert.ErrorIs(t, g.SetOffset(0), driver.ErrInvalidValue)
				return
			}
			// SetSeed keeps the offset (libcurand does), so the sequence
			// goes on until SetOffset(0).
			a := alloc[uint32](t, ctx, 1024)
			require.NoError(t, g.SetSeed(7))
			require.NoError(t, g.SetOffset(0))
			require.NoError(t, curand.Bits(g, a))
			assert.Equal(t, first, download(t, s, a), "SetOffset(0) restarts the sequence")
			require.NoError(t, g.SetSeed(7))
			require.NoError(t, curand.Bits(g, a))
			assert.NotEqual(t, first, download(t, s, a), "SetSeed alone continues the sequence")
			require.NoError(t, g.SetOffset(0))
			require.NoError(t, curand.Bits(g, a))
			assert.Equal(t, first, download(t, s, a))
		})
	}
}

// Sobol: the first points of the first dimension are 1/2, 3/4, 1/4 (plus
// half a unit of the last place), dimension-major.
func TestSobol(t *testing.T) {
	_, ctx, s := setup(t)
	g, err := curand.New(s, curand.Sobol32)
	require.NoError(t, err)
	defer g.Close()
	require.NoError(t, g.SetDimensions(2))
	b := alloc[float64](t, ctx, 8)
	require.NoError(t, curand.Uniform(g, b))
	got := download(t, s, b)
	t.Logf("Sobol32, 2 dimensions, 4 points: %v", got)
	assert.InDelta(t, 0.5, got[1], 1e-9)
	assert.InDelta(t, 0.75, got[2], 1e-9)
	assert.InDelta(t, 0.25, got[3], 1e-9)
	assert.InDelta(t, 0.25, got[6], 1e-9, "dimension 2 starts at 4")

	odd := alloc[float64](t, ctx, 7)
	err = curand.Uniform(g, odd)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "7 numbers for 2 dimensions")

	g64, err := curand.New(s, curand.Sobol64)
	require.NoError(t, err)
	defer g64.Close()
	w := alloc[uint64](t, ctx, 4)
	require.NoError(t, curand.Bits64(g64, w))
	assert.Equal(t, uint64(1)<<63, download(t, s, w)[1])
	assert.ErrorIs(t, curand.Bits(g64, alloc[uint32](t, ctx, 4)), driver.ErrInvalidValue)
	assert.ErrorIs(t, g.SetSeed(1), driver.ErrInvalidValue, "quasi-random generators have no seed")
}

// Bad input is refused before cuRAND sees it and changes nothing.
func TestChecks(t *testing.T) {
	drv, ctx, s := setup(t)
	_, err := curand.New(nil, curand.Philox)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = curand.New(s, curand.RNG(5))
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	g, err := curand.New(s, curand.Philox)
	require.NoError(t, err)
	require.NoError(t, g.SetSeed(1))
	odd := alloc[float32](t, ctx, 3)
	assert.ErrorIs(t, curand.Normal(g, odd, 0, 1), driver.ErrInvalidValue)
	assert.ErrorIs(t, curand.Poisson(g, alloc[uint32](t, ctx, 2), -1), driver.ErrInvalidValue)
	assert.ErrorIs(t, curand.Uniform[float32](g, nil), driver.ErrInvalidValue)
	assert.ErrorIs(t, g.SetDimensions(2), driver.ErrInvalidValue)
	assert.ErrorIs(t, g.SetOrdering(curand.OrderingQuasiDefault), driver.ErrInvalidValue)
	require.NoError(t, g.SetOrdering(curand.OrderingLegacy))
	assert.ErrorIs(t, curand.Bits64(g, alloc[uint64](t, ctx, 2)), driver.ErrInvalidValue)

	// A refused call leaves the offset: what comes next is what came first.
	require.NoError(t, g.SetSeed(1))
	require.NoError(t, g.SetOffset(0))
	a := alloc[uint32](t, ctx, 8)
	require.NoError(t, curand.Bits(g, a))
	want := download(t, s, a)
	require.NoError(t, g.SetOffset(0))
	assert.Error(t, curand.Normal(g, odd, 0, 1))
	require.NoError(t, curand.Bits(g, a))
	assert.Equal(t, want, download(t, s, a))

	closed, err := memory.Alloc[float32](ctx, 4)
	require.NoError(t, err)
	require.NoError(t, closed.Close())
	assert.ErrorIs(t, curand.Uniform(g, closed), driver.ErrClosed)

	// A buffer of another context.
	dev, err := drv.Device(0)
	require.NoError(t, err)
	other, err := dev.NewContext(driver.ContextOptions{})
	require.NoError(t, err)
	defer other.Close()
	ob, err := memory.Alloc[float32](other, 4)
	require.NoError(t, err)
	defer ob.Close()
	assert.ErrorIs(t, curand.Uniform(g, ob), driver.ErrWrongContext)
	os, err := stream.New(other, stream.Options{})
	require.NoError(t, err)
	defer os.Close()
	assert.ErrorIs(t, g.SetStream(os), driver.ErrWrongContext)

	require.NoError(t, g.Close())
	require.NoError(t, g.Close(), "a second Close is nil")
	assert.ErrorIs(t, curand.Bits(g, a), driver.ErrClosed)
	assert.ErrorIs(t, g.SetSeed(1), driver.ErrClosed)
	assert.Zero(t, g.Handle())
}

// Borrowed buffers, wrapped and special streams work; SetStream rebinds.
func TestBorrowedAndWrapped(t *testing.T) {
	_, ctx, s := setup(t)
	own := alloc[float32](t, ctx, 64)
	b, err := memory.Borrow[float32](ctx, own.Ptr(), 64, nil)
	require.NoError(t, err)
	defer b.Close()
	w, err := stream.Wrap(ctx, s.Handle())
	require.NoError(t, err)
	defer w.Close()
	g, err := curand.New(w, curand.XORWOW)
	require.NoError(t, err)
	defer g.Close()
	require.NoError(t, curand.Uniform(g, b))
	require.NoError(t, s.Synchronize())
	leg, err := stream.Legacy(ctx)
	require.NoError(t, err)
	defer leg.Close()
	require.NoError(t, g.SetStream(leg))
	view, err := own.Slice(32, 64)
	require.NoError(t, err)
	require.NoError(t, curand.Uniform(g, view))
	require.NoError(t, leg.Synchronize())
	for _, x := range download(t, s, own) {
		assert.True(t, x > 0 && x <= 1)
	}
	assert.Equal(t, leg, g.Stream())
}
