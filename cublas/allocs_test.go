package cublas_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cublas"
	"github.com/nocgo/cuda/memory"
)

// The routines' hot path allocates nothing: the checks format their
// messages only on the error path (a Buffer's String was formatted for
// every operand of every call before: 4 allocations each, the 8 of a
// saxpy and 12 of a gemm the H200 run counted), the context binding is a
// value, the scalars stay on the stack. The backend is quieted for the
// measure: the fake computes on the CPU through closures queued on its
// streams, which allocate by design, while internal/libcublas makes its
// calls with stack-only arguments (go build -gcflags=-m shows nothing
// escaping on its success paths). BenchmarkSgemm64 and BenchmarkSaxpy4096
// show the whole path on the GPU (-benchmem).
func TestHotPathAllocatesNothing(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage counters may allocate")
	}
	e := newEnv(t)
	dx, err := memory.AllocZeroed[float32](e.ctx, 64*64)
	require.NoError(t, err)
	defer dx.Close()
	dy, err := memory.AllocZeroed[float32](e.ctx, 64*64)
	require.NoError(t, err)
	defer dy.Close()
	one, zero := cublas.Host[float32](1), cublas.Host[float32](0)
	x, y := cublas.Vec(dx), cublas.Vec(dy)
	a, c := cublas.Mat(dx, 64, 64), cublas.Mat(dy, 64, 64)
	for name, f := range map[string]func() error{
		"Axpy":   func() error { return cublas.Axpy(e.h, one, x, y) },
		"Gemm":   func() error { return cublas.Gemm(e.h, one, a, a, zero, c) },
		"GemmEx": func() error { return cublas.GemmEx(e.h, one, a, a, zero, c, cublas.Compute32F) },
	} {
		require.NoError(t, f(), name)
		restore := cublas.QuietRoutines(e.h)
		var ferr error
		allocs := testing.AllocsPerRun(50, func() {
			if err := f(); err != nil {
				ferr = err
			}
		})
		restore()
		require.NoError(t, ferr, name)
		assert.Zero(t, allocs, "%s: allocations per call", name)
	}
	require.NoError(t, e.s.Synchronize())
}
