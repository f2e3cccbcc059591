package cublas_test

import (
	"fmt"
	"log"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cublas"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// rowMajorSetup returns a handle on a fresh fake, with its stream.
func rowMajorSetup(t *testing.T) (*cublas.Handle, *stream.Stream) {
	t.Helper()
	drv := fake.New()
	dev, err := drv.Device(0)
	require.NoError(t, err)
	cc, err := dev.PrimaryContext()
	require.NoError(t, err)
	t.Cleanup(func() { cc.Close() })
	s, err := stream.New(cc, stream.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	h, err := cublas.New(s)
	require.NoError(t, err)
	t.Cleanup(func() { h.Close() })
	return h, s
}

func toDevice[T any](t *testing.T, s *stream.Stream, v []T) *memory.Buffer[T] {
	t.Helper()
	b, err := memory.FromSliceOn(s, v)
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	return b
}

// refProduct is op(A)·op(B) of row-major Go matrices.
func refProduct(a []float32, m, k int, ta bool, b []float32, n int, tb bool) []float32 {
	at := func(i, p int) float32 { // op(A)[i][p]
		if ta {
			return a[p*m+i]
		}
		return a[i*k+p]
	}
	bt := func(p, j int) float32 {
		if tb {
			return b[j*k+p]
		}
		return b[p*n+j]
	}
	c := make([]float32, m*n)
	for i := range m {
		for j := range n {
			for p := range k {
				c[i*n+j] += at(i, p) * bt(p, j)
			}
		}
	}
	return c
}

// The obvious product on row-major data, with RowMajor views, is right,
// transposes included, on Gemm, Mul, GemmEx and GemmStridedBatched.
func TestRowMajorProducts(t *testing.T) {
	h, s := rowMajorSetup(t)
	const m, k, n = 3, 4, 2
	a := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12} // 3×4
	b := []float32{1, -1, 2, 0, 0.5, 3, -2, 1}            // 4×2
	da, db := toDevice(t, s, a), toDevice(t, s, b)
	dc := toDevice(t, s, make([]float32, m*n))

	require.NoError(t, cublas.Mul(h, 1, cublas.RowMajor(da, m, k), cublas.RowMajor(db, k, n), 0, cublas.RowMajor(dc, m, n)))
	got, err := memory.ToSliceOn(s, dc)
	require.NoError(t, err)
	assert.Equal(t, refProduct(a, m, k, false, b, n, false), got)

	// Aᵀ (4×3 stored) times B: A's storage read as a 4×3 matrix, transposed.
	at := toDevice(t, s, []float32{1, 5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12}) // Aᵀ, row-major 4×3
	require.NoError(t, cublas.Gemm(h, cublas.Host[float32](2), cublas.RowMajor(at, k, m).T(), cublas.RowMajor(db, k, n), cublas.Host[float32](0), cublas.RowMajor(dc, m, n)))
	got, err = memory.ToSliceOn(s, dc)
	require.NoError(t, err)
	want := refProduct(a, m, k, false, b, n, false)
	for i := range want {
		want[i] *= 2
	}
	assert.Equal(t, want, got)

	// GemmEx with Half inputs, through the slice converters.
	ha, hb := toDevice(t, s, cublas.Halves(a)), toDevice(t, s, cublas.Halves(b))
	require.NoError(t, cublas.GemmEx(h, cublas.Host[float32](1), cublas.RowMajor(ha, m, k), cublas.RowMajor(hb, k, n), cublas.Host[float32](0), cublas.RowMajor(dc, m, n), cublas.Compute32F))
	got, err = memory.ToSliceOn(s, dc)
	require.NoError(t, err)
	assert.InDeltaSlice(t, refProduct(a, m, k, false, b, n, false), got, 1e-2)

	// Two products, strided: the second A is A+1 everywhere.
	a2 := append(append([]float32{}, a...), make([]float32, len(a))...)
	for i := range a {
		a2[len(a)+i] = a[i] + 1
	}
	dc2 := toDevice(t, s, make([]float32, 2*m*n))
	require.NoError(t, cublas.GemmStridedBatched(h, cublas.Host[float32](1), cublas.RowMajor(toDevice(t, s, a2), m, k), cublas.RowMajor(db, k, n),
		cublas.Host[float32](0), cublas.RowMajor(dc2, m, n), cublas.Strides{A: m * k, B: 0, C: m * n}, 2))
	got, err = memory.ToSliceOn(s, dc2)
	require.NoError(t, err)
	assert.Equal(t, refProduct(a, m, k, false, b, n, false), got[:m*n])
	assert.Equal(t, refProduct(a2[len(a):], m, k, false, b, n, false), got[m*n:])
}

// A row-major matrix where the routine cannot take one, or mixed with a
// column-major one in a product, is refused, saying so.
func TestRowMajorRefusedElsewhere(t *testing.T) {
	h, s := rowMajorSetup(t)
	d := toDevice(t, s, make([]float32, 16))
	err := cublas.Gemm(h, cublas.Host[float32](1), cublas.RowMajor(d, 4, 4), cublas.Mat(d, 4, 4), cublas.Host[float32](0), cublas.Mat(d, 4, 4))
	require.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.Contains(t, err.Error(), "cublas.Gemm: A is row-major (RowMajor): this routine takes column-major matrices (Mat); a product")
	err = cublas.Geam(h, cublas.Host[float32](1), cublas.RowMajor(d, 4, 4), cublas.Host[float32](0), cublas.Mat(d, 4, 4), cublas.Mat(d, 4, 4))
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.True(t, cublas.RowMajor(d, 4, 4).RowMajor())
	assert.False(t, cublas.Mat(d, 4, 4).RowMajor())
}

func TestSliceConverters(t *testing.T) {
	f := []float32{0, 1, -2.5, 65504, 1.0 / 3}
	h := cublas.Halves(f)
	require.Len(t, h, len(f))
	for i, v := range f {
		assert.Equal(t, cublas.HalfOf(v), h[i])
	}
	assert.Equal(t, []float32{0, 1, -2.5, 65504, cublas.HalfOf(1.0 / 3).Float32()}, cublas.Float32s(h))
	bf := cublas.BFloat16s(f)
	for i, v := range f {
		assert.Equal(t, cublas.BFloat16Of(v).Float32(), cublas.Float32s(bf)[i])
	}
	assert.Empty(t, cublas.Halves(nil))
	assert.Empty(t, cublas.Float32s[cublas.Half](nil))
}

// Mul on row-major Go data: C = A·B, written as the math is, with RowMajor
// views and plain scalars.
func ExampleMul() {
	drv := fake.New() // gpu.Load() on a GPU machine: the same code
	dev, _ := drv.Device(0)
	cc, err := dev.PrimaryContext()
	if err != nil {
		log.Fatal(err)
	}
	defer cc.Close()
	s, err := stream.New(cc, stream.Options{Flags: stream.NonBlocking})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	h, err := cublas.New(s)
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	const m, k, n = 2, 3, 2
	a, err := memory.FromSliceOn(s, []float32{1, 2, 3, 4, 5, 6}) // 2×3, row by row
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	b, err := memory.FromSliceOn(s, []float32{7, 8, 9, 10, 11, 12}) // 3×2
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	c, err := memory.Alloc[float32](cc, m*n)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if err := cublas.Mul(h, 1, cublas.RowMajor(a, m, k), cublas.RowMajor(b, k, n), 0, cublas.RowMajor(c, m, n)); err != nil {
		log.Fatal(err)
	}
	got, err := memory.ToSliceOn(s, c)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(got)
	// Output: [58 64 139 154]
}

// Halves and Float32s move float32 data in and out of Half buffers.
func ExampleHalves() {
	h := cublas.Halves([]float32{1, 0.5, 1.0 / 3})
	fmt.Println(cublas.Float32s(h))
	// Output: [1 0.5 0.33325195]
}
