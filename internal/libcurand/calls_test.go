//go:build linux && (amd64 || arm64)

package libcurand

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/internal/symtest"
)

// The generated calls allocate nothing (the dl.CallN and dl.CallFP4
// trampolines, the out-parameters on the stack), over libc standing in for
// libcurand.
func TestCallsAllocateNothing(t *testing.T) {
	t.Setenv("NOCGO_CUDA_LIBCURAND", "libc.so.6")
	l, err := Open()
	require.NoError(t, err)
	l.syms = symtest.OverLibc(t, l.lib, int(numSyms), map[int]string{int(symGetVersion): symtest.WritesFour, int(symCreateGenerator): symtest.WritesFour})
	symtest.AllocateNothing(t, map[string]func() error{
		"Version":                 func() error { _, err := l.Version(); return err },
		"CreateGenerator":         func() error { _, err := l.CreateGenerator(100); return err },
		"SetSeed":                 func() error { return l.SetSeed(0, 42) },
		"Generate":                func() error { return l.Generate(0, 1, 64) },
		"GenerateNormal":          func() error { return l.GenerateNormal(0, 1, 64, 0.5, 2) },
		"GenerateLogNormalDouble": func() error { return l.GenerateLogNormalDouble(0, 1, 64, 0.5, 2) },
		"GeneratePoisson":         func() error { return l.GeneratePoisson(0, 1, 64, 3) },
	})
}
