// Command quickstart is the README's quick start: a kernel compiled at run
// time, data in, a launch, data out, on the machine's GPU. Its test runs
// scale on the fake driver where there is no GPU (cudatest.Driver), so the
// fake stays in the test binary: the program links no fake.
//
//	go run ./cmd/quickstart
package main

import (
	"fmt"
	"log"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/gpu"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

func main() {
	drv, err := gpu.Load() // the NVIDIA driver; the tests run scale on the fake
	if err != nil {
		log.Fatal(err)
	}
	got, err := scale(drv, []float32{1, 2, 3, 4, 5, 6, 7, 8}, 2)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(got)
}

// scale returns k times host, computed on device 0 of drv.
func scale(drv *driver.Driver, host []float32, k float32) ([]float32, error) {
	dev, err := drv.Device(0)
	if err != nil {
		return nil, err
	}
	cc, err := dev.PrimaryContext() // shared with the CUDA runtime
	if err != nil {
		return nil, err
	}
	defer cc.Close()
	s, err := stream.New(cc, stream.Options{Flags: stream.NonBlocking})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	m, err := module.Compile(cc, scaleSource, module.Options{}) // NVRTC, cached on disk
	if err != nil {
		return nil, err // a *module.CompileError carries NVRTC's log
	}
	defer m.Close()
	f, err := m.Function("scale")
	if err != nil {
		return nil, err
	}
	in, err := memory.FromSliceOn(s, host)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	out, err := memory.Alloc[float32](cc, len(host))
	if err != nil {
		return nil, err
	}
	defer out.Close()
	n := len(host)
	if err := f.Launch(s, module.ForElems(n), out, in, k, int32(n)); err != nil {
		return nil, err // arguments are checked against the kernel's parameters
	}
	return memory.ToSliceOn(s, out) // waits for s
}

const scaleSource = `extern "C" __global__ void scale(float* out, const float* in, float k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = k * in[i];
}
`
