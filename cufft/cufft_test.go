package cufft_test

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cufft"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
)

// dft is the naive multi-dimensional DFT of x (sizes n, last axis fastest),
// sign -1 forward, +1 inverse, not normalised.
func dft(x []complex128, n []int, sign float64) []complex128 {
	out := make([]complex128, len(x))
	total := len(x)
	idx := func(k int) []int {
		p := make([]int, len(n))
		for i := len(n) - 1; i >= 0; i-- {
			p[i] = k % n[i]
			k /= n[i]
		}
		return p
	}
	for k := 0; k < total; k++ {
		kp := idx(k)
		var s complex128
		for j := 0; j < total; j++ {
			jp := idx(j)
			var ph float64
			for a := range n {
				ph += float64(kp[a]*jp[a]) / float64(n[a])
			}
			s += x[j] * cmplx.Exp(complex(0, sign*2*math.Pi*ph))
		}
		out[k] = s
	}
	return out
}

func randomComplex(n int, r *rand.Rand) []complex128 {
	x := make([]complex128, n)
	for i := range x {
		x[i] = complex(r.Float64()*2-1, r.Float64()*2-1)
	}
	return x
}

func to64(x []complex128) []complex64 {
	out := make([]complex64, len(x))
	for i, v := range x {
		out[i] = complex64(v)
	}
	return out
}

func upload[T any](t *testing.T, ctx *driver.Context, x []T) *memory.Buffer[T] {
	t.Helper()
	b, err := memory.FromSlice(ctx, x)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	return b
}

func near(t *testing.T, want []complex128, got []complex128, tol float64, what string) {
	t.Helper()
	require.Equal(t, len(want), len(got))
	var scale float64
	for _, w := range want {
		scale = math.Max(scale, cmplx.Abs(w))
	}
	for i := range want {
		if cmplx.Abs(want[i]-got[i]) > tol*(1+scale) {
			t.Fatalf("%s: [%d] = %v, want %v (tolerance %g × %g)", what, i, got[i], want[i], tol, 1+scale)
		}
	}
}

func widen(x []complex64) []complex128 {
	out := make([]complex128, len(x))
	for i, v := range x {
		out[i] = complex128(v)
	}
	return out
}

// C2C and Z2Z of 1D (batched, odd and prime sizes), 2D and 3D plans match
// the naive DFT, forward and inverse.
func TestComplexTransforms(t *testing.T) {
	_, ctx, s := setup(t)
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		n     []int
		batch int
	}{{[]int{16}, 1}, {[]int{12}, 3}, {[]int{7}, 2}, {[]int{4, 6}, 1}, {[]int{3, 4, 5}, 1}} {
		total := tc.batch
		for _, x := range tc.n {
			total *= x
		}
		per := total / tc.batch
		x := randomComplex(total, r)
		for _, dir := range []cufft.Direction{cufft.Forward, cufft.Inverse} {
			want := make([]complex128, 0, total)
			for b := 0; b < tc.batch; b++ {
				want = append(want, dft(x[b*per:(b+1)*per], tc.n, float64(dir))...)
			}
			p, err := cufft.PlanMany(s, cufft.Many{N: tc.n, Type: cufft.Z2Z, Batch: tc.batch})
			require.NoError(t, err)
			in := upload(t, ctx, x)
			out := alloc[complex128](t, ctx, total)
			require.NoError(t, cufft.ExecC2C(p, in, out, dir))
			near(t, want, download(t, s, out), 1e-12, "Z2Z")
			require.NoError(t, p.Close())

			p, err = cufft.PlanMany(s, cufft.Many{N: tc.n, Type: cufft.C2C, Batch: tc.batch})
			require.NoError(t, err)
			in32 := upload(t, ctx, to64(x))
			require.NoError(t, cufft.ExecC2C(p, in32, in32, dir)) // in place
			near(t, want, widen(download(t, s, in32)), 1e-5, "C2C in place")
			require.NoError(t, p.Close())
		}
	}
}

