//go:build linux && (amd64 || arm64)

package libnvjitlink

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/internal/symtest"
)

// The generated call allocates nothing (the dl.CallN trampolines, the
// out-parameters on the stack), over libc standing in for libnvJitLink.
func TestCallsAllocateNothing(t *testing.T) {
	t.Setenv("NOCGO_CUDA_LIBNVJITLINK", "libc.so.6")
	jl, err := Open()
	require.NoError(t, err)
	l := jl.(*linker)
	l.syms = symtest.OverLibc(t, l.lib, int(numSyms), map[int]string{int(symVersion): symtest.WritesFour})
	symtest.AllocateNothing(t, map[string]func() error{
		"Version": func() error { _, _, err := l.Version(); return err },
	})
}
