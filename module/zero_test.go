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
		module.ImageKind(0),
	}
	zerotest.Covers(t, ".", values...)
	zerotest.Methods(t, zerotest.Options{NilOK: []string{"CompileError.Unwrap", "LoadError.Unwrap"}}, values...)
}
