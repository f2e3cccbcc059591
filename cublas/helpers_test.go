package cublas_test

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cublas"
	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// env is one test's GPU (the real one where the driver loads, the fake
// elsewhere; NOCGO_CUDA_REQUIRE_GPU=1 demands the real one), its primary
// context, a non-blocking stream and a handle on it.
type env struct {
	drv *driver.Driver
	ctx *driver.Context
	s   *stream.Stream
	h   *cublas.Handle
}

func newEnv(t testing.TB) *env {
	t.Helper()
	drv := cudatest.Driver(t)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, ctx.Close()) })
	s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	h, err := cublas.New(s)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, h.Close()) })
	return &env{drv: drv, ctx: ctx, s: s, h: h}
}

// upload copies v to a new device buffer, closed at the test's end.
func upload[T any](t testing.TB, e *env, v []T) *memory.Buffer[T] {
	t.Helper()
	b, err := memory.FromSlice(e.ctx, v)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	return b
}

// download waits for the stream and copies b back.
func download[T any](t testing.TB, e *env, b *memory.Buffer[T]) []T {
	t.Helper()
	require.NoError(t, e.s.Synchronize())
	v, err := memory.ToSlice(b)
	require.NoError(t, err)
	return v
}

// random returns n values of T in [-1, 1) (both parts for complex T).
func random[T cublas.Elem](r *rand.Rand, n int) []T {
	out := make([]T, n)
	for i := range out {
		re, im := 2*r.Float64()-1, 2*r.Float64()-1
		switch p := any(&out[i]).(type) {
		case *float32:
			*p = float32(re)
		case *float64:
			*p = re
		case *complex64:
			*p = complex(float32(re), float32(im))
		case *complex128:
			*p = complex(re, im)
		}
	}
	return out
}

func c128[T cublas.Elem](v T) complex128 {
	switch x := any(v).(type) {
	case float32:
		return complex(float64(x), 0)
	case float64:
		return complex(x, 0)
	case complex64:
		return complex128(x)
	}
	return any(v).(complex128)
}

// eps is T's precision: the tolerance per accumulated term.
func eps[T cublas.Elem]() float64 {
	switch any(*new(T)).(type) {
	case float32, complex64:
		return 0x1p-23
	}
	return 0x1p-52
}

// near checks got against want element by element, within tol relative
// to the largest |want| (the scale of the rounding errors).
func near[T cublas.Elem](t testing.TB, want []complex128, got []T, tol float64, what string) {
	t.Helper()
	require.Len(t, got, len(want), what)
	scale := 1.0
	for _, w := range want {
		scale = math.Max(scale, cmplx.Abs(w))
	}
	for i := range want {
		if d := cmplx.Abs(c128(got[i]) - want[i]); d > tol*scale {
			t.Fatalf("%s: element %d = %v, want %v (off by %g > %g)", what, i, got[i], want[i], d, tol*scale)
		}
	}
}

// refGemm is the column-major C = alpha op(A) op(B) + beta C in complex128.
func refGemm[T cublas.Elem](ta, tb cublas.Op, m, n, k int, alpha complex128, a []T, lda int, b []T, ldb int, beta complex128, c []T, ldc int) []complex128 {
	at := func(op cublas.Op, x []T, ld, i, j int) complex128 {
		switch op {
		case cublas.Trans:
			return c128(x[j+i*ld])
		case cublas.ConjTrans:
			return cmplx.Conj(c128(x[j+i*ld]))
		}
		return c128(x[i+j*ld])
	}
	out := make([]complex128, len(c))
	for i := range c {
		out[i] = c128(c[i])
	}
	for j := range n {
		for i := range m {
			var s complex128
			for p := range k {
				s += at(ta, a, lda, i, p) * at(tb, b, ldb, p, j)
			}
			v := alpha * s
			if beta != 0 {
				v += beta * c128(c[i+j*ldc])
			}
			out[i+j*ldc] = v
		}
	}
	return out
}
