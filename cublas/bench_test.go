package cublas_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cublas"
	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// The benchmarks measure what /work/shared/bench/cublas_baseline.c
// measures in C, on the same data (zero-filled inputs), so that the two
// run side by side on the H200:
//
//   - BenchmarkGemm8192: 8192³ products through GemmEx as the C baseline
//     calls cublasGemmEx (SGEMM: float32 in and out, Compute32F, default
//     math; TF32: the same with TF32Math and Compute32FFastTF32; BF16 and
//     FP16: BFloat16 or Half in and out, Compute32F), reported as TFLOP/s,
//     the best of 10 products after 3 warm-ups, each timed with events
//     (TFLOP/s: of the last b.Loop round, after the GPU ran the products
//     for about a second; TFLOP/s-first: of the first round, the 13
//     products the C program times from a cold start, its exact
//     protocol). The _ws32MiB forms give the handle a 32 MiB workspace of
//     its own (SetWorkspace, NVIDIA's recommendation for Hopper) in place
//     of cuBLAS's default, to tell a workspace effect from a clock one.
//     The lt_ forms are the same products through cuBLASLt (Matmul, with
//     a 32 MiB workspace), and one with a fused GELU+bias epilogue.
//     They skip on the fake (too slow on a CPU).
//   - BenchmarkSgemm64 and BenchmarkSaxpy4096: the per-call cost of a 64³
//     SGEMM and of a 4096-element saxpy, queued in bursts of 64 after a
//     synchronize (ns/op is the submission cost; -benchmem shows 0
//     allocations on the real driver).

func BenchmarkGemm8192(b *testing.B) {
	e := newEnv(b)
	if cudatest.IsFake(e.drv) {
		b.Skip("8192³ products are GPU work (the fake computes on the CPU)")
	}
	const n = 8192
	b.Run("sgemm_fp32", func(b *testing.B) { gemm8192[float32, float32](b, e, n, cublas.DefaultMath, cublas.Compute32F) })
	b.Run("gemm_tf32", func(b *testing.B) { gemm8192[float32, float32](b, e, n, cublas.TF32Math, cublas.Compute32FFastTF32) })
	b.Run("gemmex_bf16", func(b *testing.B) {
		gemm8192[cublas.BFloat16, cublas.BFloat16](b, e, n, cublas.DefaultMath, cublas.Compute32F)
	})
	b.Run("gemmex_fp16", func(b *testing.B) { gemm8192[cublas.Half, cublas.Half](b, e, n, cublas.DefaultMath, cublas.Compute32F) })
	b.Run("gemmex_bf16_ws32MiB", func(b *testing.B) {
		withWorkspace(b, e, func() { gemm8192[cublas.BFloat16, cublas.BFloat16](b, e, n, cublas.DefaultMath, cublas.Compute32F) })
	})
	b.Run("gemmex_fp16_ws32MiB", func(b *testing.B) {
		withWorkspace(b, e, func() { gemm8192[cublas.Half, cublas.Half](b, e, n, cublas.DefaultMath, cublas.Compute32F) })
	})
	b.Run("lt_bf16_ws32MiB", func(b *testing.B) { lt8192[cublas.BFloat16, cublas.BFloat16](b, e, n, cublas.NoEpilogue) })
	b.Run("lt_fp16_ws32MiB", func(b *testing.B) { lt8192[cublas.Half, cublas.Half](b, e, n, cublas.NoEpilogue) })
	b.Run("lt_bf16_gelubias_ws32MiB", func(b *testing.B) { lt8192[cublas.BFloat16, cublas.BFloat16](b, e, n, cublas.GELUBias) })
}

// withWorkspace runs f with a 32 MiB workspace given to e's handle, and
// returns the handle to cuBLAS's own after.
func withWorkspace(b *testing.B, e *env, f func()) {
	ws, err := memory.Alloc[byte](e.ctx, 32<<20)
	require.NoError(b, err)
	defer ws.Close()
	require.NoError(b, e.h.SetWorkspace(ws))
	defer func() {
		require.NoError(b, e.s.Synchronize())
		require.NoError(b, e.h.SetWorkspace(nil))
	}()
	f()
}

func gemm8192[A, C cublas.ExElem](b *testing.B, e *env, n int, math cublas.MathMode, compute cublas.Compute) {
	product8192[A, C](b, e, n, math, func(a, bm cublas.Matrix[A], c cublas.Matrix[C]) error {
		return cublas.GemmEx(e.h, cublas.Host[float32](1), a, bm, cublas.Host[float32](0), c, compute)
	})
}

// lt8192 times cuBLASLt's Matmul as gemm8192 times GemmEx, with a 32 MiB
// workspace and the epilogue asked for (its bias a zero vector).
func lt8192[A, C cublas.ExElem](b *testing.B, e *env, n int, epi cublas.Epilogue) {
	lt, err := cublas.NewLt(e.ctx)
	require.NoError(b, err)
	defer lt.Close()
	ws, err := memory.Alloc[byte](e.ctx, 32<<20)
	require.NoError(b, err)
	defer ws.Close()
	cfg := cublas.MatmulConfig{Epilogue: epi, Workspace: ws}
	if epi != cublas.NoEpilogue {
		bias, err := memory.AllocZeroed[C](e.ctx, n)
		require.NoError(b, err)
		defer bias.Close()
		cfg.Bias = cublas.BiasOf(bias)
	}
	product8192[A, C](b, e, n, cublas.DefaultMath, func(a, bm cublas.Matrix[A], c cublas.Matrix[C]) error {
		return cublas.Matmul(lt, e.s, 1, a, bm, 0, c, c, cfg)
	})
	require.NoError(b, e.s.Synchronize())
}

