package cufft_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/cufft"
	"github.com/nocgo/cuda/memory"
)

// The cuFFT targets: a 2^24-point C2C transform and a batch of
// 1024 R2C transforms of 4096 points, each call waited for; C's figures
// come from bench/curand_cufft_baseline.c. Skipped on the fake (minutes of
// CPU per call).
func BenchmarkExec(b *testing.B) {
	drv, ctx, s := setup(b)
	if cudatest.IsFake(drv) {
		b.Skip("the fake computes on the CPU: minutes per transform at these sizes")
	}
	b.Run("C2C-2^24", func(b *testing.B) {
		const n = 1 << 24
		p, err := cufft.Plan1D(s, n, cufft.C2C, 1)
		require.NoError(b, err)
		defer p.Close()
		x, err := memory.AllocZeroed[complex64](ctx, n)
		require.NoError(b, err)
		defer x.Close()
		b.ReportAllocs()
		for b.Loop() {
			if err := cufft.ExecC2C(p, x, x, cufft.Forward); err != nil {
				b.Fatal(err)
			}
			if err := s.Synchronize(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e6/float64(b.N), "µs/transform")
	})
	b.Run("R2C-1024x4096", func(b *testing.B) {
		const n, batch = 4096, 1024
		p, err := cufft.Plan1D(s, n, cufft.R2C, batch)
		require.NoError(b, err)
		defer p.Close()
		in, err := memory.AllocZeroed[float32](ctx, n*batch)
		require.NoError(b, err)
		defer in.Close()
		out, err := memory.Alloc[complex64](ctx, (n/2+1)*batch)
		require.NoError(b, err)
		defer out.Close()
		b.ReportAllocs()
		for b.Loop() {
			if err := cufft.ExecR2C(p, in, out); err != nil {
				b.Fatal(err)
			}
			if err := s.Synchronize(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e6/float64(b.N), "µs/batch")
	})
}
