package cufft_test

import (
	"testing"

	"github.com/nocgo/cuda/cufft"
	"github.com/nocgo/cuda/internal/zerotest"
)

// Every method of every exported type, on a nil pointer and on a zero
// value, returns an error (or a zero answer) and never panics.
func TestZeroValuesNeverPanic(t *testing.T) {
	values := []any{
		(*cufft.Plan)(nil), cufft.Type(0), cufft.Direction(0),
		(*cufft.Layout)(nil), (*cufft.Many)(nil),
	}
	zerotest.Covers(t, ".", values...)
	zerotest.Methods(t, zerotest.Options{}, values...)
}
