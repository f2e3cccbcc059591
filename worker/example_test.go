package worker_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/worker"
)

// job is a user's kernel to run on the service's data: CUDA C source and
// the kernel's name (strings travel in the call's frame, up to
// worker.MaxValueSize bytes) and the data, shared.
type job struct {
	Source string
	Kernel string
	Data   worker.Buffer[float32]
}

// runUserKernel runs in a worker: it compiles the user's source and
// launches the kernel on the data, kernel(float* data, int n).
var runUserKernel = worker.Register("example.runUserKernel", func(env *worker.Env, j job) (struct{}, error) {
	cc, err := env.Context()
	if err != nil {
		return struct{}{}, err
	}
	s, _ := env.Stream()
	data, err := j.Data.Open(env)
	if err != nil {
		return struct{}{}, err
	}
	m, err := module.Compile(cc, j.Source, module.Options{Name: "user.cu", NoCache: true})
	if err != nil {
		return struct{}{}, err
	}
	defer m.Close()
	f, err := m.Function(j.Kernel)
	if err != nil {
		return struct{}{}, err
	}
	if err := f.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(32)}, data, int32(data.Len())); err != nil {
		return struct{}{}, err
	}
	return struct{}{}, s.Synchronize()
})

const userSource = `
extern "C" __global__ void twice(float* p, int n) {
	int i = threadIdx.x;
	if (i < n) p[i] *= 2;
}
extern "C" __global__ void wild(float* p, int n) {
	p[1LL << 40] = 1; // far outside any allocation: a sticky fault
}`

// A service that runs users' kernels in a worker survives a bad one: the
// faulting call fails with driver.ErrStickyFault, the worker is replaced,
// and the service's own context and data are untouched. On the fake (as
// here) each worker is a fake process of its own; with gpu.Load, a child
// process of the program, which calls worker.Main first in main.
func Example_kernelService() {
	// Go bodies for the fake, which also runs the CUDA C on machines with
	// NVIDIA's NVRTC.
	drv := fake.New(
		fake.Kernel("twice", func(t fake.Thread, p fake.Ptr, n int32) {
			if i := t.X(); i < int(n) {
				fake.Store(t, p, i, 2*fake.Load[float32](t, p, i))
			}
		}),
		fake.Kernel("wild", func(t fake.Thread, p fake.Ptr, n int32) {
			fake.Store(t, p, 1<<40, float32(1))
		}),
		fake.PretendNVRTC())
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	data, _ := memory.FromSlice(cc, []float32{1, 2, 3, 4})
	defer data.Close()

	pool, err := worker.New(worker.Options{}, cc)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()

	ctx := context.Background()
	for _, kernel := range []string{"twice", "wild", "twice"} {
		_, err := runUserKernel.Call(ctx, pool, job{userSource, kernel, worker.Share(data)})
		v, _ := memory.ToSlice(data)
		fmt.Printf("%s: sticky fault %v, data %v\n", kernel, errors.Is(err, driver.ErrStickyFault), v)
	}
	// Output:
	// twice: sticky fault false, data [2 4 6 8]
	// wild: sticky fault true, data [2 4 6 8]
	// twice: sticky fault false, data [4 8 12 16]
}
