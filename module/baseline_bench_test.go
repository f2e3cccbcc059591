package module_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/gpu"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// baselineSource is the C baseline's kernels (../shared/bench/baseline.c),
// so that these launches compare one for one with its launch_empty and
// launch_2args numbers: one block of 32 threads on a non-blocking stream,
// submission time per launch.
const baselineSource = `extern "C" __global__ void empty() {}
extern "C" __global__ void add1(float* x, int n) { int i = blockIdx.x*blockDim.x+threadIdx.x; if (i<n) x[i]+=1.0f; }
`

// BenchmarkLaunchBaseline launches the C baseline's kernels on the real
// driver: empty (no arguments), add1 through Launch (arguments checked and
// laid out per call) and add1 through the prepared LaunchArgs.
func BenchmarkLaunchBaseline(b *testing.B) {
	drv, err := gpu.Load()
	if err != nil {
		b.Skip(err)
	}
	dev, err := drv.Device(0)
	require.NoError(b, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(b, err)
	defer ctx.Close()
	s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	require.NoError(b, err)
	defer s.Close()
	m, err := module.Compile(ctx, baselineSource, module.Options{Name: "baseline.cu"})
	require.NoError(b, err)
	defer m.Close()
	empty, err := m.Function("empty")
	require.NoError(b, err)
	add1, err := m.Function("add1")
	require.NoError(b, err)
	x, err := memory.Alloc[float32](ctx, 1<<20)
	require.NoError(b, err)
	defer x.Close()
	n := int32(1 << 20)
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(32)}

	submit := func(b *testing.B, launch func() error) {
		require.NoError(b, s.Synchronize())
		b.ReportAllocs()
		for b.Loop() {
			if err := launch(); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		require.NoError(b, s.Synchronize())
	}
	b.Run("empty", func(b *testing.B) { submit(b, func() error { return empty.Launch(s, cfg) }) })
	b.Run("add1", func(b *testing.B) { submit(b, func() error { return add1.Launch(s, cfg, x, n) }) })
	args, err := add1.Args(x, n)
	require.NoError(b, err)
	b.Run("add1-prepared", func(b *testing.B) { submit(b, func() error { return add1.LaunchArgs(s, cfg, args) }) })

	// Eight goroutines, each launching the empty kernel on a stream of its
	// own: the time per launch of all of them together.
	b.Run("empty-8goroutines", func(b *testing.B) {
		const g = 8
		streams := make([]*stream.Stream, g)
		for i := range streams {
			streams[i], err = stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
			require.NoError(b, err)
			defer streams[i].Close()
		}
		b.ReportAllocs()
		b.ResetTimer()
		var wg sync.WaitGroup
		errs := make(chan error, g)
		for i := range g {
			wg.Add(1)
			go func(s *stream.Stream, n int) {
				defer wg.Done()
				for range n {
					if err := empty.Launch(s, cfg); err != nil {
						errs <- err
						return
					}
				}
			}(streams[i], b.N/g+1)
		}
		wg.Wait()
		b.StopTimer()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
		for _, s := range streams {
			require.NoError(b, s.Synchronize())
		}
	})
}
