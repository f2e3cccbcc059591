package cublas_test

import (
	"testing"

	"github.com/nocgo/cuda/cublas"
	"github.com/nocgo/cuda/internal/zerotest"
)

// Every method of every exported type, on a nil pointer and on a zero
// value, returns an error (or a zero answer) and never panics.
func TestZeroValuesNeverPanic(t *testing.T) {
	values := []any{
		(*cublas.Handle)(nil), cublas.Compute(0), cublas.Half(0), cublas.BFloat16(0),
		cublas.PointerMode(0), cublas.MathMode(0), (*cublas.Strides)(nil), cublas.Op(0),
		(*cublas.Matrix[float32])(nil), (*cublas.Matrix[cublas.Half])(nil),
		(*cublas.Vector[float64])(nil), (*cublas.Scalar[complex64])(nil),
		(*cublas.Lt)(nil), cublas.Epilogue(0), (*cublas.Bias)(nil), (*cublas.MatmulConfig)(nil),
	}
	zerotest.Covers(t, ".", values...)
	zerotest.Methods(t, zerotest.Options{}, values...)
}
