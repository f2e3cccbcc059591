//go:build linux && (amd64 || arm64)

// Package symtest stands libc in for an NVIDIA library in the tests of its
// binding (internal/libcublas, libcufft, ...): a symtab.Table whose entry
// points are libc functions that return 0 for the arguments given, so
// that the binding's calls run through the real trampolines of
// internal/dl, and a check that they allocate nothing.
package symtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/internal/dl"
	"github.com/nocgo/cuda/internal/symtab"
	"github.com/nocgo/cuda/loader"
)

// Stand-ins for entry points: libc functions that return 0 (success) for
// the arguments the tests pass.
const (
	Labs        = "labs"                   // a 0 first argument returns 0
	WritesFour  = "pthread_mutexattr_init" // for an out-parameter first: writes 4 bytes, returns 0
	NoArguments = "sched_yield"            // for an entry point of no argument: returns 0
)

// OverLibc returns the table of n entry points of lib (libc, opened as the
// library through its NOCGO_CUDA_LIB... variable) that resolves entry i to
// impl[i], Labs where impl has none. It skips the test where the calls do
// not go through dl's trampolines.
func OverLibc(t testing.TB, lib *loader.Library, n int, impl map[int]string) *symtab.Table {
	t.Helper()
	if !dl.Trampolines {
		t.Skip("built with -tags nocgo_syscalln: out-parameters move to the heap")
	}
	return symtab.New(n, func(i int) (uintptr, error) {
		if name, ok := impl[i]; ok {
			return lib.Symbol(name)
		}
		return lib.Symbol(Labs)
	})
}

// AllocateNothing runs each call once (it must succeed) and then checks
// that it allocates nothing.
func AllocateNothing(t testing.TB, calls map[string]func() error) {
	t.Helper()
	for name, call := range calls {
		require.NoError(t, call(), name)
		assert.Zero(t, testing.AllocsPerRun(100, func() { _ = call() }), name)
	}
}
