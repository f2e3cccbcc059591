package graph_test

import (
	"fmt"
	"log"

	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/graph"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// pipelineSrc is a three-kernel pipeline: y = ((x * a) + b)^2.
const pipelineSrc = `
extern "C" __global__ void scale(float* p, float a, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) p[i] *= a;
}
extern "C" __global__ void shift(float* p, float b, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) p[i] += b;
}
extern "C" __global__ void square(float* p, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) p[i] *= p[i];
}`

// The Go bodies the fake runs for the kernels above.
func scaleBody(t fake.Thread, p fake.Ptr, a float32, n int32) {
	if i := t.X(); i < int(n) {
		fake.Store(t, p, i, fake.Load[float32](t, p, i)*a)
	}
}

func shiftBody(t fake.Thread, p fake.Ptr, b float32, n int32) {
	if i := t.X(); i < int(n) {
		fake.Store(t, p, i, fake.Load[float32](t, p, i)+b)
	}
}

func squareBody(t fake.Thread, p fake.Ptr, n int32) {
	if i := t.X(); i < int(n) {
		v := fake.Load[float32](t, p, i)
		fake.Store(t, p, i, v*v)
	}
}

// Capture a three-kernel pipeline once, then replay it with one launch per
// run. The example runs on the fake driver; with drv, err := gpu.Load()
// it runs unchanged on a GPU.
func Example() {
	drv := fake.New(fake.Kernel("scale", scaleBody), fake.Kernel("shift", shiftBody), fake.Kernel("square", squareBody))
	dev, _ := drv.Device(0)
	cc, err := dev.PrimaryContext()
	if err != nil {
		log.Fatal(err)
	}
	defer cc.Close()
	s, err := stream.New(cc, stream.Options{Flags: stream.NonBlocking})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	m, err := module.Compile(cc, pipelineSrc, module.Options{Name: "pipeline.cu", NoCache: true})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	scale, _ := m.Function("scale")
	shift, _ := m.Function("shift")
	square, _ := m.Function("square")

	const n = 4
	p, err := memory.Alloc[float32](cc, n)
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	cfg := module.Config{Grid: module.Cover(n, 128), Block: module.Dim(128)}

	// Record the pipeline: the launches are checked as always, but only
	// recorded.
	g, err := graph.Capture(s, graph.Global, func() error {
		if err := scale.Launch(s, cfg, p, float32(2), int32(n)); err != nil {
			return err
		}
		if err := shift.Launch(s, cfg, p, float32(1), int32(n)); err != nil {
			return err
		}
		return square.Launch(s, cfg, p, int32(n))
	})
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	nodes, _ := g.NodeCount()
	fmt.Println("captured nodes:", nodes)

	x, err := g.Instantiate()
	if err != nil {
		log.Fatal(err)
	}
	defer x.Close()
	for _, start := range [][]float32{{0, 1, 2, 3}, {-1, -0.5, 0.5, 1}} {
		if err := memory.CopyToDeviceAsync(s, p, start); err != nil {
			log.Fatal(err)
		}
		if err := x.Launch(s); err != nil { // one launch, three kernels
			log.Fatal(err)
		}
		out := make([]float32, n)
		if err := memory.CopyToHostAsync(s, out, p); err != nil {
			log.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			log.Fatal(err)
		}
		fmt.Println(start, "->", out)
	}
	// Output:
	// captured nodes: 3
	// [0 1 2 3] -> [1 9 25 49]
	// [-1 -0.5 0.5 1] -> [1 0 4 9]
}
