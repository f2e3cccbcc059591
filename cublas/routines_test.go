package cublas_test

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cublas"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
)

func TestLevel1(t *testing.T) {
	e := newEnv(t)
	t.Run("float32", func(t *testing.T) { testLevel1[float32](t, e) })
	t.Run("float64", func(t *testing.T) { testLevel1[float64](t, e) })
	t.Run("complex64", func(t *testing.T) { testLevel1[complex64](t, e) })
	t.Run("complex128", func(t *testing.T) { testLevel1[complex128](t, e) })
}

func testLevel1[T cublas.Elem](t *testing.T, e *env) {
	r := rand.New(rand.NewPCG(3, 4))
	const n = 37
	xs, ys := random[T](r, 2*n), random[T](r, 3*n)
	x := cublas.Vector[T]{Buf: upload(t, e, xs), N: n, Inc: 2}
	y := cublas.Vector[T]{Buf: upload(t, e, ys), N: n, Inc: 3}
	tol := 4 * n * eps[T]()
	alpha := fromF[T](-0.75)

	require.NoError(t, cublas.Axpy(e.h, cublas.Host(alpha), x, y))
	want := make([]complex128, len(ys))
	for i := range ys {
		want[i] = c128(ys[i])
	}
	for i := range n {
		want[3*i] += c128(alpha) * c128(xs[2*i])
	}
	near(t, want, download(t, e, y.Buf), tol, "Axpy")
	ys = download(t, e, y.Buf)

	var dot, dotc complex128
	var nrm, asum float64
	best, besti := -1.0, -1
	for i := range n {
		xi, yi := c128(xs[2*i]), c128(ys[3*i])
		dot += xi * yi
		dotc += cmplx.Conj(xi) * yi
		nrm += real(xi)*real(xi) + imag(xi)*imag(xi)
		a := math.Abs(real(xi)) + math.Abs(imag(xi))
		asum += a
		if a > best {
			best, besti = a, i
		}
	}
	got, err := cublas.Dot(e.h, x, y)
	require.NoError(t, err)
	near(t, []complex128{dot}, []T{got}, tol, "Dot")
	got, err = cublas.Dotc(e.h, x, y)
	require.NoError(t, err)
	if _, ok := any(got).(complex64); ok || isComplex128(got) {
		near(t, []complex128{dotc}, []T{got}, tol, "Dotc")
	}
	g, err := cublas.Nrm2(e.h, x)
	require.NoError(t, err)
	assert.InDelta(t, math.Sqrt(nrm), g, tol*math.Sqrt(nrm), "Nrm2")
	g, err = cublas.Asum(e.h, x)
	require.NoError(t, err)
	assert.InDelta(t, asum, g, tol*asum, "Asum")
	i, err := cublas.Iamax(e.h, x)
	require.NoError(t, err)
	assert.Equal(t, besti, i, "Iamax")

	require.NoError(t, cublas.Scal(e.h, cublas.Host(alpha), x))
	sx := download(t, e, x.Buf)
	for i := range n {
		assert.InDelta(t, 0, cmplx.Abs(c128(sx[2*i])-c128(alpha)*c128(xs[2*i])), tol, "Scal %d", i)
		assert.Equal(t, xs[2*i+1], sx[2*i+1], "Scal leaves the gaps")
	}
	require.NoError(t, cublas.Swap(e.h, x, y))
	sy := download(t, e, y.Buf)
	for i := range n {
		assert.Equal(t, sx[2*i], sy[3*i], "Swap")
	}
	require.NoError(t, cublas.Copy(e.h, y, x))
	assert.Equal(t, sx, download(t, e, x.Buf), "Copy back")

	// Device pointer mode: scalars and results on the device.
	require.NoError(t, e.h.SetPointerMode(cublas.DevicePointers))
	defer func() { require.NoError(t, e.h.SetPointerMode(cublas.HostPointers)) }()
	res := upload(t, e, make([]T, 1))
	require.NoError(t, cublas.DotTo(e.h, x, x, res))
	var xx complex128
	for i := range n {
		xx += c128(sx[2*i]) * c128(sx[2*i])
	}
	near(t, []complex128{xx}, download(t, e, res), tol, "DotTo")
	idx := upload(t, e, []int32{-7})
	require.NoError(t, cublas.IamaxTo(e.h, x, idx))
	assert.Equal(t, int32(besti+1), download(t, e, idx)[0], "IamaxTo counts from 1")
	two := upload(t, e, []T{fromF[T](2)})
	require.NoError(t, cublas.Scal(e.h, cublas.OnDevice(two), x))
	_, err = cublas.Dot(e.h, x, x)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "a host result in device mode")
	assert.ErrorIs(t, cublas.Scal(e.h, cublas.Host(alpha), x), driver.ErrInvalidValue, "a host scalar in device mode")
}

func isComplex128(v any) bool { _, ok := v.(complex128); return ok }

