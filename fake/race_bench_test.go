package fake_test

import (
	"sync"
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/gpu"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// raceModes are the race detector's settings BenchmarkRaceCost compares:
// off, on for work between streams only, and on with the checks inside a
// launch (what DetectRaces turns on); opts gives each hazard to report.
var raceModes = []struct {
	name string
	opts func(report func(fake.Hazard)) []fake.Option
}{
	{"off", func(func(fake.Hazard)) []fake.Option { return nil }},
	{"streams", func(r func(fake.Hazard)) []fake.Option { return []fake.Option{fake.StreamRacesOnly(r)} }},
	{"all", func(r func(fake.Hazard)) []fake.Option { return []fake.Option{fake.DetectRaces(r)} }},
}

const raceCostSrc = `
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void block_sum(const float *x, float *total, int n) {
	__shared__ float s[256];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	s[threadIdx.x] = i < n ? x[i] : 0.0f;
	__syncthreads();
	for (int k = blockDim.x / 2; k > 0; k >>= 1) {
		if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
		__syncthreads();
	}
	if (threadIdx.x == 0) atomicAdd(total, s[0]);
}
`

// BenchmarkRaceCost is the race detector's cost, each workload in each
// mode side by side (BENCHMARKS.md, "The race detector's cost"):
//
//	go test ./fake -run '^$' -bench RaceCost -benchtime 20x
//
// copies: 16 rounds of a 256 KiB copy to the device on one stream, a
// device-to-device copy (after the stream waits for the second stream's
// copy back of the round before), and the copy back on a second stream
// that waits for it: race-free (benchCopies fails on a hazard). elementwise: saxpy over 64Ki floats in the PTX
// interpreter. shared-atomic: a shared-memory tree reduction of 64Ki
// floats, 256 per block, each block's sum added to one word by atomicAdd.
func BenchmarkRaceCost(b *testing.B) {
	b.Run("copies", func(b *testing.B) {
		for _, m := range raceModes {
			b.Run(m.name, func(b *testing.B) { benchCopies(b, m.opts) })
		}
	})
	if _, err := gpu.LoadNVRTC(); err != nil {
		b.Skipf("the kernel workloads need libnvrtc: %v", err)
	}
	for _, k := range []string{"elementwise", "shared-atomic"} {
		b.Run(k, func(b *testing.B) {
			for _, m := range raceModes {
				b.Run(m.name, func(b *testing.B) { benchKernel(b, k, m.opts) })
			}
		})
	}
}

// benchContext returns the primary context of a fake with the race
// detector set as mode says; the benchmark fails if its workload races
// (a hazard would cost its report, and the cost measured would not be
// that of the checks).
func benchContext(b *testing.B, mode func(func(fake.Hazard)) []fake.Option) *driver.Context {
	b.Helper()
	var mu sync.Mutex
	var first *fake.Hazard
	drv := fake.New(mode(func(h fake.Hazard) {
		mu.Lock()
		defer mu.Unlock()
		if first == nil {
			first = &h
		}
	})...)
	b.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		if first != nil {
			b.Errorf("the workload races:\n%v", *first)
		}
	})
	dev, err := drv.Device(0)
	if err != nil {
		b.Fatal(err)
	}
	ctx, err := dev.PrimaryContext()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ctx.Close() })
	return ctx
}

func check(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}

func benchCopies(b *testing.B, mode func(func(fake.Hazard)) []fake.Option) {
	ctx := benchContext(b, mode)
	const n = 64 << 10 // float32s: 256 KiB
	s1, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	check(b, err)
	defer s1.Close()
	s2, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	check(b, err)
	defer s2.Close()
	x, err := memory.Alloc[float32](ctx, n)
	check(b, err)
	defer x.Close()
	y, err := memory.Alloc[float32](ctx, n)
	check(b, err)
	defer y.Close()
	in, out := make([]float32, n), make([]float32, n)
	b.SetBytes(16 * 3 * 4 * n)
	for b.Loop() {
		for range 16 {
			check(b, memory.CopyToDeviceAsync(s1, x, in))
			check(b, s1.WaitStream(s2)) // the last round's copy back read y
			check(b, memory.CopyDtoDAsync(s1, y, x))
			check(b, s2.WaitStream(s1))
			check(b, memory.CopyToHostAsync(s2, out, y))
		}
		check(b, s2.Synchronize())
		check(b, s1.Synchronize())
	}
}

func benchKernel(b *testing.B, kernel string, mode func(func(fake.Hazard)) []fake.Option) {
	ctx := benchContext(b, mode)
	m, err := module.Compile(ctx, raceCostSrc, module.Options{NoCache: true})
	check(b, err)
	defer m.Close()
	const n = 64 << 10
	s, err := stream.New(ctx, stream.Options{})
	check(b, err)
	defer s.Close()
	x, err := memory.Alloc[float32](ctx, n)
	check(b, err)
	defer x.Close()
	y, err := memory.Alloc[float32](ctx, n)
	check(b, err)
	defer y.Close()
	check(b, memory.Fill(s, x, 1))
	check(b, memory.Fill(s, y, 2))
	check(b, s.Synchronize())
	cfg := module.Config{Grid: module.Cover(n, 256), Block: module.Dim(256)}
	var launch func() error
	switch kernel {
	case "elementwise":
		f, err := m.Function("saxpy")
		check(b, err)
		launch = func() error { return f.Launch(s, cfg, float32(2), x, y, int32(n)) }
	default:
		f, err := m.Function("block_sum")
		check(b, err)
		launch = func() error { return f.Launch(s, cfg, x, y, int32(n)) }
	}
	cpu := processCPU()
	for b.Loop() {
		check(b, launch())
		check(b, s.Synchronize())
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "threads/s")
	if used := processCPU() - cpu; cpu > 0 && used > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/used, "threads/cpu-s")
	}
}
