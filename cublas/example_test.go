package cublas_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nocgo/cuda/driver"

	"github.com/nocgo/cuda/cublas"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// Row-major Go data, multiplied right: C = A·B for A 2×3 and B 3×2, both
// written row by row. cuBLAS reads a row-major r×c matrix as its c×r
// transpose, so it computes Cᵀ = Bᵀ·Aᵀ with B passed first, and C comes
// back row-major, with no copy and no transpose.
func ExampleGemm_rowMajor() {
	drv := fake.New() // gpu.Load() on a GPU machine: the same code
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	s, _ := stream.New(cc, stream.Options{})
	defer s.Close()
	h, err := cublas.New(s)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close()

	const m, k, n = 2, 3, 2
	a := []float32{ // m×k, row-major
		1, 2, 3,
		4, 5, 6,
	}
	b := []float32{ // k×n, row-major
		7, 8,
		9, 10,
		11, 12,
	}
	da, _ := memory.FromSlice(cc, a)
	defer da.Close()
	db, _ := memory.FromSlice(cc, b)
	defer db.Close()
	dc, _ := memory.Alloc[float32](cc, m*n)
	defer dc.Close()

	err = cublas.Gemm(h, cublas.Host[float32](1),
		cublas.Mat(db, n, k), // Bᵀ, n×k column-major: b as it is
		cublas.Mat(da, k, m), // Aᵀ, k×m column-major: a as it is
		cublas.Host[float32](0),
		cublas.Mat(dc, n, m)) // Cᵀ, n×m column-major: C row-major
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = s.Synchronize()
	c, _ := memory.ToSlice(dc)
	fmt.Println(c[0:2])
	fmt.Println(c[2:4])
	// Output:
	// [58 64]
	// [139 154]
}

// A leading dimension that does not fit the buffer is refused before
// cuBLAS sees it, and nothing is queued.
func ExampleGemm_checked() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	s, _ := stream.New(cc, stream.Options{})
	defer s.Close()
	h, _ := cublas.New(s)
	defer h.Close()
	buf, _ := memory.Alloc[float64](cc, 16)
	defer buf.Close()

	a := cublas.Matrix[float64]{Buf: buf, Rows: 4, Cols: 4, LD: 5} // 4 columns 5 apart: 19 elements
	err := cublas.Gemm(h, cublas.Host(1.0), a, a, cublas.Host(0.0), cublas.Mat(buf, 4, 4))
	fmt.Println(errors.Is(err, driver.ErrInvalidValue))
	fmt.Println(strings.Contains(err.Error(), "A: 4×4 with LD 5 spans 19 elements"))
	// Output:
	// true
	// true
}

// Level-1 routines on strided vectors: the dot product of every other
// element, and the norm.
func ExampleDot() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	s, _ := stream.New(cc, stream.Options{})
	defer s.Close()
	h, _ := cublas.New(s)
	defer h.Close()
	x, _ := memory.FromSlice(cc, []float64{1, -1, 2, -1, 3})
	defer x.Close()

	every2 := cublas.Vector[float64]{Buf: x, N: 3, Inc: 2} // 1, 2, 3
	d, _ := cublas.Dot(h, every2, every2)
	nrm, _ := cublas.Nrm2(h, cublas.Vec(x))
	i, _ := cublas.Iamax(h, cublas.Vec(x))
	fmt.Println(d, nrm*nrm, i)
	// Output:
	// 14 16 4
}

// A dense layer as a transformer runs it, fused in one cuBLASLt product:
// Y = ReLU(X·W + b) for a batch X of 2 rows of 3 features, weights W
// (3 inputs × 2 outputs) and a bias b per output, all row-major Go data.
// As for Gemm, row-major Y is column-major Yᵀ = Wᵀ·Xᵀ, and the bias,
// which cuBLASLt adds per row of D, is then per output feature.
func ExampleMatmul_denseLayer() {
	drv := fake.New() // gpu.Load() on a GPU machine: the same code
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	s, _ := stream.New(cc, stream.Options{})
	defer s.Close()
	lt, err := cublas.NewLt(cc)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer lt.Close()

	const batch, in, out = 2, 3, 2
	x := []float32{ // batch×in
		1, 2, 3,
		-1, -2, -3,
	}
	w := []float32{ // in×out
		1, 0.5,
		1, 0.5,
		1, 0.5,
	}
	b := []float32{-1, 1} // per output
	dx, _ := memory.FromSlice(cc, x)
	defer dx.Close()
	dw, _ := memory.FromSlice(cc, w)
	defer dw.Close()
	db, _ := memory.FromSlice(cc, b)
	defer db.Close()
	dy, _ := memory.Alloc[float32](cc, batch*out)
	defer dy.Close()

	y := cublas.Mat(dy, out, batch) // Yᵀ, out×batch column-major
	err = cublas.Matmul(lt, s, 1,
		cublas.Mat(dw, out, in),   // Wᵀ: w as it is
		cublas.Mat(dx, in, batch), // Xᵀ: x as it is
		0, y, y, cublas.MatmulConfig{Epilogue: cublas.ReLUBias, Bias: cublas.BiasOf(db)})
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = s.Synchronize()
	got, _ := memory.ToSlice(dy)
	fmt.Println(got[0:2])
	fmt.Println(got[2:4])
	// Output:
	// [5 4]
	// [0 0]
}