// product8192 times product of zero-filled n×n matrices (see the file's
// comment).
func product8192[A, C cublas.ExElem](b *testing.B, e *env, n int, math cublas.MathMode, product func(a, b cublas.Matrix[A], c cublas.Matrix[C]) error) {
	da, err := memory.AllocZeroed[A](e.ctx, n*n)
	require.NoError(b, err)
	defer da.Close()
	db, err := memory.AllocZeroed[A](e.ctx, n*n)
	require.NoError(b, err)
	defer db.Close()
	dc, err := memory.AllocZeroed[C](e.ctx, n*n)
	require.NoError(b, err)
	defer dc.Close()
	require.NoError(b, e.h.SetMathMode(math))
	defer func() { require.NoError(b, e.h.SetMathMode(cublas.DefaultMath)) }()
	start, err := stream.NewEvent(e.ctx, stream.EventOptions{})
	require.NoError(b, err)
	defer start.Close()
	end, err := stream.NewEvent(e.ctx, stream.EventOptions{})
	require.NoError(b, err)
	defer end.Close()
	ma, mb, mc := cublas.Mat(da, n, n), cublas.Mat(db, n, n), cublas.Mat(dc, n, n)
	var best, first time.Duration
	for b.Loop() {
		if first == 0 {
			first = best
		}
		best = 0
		for i := range 13 {
			require.NoError(b, start.Record(e.s))
			require.NoError(b, product(ma, mb, mc))
			require.NoError(b, end.Record(e.s))
			require.NoError(b, end.Synchronize())
			d, err := stream.Elapsed(start, end)
			require.NoError(b, err)
			if i >= 3 && (best == 0 || d < best) {
				best = d
			}
		}
	}
	if first == 0 {
		first = best
	}
	flop := 2 * float64(n) * float64(n) * float64(n)
	b.ReportMetric(flop/best.Seconds()/1e12, "TFLOP/s")
	b.ReportMetric(flop/first.Seconds()/1e12, "TFLOP/s-first")
}

// burst queues 64 calls of f per iteration, after a synchronize, and
// reports the cost of one call.
func burst(b *testing.B, e *env, f func() error) {
	require.NoError(b, f()) // warm up: kernels loaded
	require.NoError(b, e.s.Synchronize())
	b.ReportAllocs()
	var queued time.Duration
	calls := 0
	for b.Loop() {
		if err := e.s.Synchronize(); err != nil {
			b.Fatal(err)
		}
		t := time.Now()
		for range 64 {
			if err := f(); err != nil {
				b.Fatal(err)
			}
		}
		queued += time.Since(t)
		calls += 64
	}
	require.NoError(b, e.s.Synchronize())
	b.ReportMetric(float64(queued.Nanoseconds())/float64(calls), "ns/call")
}

func BenchmarkSgemm64(b *testing.B) {
	e := newEnv(b)
	da, err := memory.AllocZeroed[float32](e.ctx, 64*64)
	require.NoError(b, err)
	defer da.Close()
	dc, err := memory.AllocZeroed[float32](e.ctx, 64*64)
	require.NoError(b, err)
	defer dc.Close()
	one, zero := cublas.Host[float32](1), cublas.Host[float32](0)
	A, C := cublas.Mat(da, 64, 64), cublas.Mat(dc, 64, 64)
	gemm := func() error { return cublas.Gemm(e.h, one, A, A, zero, C) }
	b.Run("api", func(b *testing.B) { burst(b, e, gemm) })
	// Where the cost over C's goes: the same call with the handle's context
	// already current on a locked thread (no push and pop per call), and
	// the seam's cublasSgemm alone (no checks, no holds).
	b.Run("api_bound", func(b *testing.B) {
		bd, err := core.ContextOf(e.ctx).Bind()
		require.NoError(b, err)
		defer func() { require.NoError(b, bd.Unbind()) }()
		burst(b, e, gemm)
	})
	b.Run("seam", func(b *testing.B) {
		bd, err := core.ContextOf(e.ctx).Bind()
		require.NoError(b, err)
		defer func() { require.NoError(b, bd.Unbind()) }()
		raw := cublas.RawSgemm(e.h, da.Ptr(), dc.Ptr(), 64)
		burst(b, e, raw)
	})
}

func BenchmarkSaxpy4096(b *testing.B) {
	e := newEnv(b)
	dx, err := memory.AllocZeroed[float32](e.ctx, 4096)
	require.NoError(b, err)
	defer dx.Close()
	dy, err := memory.AllocZeroed[float32](e.ctx, 4096)
	require.NoError(b, err)
	defer dy.Close()
	one := cublas.Host[float32](1)
	x, y := cublas.Vec(dx), cublas.Vec(dy)
	burst(b, e, func() error { return cublas.Axpy(e.h, one, x, y) })
}
