//go:build linux && (amd64 || arm64)

package libnccl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/symtest"
)

// The generated calls allocate nothing (the dl.CallN trampolines, the
// out-parameters on the stack), over libc standing in for libnccl.
func TestCallsAllocateNothing(t *testing.T) {
	t.Setenv("NOCGO_CUDA_LIBNCCL", "libc.so.6")
	l, err := Open()
	require.NoError(t, err)
	l.syms = symtest.OverLibc(t, l.lib, int(numSyms), map[int]string{int(symGetVersion): symtest.WritesFour,
		int(symGetUniqueId): symtest.WritesFour, int(symGroupStart): symtest.NoArguments, int(symGroupEnd): symtest.NoArguments})
	symtest.AllocateNothing(t, map[string]func() error{
		"Version":     func() error { _, err := l.Version(); return err },
		"GetUniqueID": func() error { _, err := l.GetUniqueID(); return err },
		"CommCount":   func() error { _, err := l.CommCount(0); return err },
		"GroupStart":  func() error { return l.GroupStart() },
		"GroupEnd":    func() error { return l.GroupEnd() },
		"AllReduce":   func() error { return l.AllReduce(0, 1, 64, 7, 0, 2, 3) },
		"Broadcast":   func() error { return l.Broadcast(0, 1, 64, 7, 1, 2, 3) },
		"Send":        func() error { return l.Send(0, 64, 7, 1, 2, 3) },
	})
}

// A root or peer beyond a C int is refused before the call (it was cut to
// its low 32 bits before the table generated the calls).
func TestIntsBeyondCIntAreRefused(t *testing.T) {
	t.Setenv("NOCGO_CUDA_LIBNCCL", "libc.so.6")
	l, err := Open()
	require.NoError(t, err)
	l.syms = symtest.OverLibc(t, l.lib, int(numSyms), nil)
	err = l.Broadcast(0, 1, 64, 7, 1<<32, 2, 3)
	var ne *backend.NCCLError
	require.ErrorAs(t, err, &ne)
	assert.Equal(t, backend.NCCLInvalidArgument, ne.Result)
	assert.Equal(t, "ncclBroadcast", ne.Op)
	assert.ErrorAs(t, l.Recv(0, 64, 7, -1<<40, 2, 3), &ne)
	assert.False(t, l.syms.Resolved(int(symBroadcast)), "refused before the entry point is looked up")
}
