package nccl_test

import (
	"testing"

	"github.com/nocgo/cuda/internal/zerotest"
	"github.com/nocgo/cuda/nccl"
)

// Every method of every exported type, on a nil pointer and on a zero
// value, returns an error (or a zero answer) and never panics.
func TestZeroValuesNeverPanic(t *testing.T) {
	values := []any{
		(*nccl.Comm)(nil), (*nccl.Config)(nil), (*nccl.UniqueID)(nil),
		nccl.Float16(0), nccl.BFloat16(0), nccl.Op(0),
	}
	zerotest.Covers(t, ".", values...)
	zerotest.Methods(t, zerotest.Options{NilOK: []string{"UniqueID.MarshalText"}}, values...)
}
