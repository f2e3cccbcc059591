//go:build linux && (amd64 || arm64)

package libcublas

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/symtest"
)

// The generated calls and the hand-written routines allocate nothing (the
// dl.CallN trampolines, the out-parameters and scalars on the stack), over
// libc standing in for libcublas and libcublasLt.
func TestCallsAllocateNothing(t *testing.T) {
	t.Setenv("NOCGO_CUDA_LIBCUBLAS", "libc.so.6")
	t.Setenv("NOCGO_CUDA_LIBCUBLASLT", "libc.so.6")
	l, err := Open()
	require.NoError(t, err)
	l.syms = symtest.OverLibc(t, l.lib, int(numSyms), map[int]string{int(symCreate): symtest.WritesFour})
	lt, err := OpenLt()
	require.NoError(t, err)
	lt.syms = symtest.OverLibc(t, lt.lib, int(numLtSyms), map[int]string{int(ltSymCreate): symtest.WritesFour,
		int(ltSymMatmulDescCreate): symtest.WritesFour, int(ltSymMatrixLayoutCreate): symtest.WritesFour})
	one := backend.BLASScalar{Re: 1}
	symtest.AllocateNothing(t, map[string]func() error{
		"Create":             func() error { _, err := l.Create(); return err },
		"Version":            func() error { _, err := l.Version(0); return err },
		"SetStream":          func() error { return l.SetStream(0, 5) },
		"SetMathMode":        func() error { return l.SetMathMode(0, 1) },
		"Axpy":               func() error { return l.Axpy(0, backend.BLASComplex128, 64, one, 1, 1, 2, 1) },
		"Gemm":               func() error { return l.Gemm(0, backend.BLASFloat32, 0, 0, 8, 8, 8, one, 1, 8, 2, 8, one, 3, 8) },
		"Lt.Create":          func() error { _, err := lt.Create(); return err },
		"Lt.MatmulDesc":      func() error { _, err := lt.MatmulDescCreate(68, 0); return err },
		"Lt.MatrixLayout":    func() error { _, err := lt.MatrixLayoutCreate(0, 8, 8, 8); return err },
		"Lt.PreferenceDestr": func() error { return lt.PreferenceDestroy(0) },
	})
}