// Gemv for every operation, against the reference product.
func TestGemv(t *testing.T) {
	e := newEnv(t)
	r := rand.New(rand.NewPCG(5, 6))
	const m, n, lda = 6, 4, 8
	a := random[complex64](r, lda*n)
	da := upload(t, e, a)
	for _, op := range []cublas.Op{cublas.NoTrans, cublas.Trans, cublas.ConjTrans} {
		A := cublas.Matrix[complex64]{Buf: da, Rows: m, Cols: n, LD: lda, Op: op}
		xn, yn := n, m
		if op != cublas.NoTrans {
			xn, yn = m, n
		}
		xs, ys := random[complex64](r, xn), random[complex64](r, yn)
		dx, dy := upload(t, e, xs), upload(t, e, ys)
		require.NoError(t, cublas.Gemv(e.h, cublas.Host[complex64](2), A, cublas.Vec(dx), cublas.Host[complex64](1i), cublas.Vec(dy)))
		want := refGemm(op, cublas.NoTrans, yn, 1, xn, 2, a, lda, xs, xn, 1i, ys, yn)
		near(t, want, download(t, e, dy), 16*eps[complex64](), "Gemv "+op.String())
	}
}

// Geam: a transpose out of place, and a scaled sum in place.
func TestGeam(t *testing.T) {
	e := newEnv(t)
	r := rand.New(rand.NewPCG(7, 8))
	const m, n = 5, 3
	a := random[float64](r, m*n)
	da := upload(t, e, a)
	dt := upload(t, e, make([]float64, n*m))
	A := cublas.Mat(da, m, n)
	require.NoError(t, cublas.Geam(e.h, cublas.Host(1.0), A.T(), cublas.Host(0.0), A.T(), cublas.Mat(dt, n, m)))
	got := download(t, e, dt)
	for i := range m {
		for j := range n {
			assert.Equal(t, a[i+j*m], got[j+i*n])
		}
	}
	b := random[float64](r, m*n)
	db := upload(t, e, b)
	require.NoError(t, cublas.Geam(e.h, cublas.Host(2.0), A, cublas.Host(-1.0), cublas.Mat(db, m, n), A))
	got = download(t, e, da)
	for i := range a {
		assert.InDelta(t, 2*a[i]-b[i], got[i], 1e-15)
	}
	assert.ErrorIs(t, cublas.Geam(e.h, cublas.Host(1.0), A.T(), cublas.Host(0.0), A, A), driver.ErrInvalidValue, "C = A transposed in place")
}

// Strided-batched and pointer-array batched products.
func TestGemmBatched(t *testing.T) {
	e := newEnv(t)
	r := rand.New(rand.NewPCG(9, 10))
	const m, n, k, count = 4, 3, 5, 3
	a, b := random[float32](r, m*k*count), random[float32](r, k*n*count)
	c := make([]float32, m*n*count)
	da, db, dc := upload(t, e, a), upload(t, e, b), upload(t, e, c)
	st := cublas.Strides{A: m * k, B: k * n, C: m * n}
	require.NoError(t, cublas.GemmStridedBatched(e.h, cublas.Host[float32](1), cublas.Mat(da, m, k), cublas.Mat(db, k, n),
		cublas.Host[float32](0), cublas.Mat(dc, m, n), st, count))
	got := download(t, e, dc)
	for i := range count {
		want := refGemm(cublas.NoTrans, cublas.NoTrans, m, n, k, 1, a[i*m*k:], m, b[i*k*n:], k, 0, c[i*m*n:(i+1)*m*n], m)
		near(t, want, got[i*m*n:(i+1)*m*n], 8*k*eps[float32](), "strided")
	}
	views := func(buf *memory.Buffer[float32], rows, cols int) []cublas.Matrix[float32] {
		var out []cublas.Matrix[float32]
		for i := range count {
			v, err := buf.Slice(i*rows*cols, (i+1)*rows*cols)
			require.NoError(t, err)
			out = append(out, cublas.Mat(v, rows, cols))
		}
		return out
	}
	dc2 := upload(t, e, make([]float32, m*n*count))
	ptrs := upload(t, e, make([]uint64, 3*count))
	require.NoError(t, cublas.GemmBatched(e.h, cublas.Host[float32](1), views(da, m, k), views(db, k, n),
		cublas.Host[float32](0), views(dc2, m, n), ptrs))
	assert.Equal(t, got, download(t, e, dc2), "the pointer-array form computes what the strided one does")
	assert.ErrorIs(t, cublas.GemmStridedBatched(e.h, cublas.Host[float32](1), cublas.Mat(da, m, k), cublas.Mat(db, k, n),
		cublas.Host[float32](0), cublas.Mat(dc, m, n), st, count+1), driver.ErrInvalidValue, "one product too many for the buffers")
}

