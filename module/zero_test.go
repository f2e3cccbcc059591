package module_test

import (
	"testing"

	"github.com/nocgo/cuda/internal/zerotest"
	"github.com/nocgo/cuda/module"
)

// Every method of every exported type, on a nil pointer and on a zero
// value, returns an error (or a zero answer) and never panics.
func TestZeroValuesNeverPanic(t *testing.T) {
	values := []any{
		(*module.Module)(nil), (*module.Function)(nil), (*module.Args)(nil),
		(*module.CompileError)(nil), (*module.LoadError)(nil),
		(*module.Dim3)(nil), (*module.Config)(nil), (*module.Param)(nil),
		(*module.Attributes)(nil), (*module.LinkInput)(nil), (*module.Options)(nil),
		module.ImageKind(0), (*module.Library)(nil), (*module.LibraryKernel)(nil),
		(*module.Kernel1[float32])(nil), (*module.Kernel2[float32, int32])(nil), (*module.Kernel3[float32, int32, uint64])(nil),
		(*module.Kernel4[float32, int32, uint64, float64])(nil), (*module.Kernel5[float32, int32, uint64, float64, int64])(nil),
		(*module.Kernel6[float32, int32, uint64, float64, int64, uint32])(nil),
	}
	zerotest.Covers(t, ".", values...)
	zerotest.Methods(t, zerotest.Options{NilOK: []string{"CompileError.Unwrap", "LoadError.Unwrap"}}, values...)
}
