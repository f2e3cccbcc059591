package curand_test

import (
	"testing"

	"github.com/nocgo/cuda/curand"
	"github.com/nocgo/cuda/internal/zerotest"
)

// Every method of every exported type, on a nil pointer and on a zero
// value, returns an error (or a zero answer) and never panics.
func TestZeroValuesNeverPanic(t *testing.T) {
	values := []any{
		(*curand.Generator)(nil), curand.RNG(0), curand.Ordering(0),
	}
	zerotest.Covers(t, ".", values...)
	zerotest.Methods(t, zerotest.Options{}, values...)
}