// GemmEx with Half and BFloat16 inputs (exact in float32) and TF32.
func TestGemmEx(t *testing.T) {
	e := newEnv(t)
	r := rand.New(rand.NewPCG(11, 12))
	const m, n, k = 16, 8, 32
	af, bf := random[float32](r, m*k), random[float32](r, k*n)
	// Inputs that Half and BFloat16 hold exactly, so that the reference is exact.
	ah, bh := make([]cublas.Half, len(af)), make([]cublas.Half, len(bf))
	ab, bb := make([]cublas.BFloat16, len(af)), make([]cublas.BFloat16, len(bf))
	for i, v := range af {
		ab[i] = cublas.BFloat16Of(v)
		af[i] = ab[i].Float32()
		ah[i] = cublas.HalfOf(af[i])
	}
	for i, v := range bf {
		bb[i] = cublas.BFloat16Of(v)
		bf[i] = bb[i].Float32()
		bh[i] = cublas.HalfOf(bf[i])
	}
	want := refGemm(cublas.NoTrans, cublas.NoTrans, m, n, k, 1, af, m, bf, k, 0, make([]float32, m*n), m)
	one, zero := cublas.Host[float32](1), cublas.Host[float32](0)

	out := upload(t, e, make([]float32, m*n))
	require.NoError(t, cublas.GemmEx(e.h, one, cublas.Mat(upload(t, e, ah), m, k), cublas.Mat(upload(t, e, bh), k, n), zero, cublas.Mat(out, m, n), cublas.Compute32F))
	near(t, want, download(t, e, out), 4*k*0x1p-23, "Half in, float32 out")

	ob := upload(t, e, make([]cublas.BFloat16, m*n))
	require.NoError(t, cublas.GemmEx(e.h, one, cublas.Mat(upload(t, e, ab), m, k), cublas.Mat(upload(t, e, bb), k, n), zero, cublas.Mat(ob, m, n), cublas.Compute32F))
	gb := download(t, e, ob)
	gf := make([]float32, len(gb))
	for i, v := range gb {
		gf[i] = v.Float32()
	}
	near(t, want, gf, 0x1p-8, "BFloat16 in and out: the output's rounding")

	require.NoError(t, cublas.GemmEx(e.h, one, cublas.Mat(upload(t, e, af), m, k), cublas.Mat(upload(t, e, bf), k, n), zero, cublas.Mat(out, m, n), cublas.Compute32FFastTF32))
	near(t, want, download(t, e, out), 4*k*0x1p-23, "TF32: bfloat16 inputs are exact in TF32")

	err := cublas.GemmEx(e.h, one, cublas.Mat(upload(t, e, af), m, k), cublas.Mat(upload(t, e, bf), k, n), zero, cublas.Mat(ob, m, n), cublas.Compute32F)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "float32 in, BFloat16 out: not in cuBLAS's table")
}

// Refused calls: closed handles, closed buffers, shapes.
func TestChecks(t *testing.T) {
	e := newEnv(t)
	buf := upload(t, e, make([]float32, 16))
	A := cublas.Mat(buf, 4, 4)
	one := cublas.Host[float32](1)
	assert.ErrorIs(t, cublas.Gemm(e.h, one, A, cublas.Mat(buf, 3, 4), one, A), driver.ErrInvalidValue, "k mismatch")
	assert.ErrorIs(t, cublas.Gemm(e.h, one, A, A, one, A.T()), driver.ErrInvalidValue, "C transposed")
	assert.ErrorIs(t, cublas.Axpy(e.h, one, cublas.Vector[float32]{Buf: buf, N: 9, Inc: 2}, cublas.Vec(buf)), driver.ErrInvalidValue, "x past its buffer")
	assert.ErrorIs(t, cublas.Axpy(e.h, one, cublas.Vector[float32]{Buf: buf, N: 4, Inc: 0}, cublas.Vector[float32]{Buf: buf, N: 4, Inc: 1}), driver.ErrInvalidValue, "Inc 0")
	assert.ErrorIs(t, cublas.Gemm(e.h, one, cublas.Matrix[float32]{Buf: buf, Rows: 4, Cols: 4, LD: 3}, A, one, A), driver.ErrInvalidValue, "LD < Rows")
	assert.ErrorIs(t, cublas.Gemm[float32](e.h, one, cublas.Matrix[float32]{}, A, one, A), driver.ErrInvalidValue, "nil buffer")

	h, err := cublas.New(e.s)
	require.NoError(t, err)
	v, err := h.Version()
	require.NoError(t, err)
	assert.Greater(t, v, 110000)
	require.NoError(t, h.Close())
	require.NoError(t, h.Close(), "a second Close")
	assert.ErrorIs(t, cublas.Gemm(h, one, A, A, one, A), driver.ErrClosed)
	assert.ErrorIs(t, h.SetMathMode(cublas.TF32Math), driver.ErrClosed)
	_, err = cublas.New(nil)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)

	closed, err := memory.Alloc[float32](e.ctx, 16)
	require.NoError(t, err)
	require.NoError(t, closed.Close())
	assert.ErrorIs(t, cublas.Gemm(e.h, one, cublas.Mat(closed, 4, 4), A, one, A), driver.ErrClosed)
}
