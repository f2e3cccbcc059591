package graph_test

import (
	"testing"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/gpu"
	"github.com/nocgo/cuda/graph"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// The replay benchmarks: the per-kernel cost of one launch of a graph of
// kernelsPerGraph empty kernels, against kernelsPerGraph prepared launches
// (module.Function.LaunchArgs) of the same kernel. Each reports ns/kernel
// beside ns/op. graph/testdata/bench holds the same measurement in C and
// for torch.cuda.CUDAGraph and CuPy, in the same RESULT format.
//
// They run on three backends, as module's benchmarks do:
//
//   - real: the real driver; skipped when it does not load;
//   - fake: the fake driver (its launches queue Go closures);
//   - seam: the fake with cuGraphLaunch and cuLaunchKernel doing nothing:
//     what package graph and package module themselves cost (0 allocs/op).
const kernelsPerGraph = 100

const emptySrc = `extern "C" __global__ void empty() {}`

func benchBackends(b *testing.B, run func(b *testing.B, drv *driver.Driver)) {
	b.Run("real", func(b *testing.B) {
		drv, err := gpu.Load()
		if err != nil {
			b.Skip(err)
		}
		run(b, drv)
	})
	b.Run("fake", func(b *testing.B) { run(b, fake.New(emptyKernel())) })
	b.Run("seam", func(b *testing.B) {
		drv, err := driver.New(noWork{fake.NewBackend(emptyKernel())})
		if err != nil {
			b.Fatal(err)
		}
		run(b, drv)
	})
}

func emptyKernel() fake.Option { return fake.Kernel("empty", func(fake.Thread) {}) }

// noWork is the fake with launches of kernels and graphs that check their
// handles and do nothing else.
type noWork struct{ fake.Backend }

func (noWork) LaunchKernel(f uintptr, grid, block [3]uint32, sharedMem uint32, s uintptr, params unsafe.Pointer) error {
	if f == 0 {
		return driver.ErrInvalidHandle
	}
	return nil
}

func (noWork) GraphLaunch(e, s uintptr) error {
	if e == 0 {
		return driver.ErrInvalidValue
	}
	return nil
}

// emptySetup compiles empty() and returns it, a stream and its prepared
// (empty) arguments.
func emptySetup(b testing.TB, drv *driver.Driver) (*stream.Stream, *module.Function, *module.Args) {
	b.Helper()
	ctx := primary(b, drv)
	s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	m, err := module.Compile(ctx, emptySrc, module.Options{Name: "empty.cu", NoCache: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { m.Close() })
	f, err := m.Function("empty")
	if err != nil {
		b.Fatal(err)
	}
	args, err := f.Args()
	if err != nil {
		b.Fatal(err)
	}
	return s, f, args
}

var oneThread = module.Config{Grid: module.Dim(1), Block: module.Dim(1)}

// replayExec captures kernelsPerGraph launches of f into an Exec.
func replayExec(b testing.TB, s *stream.Stream, f *module.Function, args *module.Args) *graph.Exec {
	b.Helper()
	g, err := graph.Capture(s, graph.Global, func() error {
		for range kernelsPerGraph {
			if err := f.LaunchArgs(s, oneThread, args); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	x, err := g.Instantiate()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { x.Close() })
	if err := x.Upload(s); err != nil {
		b.Fatal(err)
	}
	return x
}

func perKernel(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*kernelsPerGraph), "ns/kernel")
}

// BenchmarkReplay100 is one Exec.Launch of a graph of 100 empty kernels.
func BenchmarkReplay100(b *testing.B) {
	benchBackends(b, func(b *testing.B, drv *driver.Driver) {
		s, f, args := emptySetup(b, drv)
		x := replayExec(b, s, f, args)
		if err := s.Synchronize(); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := x.Launch(s); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.Synchronize(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		perKernel(b)
	})
}

// BenchmarkLaunch100 is 100 prepared launches of the empty kernel.
func BenchmarkLaunch100(b *testing.B) {
	benchBackends(b, func(b *testing.B, drv *driver.Driver) {
		s, f, args := emptySetup(b, drv)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for range kernelsPerGraph {
				if err := f.LaunchArgs(s, oneThread, args); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := s.Synchronize(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		perKernel(b)
	})
}

// TestLaunchAllocatesNothing: a replay allocates nothing in package graph
// (on the seam backend, whose cuGraphLaunch does nothing).
func TestLaunchAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	drv, err := driver.New(noWork{fake.NewBackend(emptyKernel())})
	if err != nil {
		t.Fatal(err)
	}
	s, f, args := emptySetup(t, drv)
	x := replayExec(t, s, f, args)
	if n := testing.AllocsPerRun(1000, func() {
		if err := x.Launch(s); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("Exec.Launch allocates %v times per call, want 0", n)
	}
}
