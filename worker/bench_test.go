package worker_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/cudatest/fakekernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/worker"
)

// The benchmarks run on the GPU where one loads (side by side in one run:
// go test -bench . -benchmem ./worker), else on the fake.

// add1 is kernels.Add1 on a.Buf, the module compiled once per worker
// context (a worker is a process; on the fake, several share this one).
var add1 = worker.Register("bench.add1", func(env *worker.Env, a markArg) (struct{}, error) {
	ctx, err := env.Context()
	if err != nil {
		return struct{}{}, err
	}
	s, err := env.Stream()
	if err != nil {
		return struct{}{}, err
	}
	f, err := add1Kernel(ctx)
	if err != nil {
		return struct{}{}, err
	}
	buf, err := a.Buf.Open(env)
	if err != nil {
		return struct{}{}, err
	}
	n := buf.Len()
	return struct{}{}, f.Launch(s, module.Config{Grid: module.Dim((n + 255) / 256), Block: module.Dim(256)}, buf, int32(n))
})

var add1Kernels sync.Map // *driver.Context -> *module.Function

func add1Kernel(ctx *driver.Context) (*module.Function, error) {
	if f, ok := add1Kernels.Load(ctx); ok {
		return f.(*module.Function), nil
	}
	m, err := module.Compile(ctx, kernels.Source, module.Options{Name: "bench.cu", NameExpressions: []string{kernels.FillFloat}})
	if err != nil {
		return nil, err
	}
	f, err := m.Function(kernels.Add1)
	if err != nil {
		return nil, err
	}
	add1Kernels.Store(ctx, f)
	return f, nil
}

func benchPool(b *testing.B) (*driver.Context, *worker.Pool) {
	drv := cudatest.Driver(b, fakekernels.Options()...)
	dev, err := drv.Device(0)
	if err != nil {
		b.Fatal(err)
	}
	ctx, err := dev.PrimaryContext()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ctx.Close() })
	p, err := worker.New(worker.Options{}, ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	return ctx, p
}

// BenchmarkStart: a worker's start (cuInit and the primary context in the
// child) and its clean exit.
func BenchmarkStart(b *testing.B) {
	ctx, _ := benchPool(b)
	b.ResetTimer()
	for b.Loop() {
		p, err := worker.New(worker.Options{}, ctx)
		if err != nil {
			b.Fatal(err)
		}
		p.Close()
	}
}

// BenchmarkCallEmpty: the round trip of a call that does nothing.
func BenchmarkCallEmpty(b *testing.B) {
	_, p := benchPool(b)
	bg := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := empty.Call(bg, p, struct{}{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallEmptySubprocess: the same round trip with a real child
// process on any machine (the fake's own workers are goroutines).
func BenchmarkCallEmptySubprocess(b *testing.B) {
	drv := cudatest.Fake(b)
	dev, _ := drv.Device(0)
	ctx, err := dev.PrimaryContext()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ctx.Close() })
	p, err := worker.New(worker.Options{Subprocess: true}, ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	bg := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := empty.Call(bg, p, struct{}{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallKernel1MiB: a call that runs add1 on a 1 MiB buffer of the
// parent's.
func BenchmarkCallKernel1MiB(b *testing.B) {
	ctx, p := benchPool(b)
	buf, err := memory.AllocZeroed[float32](ctx, 1<<18)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { buf.Close() })
	bg := context.Background()
	a := markArg{Buf: worker.Share(buf)}
	if _, err := add1.Call(bg, p, a); err != nil { // maps the buffer, compiles
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := add1.Call(bg, p, a); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplaceAfterFault: a faulting call (which compiles its kernel
// in the worker, uncached), then the next call, which waits for the new
// worker.
func BenchmarkReplaceAfterFault(b *testing.B) {
	ctx, p := benchPool(b)
	buf, err := memory.AllocZeroed[float32](ctx, 16)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { buf.Close() })
	bg := context.Background()
	for b.Loop() {
		if _, err := faulty.Call(bg, p, markArg{worker.Share(buf), 1}); err == nil {
			b.Fatal("no fault")
		}
		if _, err := empty.Call(bg, p, struct{}{}); err != nil {
			b.Fatal(err)
		}
	}
}

// Allocations of a call in the parent's steady state: none. A real child
// process, so that only the parent's allocations count (the fake's
// workers run in this process).
func TestCallAllocatesNothing(t *testing.T) {
	drv := cudatest.Fake(t)
	p, err := worker.New(worker.Options{Subprocess: true}, primary(t, drv, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	bg := context.Background()
	if _, err := sum.Call(bg, p, [4]int64{1}); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { sum.Call(bg, p, [4]int64{1}) }); n != 0 {
		t.Errorf("%v allocations per call in the parent", n)
	}
	deadline, cancel := context.WithTimeout(bg, time.Hour)
	defer cancel()
	if n := testing.AllocsPerRun(100, func() { sum.Call(deadline, p, [4]int64{1}) }); n != 0 {
		t.Errorf("%v allocations per call with a deadline", n)
	}
}

// The same with buffers, on the GPU (the parent exports the buffer at each
// call).
func TestGPUCallAllocatesNothing(t *testing.T) {
	if os.Getenv(cudatest.RequireGPUEnv) != "1" {
		t.Skip("needs the GPU: NOCGO_CUDA_REQUIRE_GPU=1")
	}
	ctx := primary(t, cudatest.Real(t), 0)
	buf, err := memory.Alloc[float32](ctx, 1<<18)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Close()
	p, err := worker.New(worker.Options{}, ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	bg := context.Background()
	a := markArg{Buf: worker.Share(buf), Mark: 1}
	if _, err := add1.Call(bg, p, a); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { add1.Call(bg, p, markArg{Buf: worker.Share(buf)}) }); n != 0 {
		t.Errorf("%v allocations per call in the parent", n)
	}
}