// R2C gives n/2+1 numbers per row, C2R brings them back times n.
func TestRealTransforms(t *testing.T) {
	_, ctx, s := setup(t)
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range [][]int{{10}, {9}, {4, 6}, {2, 3, 5}} {
		total := 1
		for _, x := range n {
			total *= x
		}
		half := total / n[len(n)-1] * (n[len(n)-1]/2 + 1)
		x := make([]float64, total)
		xc := make([]complex128, total)
		for i := range x {
			x[i] = r.Float64()
			xc[i] = complex(x[i], 0)
		}
		full := dft(xc, n, -1)
		var want []complex128
		last := n[len(n)-1]
		for i, v := range full {
			if i%last <= last/2 {
				want = append(want, v)
			}
		}
		p, err := cufft.PlanMany(s, cufft.Many{N: n, Type: cufft.D2Z, Batch: 1})
		require.NoError(t, err)
		in := upload(t, ctx, x)
		spec := alloc[complex128](t, ctx, half)
		require.NoError(t, cufft.ExecR2C(p, in, spec))
		near(t, want, download(t, s, spec), 1e-12, "D2Z")
		require.NoError(t, p.Close())

		p, err = cufft.PlanMany(s, cufft.Many{N: n, Type: cufft.Z2D, Batch: 1})
		require.NoError(t, err)
		back := alloc[float64](t, ctx, total)
		require.NoError(t, cufft.ExecC2R(p, spec, back))
		got := download(t, s, back)
		for i := range x {
			assert.InDelta(t, x[i]*float64(total), got[i], 1e-9, "C2R(R2C(x)) = n·x at %d", i)
		}
		require.NoError(t, p.Close())

		p, err = cufft.PlanMany(s, cufft.Many{N: n, Type: cufft.R2C, Batch: 1})
		require.NoError(t, err)
		x32 := make([]float32, total)
		for i, v := range x {
			x32[i] = float32(v)
		}
		spec32 := alloc[complex64](t, ctx, half)
		require.NoError(t, cufft.ExecR2C(p, upload(t, ctx, x32), spec32))
		near(t, want, widen(download(t, s, spec32)), 1e-5, "R2C")
		require.NoError(t, p.Close())
	}
}

// The advanced layout: 3 transforms of 8 interleaved (stride 3, distance
// 1) into rows padded to 10 (stride 1, distance 10).
func TestAdvancedLayout(t *testing.T) {
	_, ctx, s := setup(t)
	r := rand.New(rand.NewPCG(5, 6))
	const n, batch = 8, 3
	x := randomComplex(n*batch, r)
	p, err := cufft.PlanMany(s, cufft.Many{
		N: []int{n}, Type: cufft.Z2Z, Batch: batch,
		In:  &cufft.Layout{Embed: []int{n}, Stride: batch, Dist: 1},
		Out: &cufft.Layout{Embed: []int{10}, Stride: 1, Dist: 10},
	})
	require.NoError(t, err)
	defer p.Close()
	// The padding past each row is read back below: written first (zeros),
	// so that the race detector sees no read of unwritten memory.
	out := upload(t, ctx, make([]complex128, 10*batch))
	require.NoError(t, cufft.ExecC2C(p, upload(t, ctx, x), out, cufft.Forward))
	got := download(t, s, out)
	for b := 0; b < batch; b++ {
		row := make([]complex128, n)
		for i := range row {
			row[i] = x[i*batch+b]
		}
		near(t, dft(row, []int{n}, -1), got[10*b:10*b+n], 1e-12, "strided")
	}
	short := alloc[complex128](t, ctx, 10*batch-3)
	assert.ErrorIs(t, cufft.ExecC2C(p, upload(t, ctx, x), short, cufft.Forward), driver.ErrInvalidValue, "the output layout spans 28")
}

// A manual work area is given by the caller; without one the plan refuses.
func TestWorkArea(t *testing.T) {
	_, ctx, s := setup(t)
	p, err := cufft.PlanMany(s, cufft.Many{N: []int{1024}, Type: cufft.C2C, Batch: 4, ManualWorkArea: true})
	require.NoError(t, err)
	defer p.Close()
	x := upload(t, ctx, to64(randomComplex(4096, rand.New(rand.NewPCG(7, 8)))))
	if p.WorkSize() > 0 {
		assert.ErrorIs(t, cufft.ExecC2C(p, x, x, cufft.Forward), driver.ErrInvalidValue, "no work area")
		small := alloc[byte](t, ctx, p.WorkSize()-1)
		assert.ErrorIs(t, p.SetWorkArea(small), driver.ErrInvalidValue)
	}
	work := alloc[byte](t, ctx, max(p.WorkSize(), 1))
	require.NoError(t, p.SetWorkArea(work))
	require.NoError(t, cufft.ExecC2C(p, x, x, cufft.Forward))
	require.NoError(t, s.Synchronize())
}

