package cublas_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cublas"
)

// Gemm in every precision and every pair of operations, with padded
// leading dimensions and both beta = 0 and beta != 0, against a complex128
// reference.
func TestGemm(t *testing.T) {
	e := newEnv(t)
	t.Run("float32", func(t *testing.T) { testGemm[float32](t, e) })
	t.Run("float64", func(t *testing.T) { testGemm[float64](t, e) })
	t.Run("complex64", func(t *testing.T) { testGemm[complex64](t, e) })
	t.Run("complex128", func(t *testing.T) { testGemm[complex128](t, e) })
}

func testGemm[T cublas.Elem](t *testing.T, e *env) {
	r := rand.New(rand.NewPCG(1, 2))
	const m, n, k = 7, 5, 9
	ops := []cublas.Op{cublas.NoTrans, cublas.Trans, cublas.ConjTrans}
	for _, ta := range ops {
		for _, tb := range ops {
			for _, beta := range []float64{0, 0.5} {
				t.Run(fmt.Sprintf("%v%v/beta=%v", ta, tb, beta), func(t *testing.T) {
					ar, ac := m, k
					if ta != cublas.NoTrans {
						ar, ac = k, m
					}
					br, bc := k, n
					if tb != cublas.NoTrans {
						br, bc = n, k
					}
					lda, ldb, ldc := ar+2, br+1, m+3
					a := random[T](r, lda*ac)
					b := random[T](r, ldb*bc)
					c := random[T](r, ldc*n)
					da, db, dc := upload(t, e, a), upload(t, e, b), upload(t, e, c)
					A := cublas.Matrix[T]{Buf: da, Rows: ar, Cols: ac, LD: lda, Op: ta}
					B := cublas.Matrix[T]{Buf: db, Rows: br, Cols: bc, LD: ldb, Op: tb}
					C := cublas.Matrix[T]{Buf: dc, Rows: m, Cols: n, LD: ldc}
					alpha := fromF[T](1.5)
					require.NoError(t, cublas.Gemm(e.h, cublas.Host(alpha), A, B, cublas.Host(fromF[T](beta)), C))
					want := refGemm(ta, tb, m, n, k, 1.5, a, lda, b, ldb, complex(beta, 0), c, ldc)
					near(t, want, download(t, e, dc), 8*k*eps[T](), "C")
				})
			}
		}
	}
}

func fromF[T cublas.Elem](v float64) T {
	var out T
	switch p := any(&out).(type) {
	case *float32:
		*p = float32(v)
	case *float64:
		*p = v
	case *complex64:
		*p = complex(float32(v), 0)
	case *complex128:
		*p = complex(v, 0)
	}
	return out
}
