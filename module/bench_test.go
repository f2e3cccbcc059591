package module_test

import (
	"testing"

	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/gpu"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// Benchmarks run on three backends:
//
//   - real: the real driver; skipped when it does not load;
//   - fake: the fake driver (its cuLaunchKernel allocates: it queues a Go
//     closure);
//   - seam: the fake with a cuLaunchKernel that does nothing, which shows
//     what the module package itself costs (0 allocs/op).
func backends(b *testing.B, run func(b *testing.B, drv *driver.Driver)) {
	b.Run("real", func(b *testing.B) {
		drv, err := gpu.Load()
		if err != nil {
			b.Skip(err)
		}
		run(b, drv)
	})
	b.Run("fake", func(b *testing.B) { run(b, fakeDriver()) })
	b.Run("seam", func(b *testing.B) {
		drv, err := driver.New(noLaunch{fake.NewBackend(fakeOptions()...)})
		if err != nil {
			b.Fatal(err)
		}
		run(b, drv)
	})
}

// benchKernel compiles segment_scale and returns it with buffers of n
// elements.
func benchKernel(b *testing.B, drv *driver.Driver, n int) (*stream.Stream, *module.Function, *memory.Buffer[float32], *memory.Buffer[float32]) {
	ctx, s := setup(b, drv)
	m := compileSegscale(b, ctx, module.Options{NoCache: true})
	f, err := m.Function(segscale.Name)
	if err != nil {
		b.Fatal(err)
	}
	return s, f, alloc(b, ctx, n), alloc(b, ctx, n)
}

const benchN = 1 << 12

// BenchmarkLaunch is Launch with its arguments checked and laid out on
// every call.
func BenchmarkLaunch(b *testing.B) {
	backends(b, func(b *testing.B, drv *driver.Driver) {
		s, f, out, in := benchKernel(b, drv, benchN)
		cfg := module.Config{Grid: module.Cover(benchN, 256), Block: module.Dim(256)}
		n := int32(benchN)
		b.ReportAllocs()
		for b.Loop() {
			if err := f.Launch(s, cfg, out, in, n); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		if err := s.Synchronize(); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkLaunchArgs is the prepared launch: 0 allocs/op on the real
// driver.
func BenchmarkLaunchArgs(b *testing.B) {
	backends(b, func(b *testing.B, drv *driver.Driver) {
		s, f, out, in := benchKernel(b, drv, benchN)
		cfg := module.Config{Grid: module.Cover(benchN, 256), Block: module.Dim(256)}
		args, err := f.Args(out, in, int32(benchN))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if err := f.LaunchArgs(s, cfg, args); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		if err := s.Synchronize(); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkArgsSet updates one scalar argument of prepared arguments.
func BenchmarkArgsSet(b *testing.B) {
	backends(b, func(b *testing.B, drv *driver.Driver) {
		_, f, out, in := benchKernel(b, drv, benchN)
		args, err := f.Args(out, in, int32(benchN))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		n := int32(0)
		for b.Loop() {
			n++
			if err := args.Set(2, n); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCompileCold compiles segment_scale with the cache off: NVRTC
// every time (tens of milliseconds on a GPU machine).
func BenchmarkCompileCold(b *testing.B) {
	backends(b, func(b *testing.B, drv *driver.Driver) {
		ctx, _ := setup(b, drv)
		b.ReportAllocs()
		for b.Loop() {
			m, err := module.Compile(ctx, segscale.Source, module.Options{NoCache: true})
			if err != nil {
				b.Fatal(err)
			}
			m.Close()
		}
	})
}

// BenchmarkCompileWarm compiles segment_scale from a warm on-disk cache:
// read, checksum, cuModuleLoadData (about a millisecond or less).
func BenchmarkCompileWarm(b *testing.B) {
	backends(b, func(b *testing.B, drv *driver.Driver) {
		ctx, _ := setup(b, drv)
		opts := module.Options{CacheDir: b.TempDir()}
		m, err := module.Compile(ctx, segscale.Source, opts)
		if err != nil {
			b.Fatal(err)
		}
		m.Close()
		b.ReportAllocs()
		for b.Loop() {
			m, err := module.Compile(ctx, segscale.Source, opts)
			if err != nil {
				b.Fatal(err)
			}
			if !m.Cached() {
				b.Fatal("not a cache hit")
			}
			m.Close()
		}
	})
}