func TestChecks(t *testing.T) {
	_, ctx, s := setup(t)
	for _, m := range []cufft.Many{
		{N: []int{0}, Type: cufft.C2C, Batch: 1},
		{N: []int{8}, Type: cufft.C2C, Batch: 0},
		{N: []int{2, 2, 2, 2}, Type: cufft.C2C, Batch: 1},
		{N: nil, Type: cufft.C2C, Batch: 1},
		{N: []int{8}, Type: cufft.Type(7), Batch: 1},
		{N: []int{8}, Type: cufft.C2C, Batch: 1, In: &cufft.Layout{Embed: []int{8}, Stride: 1, Dist: 8}},
		{N: []int{1 << 31, 1 << 31}, Type: cufft.C2C, Batch: 1 << 20},
		// Layouts whose span wraps an int64: they used to pass the
		// buffers' length check and run on 4-element buffers.
		{N: []int{4}, Type: cufft.C2C, Batch: 1, In: &cufft.Layout{Embed: []int{4}, Stride: 1 << 62, Dist: 4}, Out: &cufft.Layout{Embed: []int{4}, Stride: 1, Dist: 4}},
		{N: []int{4}, Type: cufft.C2C, Batch: 2, In: &cufft.Layout{Embed: []int{4}, Stride: 1, Dist: 4}, Out: &cufft.Layout{Embed: []int{4}, Stride: 1, Dist: 1<<62 + 1<<61}},
		{N: []int{2, 2}, Type: cufft.C2C, Batch: 1, In: &cufft.Layout{Embed: []int{2, 1 << 62}, Stride: 4, Dist: 4}, Out: &cufft.Layout{Embed: []int{2, 2}, Stride: 1, Dist: 4}},
	} {
		_, err := cufft.PlanMany(s, m)
		assert.ErrorIs(t, err, driver.ErrInvalidValue, "%+v", m)
	}
	_, err := cufft.Plan1D(nil, 8, cufft.C2C, 1)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)

	p, err := cufft.Plan1D(s, 8, cufft.C2C, 2)
	require.NoError(t, err)
	short := alloc[complex64](t, ctx, 15)
	ok := alloc[complex64](t, ctx, 16)
	assert.ErrorIs(t, cufft.ExecC2C(p, short, ok, cufft.Forward), driver.ErrInvalidValue)
	assert.ErrorIs(t, cufft.ExecC2C(p, ok, ok, cufft.Direction(0)), driver.ErrInvalidValue)
	assert.ErrorIs(t, cufft.ExecC2C(p, alloc[complex128](t, ctx, 16), alloc[complex128](t, ctx, 16), cufft.Forward), driver.ErrInvalidValue, "a C2C plan, Z2Z buffers")
	assert.ErrorIs(t, cufft.ExecR2C(p, alloc[float32](t, ctx, 16), ok), driver.ErrInvalidValue)
	assert.ErrorIs(t, cufft.ExecR2C(p, alloc[float32](t, ctx, 16), alloc[complex128](t, ctx, 16)), driver.ErrInvalidValue)
	require.NoError(t, p.Close())
	require.NoError(t, p.Close())
	assert.ErrorIs(t, cufft.ExecC2C(p, ok, ok, cufft.Forward), driver.ErrClosed)
	assert.Zero(t, p.Handle())
}

// Plan2D and Plan3D are the PlanMany of one transform.
func TestPlan2D3D(t *testing.T) {
	_, ctx, s := setup(t)
	x := randomComplex(24, rand.New(rand.NewPCG(9, 10)))
	p2, err := cufft.Plan2D(s, 4, 6, cufft.Z2Z)
	require.NoError(t, err)
	defer p2.Close()
	out := alloc[complex128](t, ctx, 24)
	require.NoError(t, cufft.ExecC2C(p2, upload(t, ctx, x), out, cufft.Forward))
	near(t, dft(x, []int{4, 6}, -1), download(t, s, out), 1e-12, "Plan2D")
	p3, err := cufft.Plan3D(s, 2, 3, 4, cufft.Z2Z)
	require.NoError(t, err)
	defer p3.Close()
	require.NoError(t, cufft.ExecC2C(p3, upload(t, ctx, x), out, cufft.Inverse))
	near(t, dft(x, []int{2, 3, 4}, 1), download(t, s, out), 1e-12, "Plan3D")
	assert.Equal(t, cufft.Z2Z, p3.Type())
}

// In place, a basic-layout R2C reads real rows padded to 2·(n/2+1).
func TestRealInPlace(t *testing.T) {
	_, ctx, s := setup(t)
	const n, batch = 8, 2
	x := make([]float32, 2*(n/2+1)*batch)
	var rows [batch][]complex128
	for b := 0; b < batch; b++ {
		rows[b] = make([]complex128, n)
		for i := 0; i < n; i++ {
			v := float32(i*(b+1)) * 0.25
			x[b*2*(n/2+1)+i] = v
			rows[b][i] = complex(float64(v), 0)
		}
	}
	in := upload(t, ctx, x)
	out, err := memory.Borrow[complex64](ctx, in.Ptr(), (n/2+1)*batch, nil)
	require.NoError(t, err)
	defer out.Close()
	p, err := cufft.Plan1D(s, n, cufft.R2C, batch)
	require.NoError(t, err)
	defer p.Close()
	require.NoError(t, cufft.ExecR2C(p, in, out))
	got := widen(download(t, s, out))
	for b := 0; b < batch; b++ {
		near(t, dft(rows[b], []int{n}, -1)[:n/2+1], got[b*(n/2+1):(b+1)*(n/2+1)], 1e-5, "in-place R2C")
	}
}
