//go:build linux && (amd64 || arm64)

package libcufft

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/internal/symtest"
)

// The generated calls allocate nothing (the dl.CallN trampolines, the
// out-parameters on the stack), over libc standing in for libcufft.
func TestCallsAllocateNothing(t *testing.T) {
	t.Setenv("NOCGO_CUDA_LIBCUFFT", "libc.so.6")
	l, err := Open()
	require.NoError(t, err)
	l.syms = symtest.OverLibc(t, l.lib, int(numSyms), map[int]string{int(symGetVersion): symtest.WritesFour, int(symCreate): symtest.WritesFour})
	symtest.AllocateNothing(t, map[string]func() error{
		"Version":           func() error { _, err := l.Version(); return err },
		"Create":            func() error { _, err := l.Create(); return err },
		"Destroy":           func() error { return l.Destroy(0) },
		"SetAutoAllocation": func() error { return l.SetAutoAllocation(0, true) },
		"GetSize":           func() error { _, err := l.GetSize(0); return err },
		"ExecC2C":           func() error { return l.ExecC2C(0, 1, 2, -1) },
		"ExecR2C":           func() error { return l.ExecR2C(0, 1, 2) },
	})
}
