package fake_test

import (
	"fmt"

	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/gpu"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// sumSquaresSrc is a user's own CUDA C kernel: a block reduction in shared
// memory, with barriers and an atomic, for which no Go body exists.
const sumSquaresSrc = `
extern "C" __global__ void sum_squares(const int* x, int n, unsigned long long* total) {
	__shared__ int part[128];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	part[threadIdx.x] = i < n ? x[i] * x[i] : 0;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s /= 2) {
		if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0) atomicAdd(total, (unsigned long long)part[0]);
}`

// A user's CUDA C kernel tested on the fake as it is, with no Go body: where
// NVIDIA's libnvrtc is installed (Debian's libnvrtc11.2, or the pip wheel
// nvidia-cuda-nvrtc-cu12), the fake compiles it with NVRTC and runs the PTX
// in its interpreter, with shared memory, barriers and atomics.
//
// An Example cannot skip, and this one needs libnvrtc, so it has no Output
// comment: TestExampleCUDAC runs it and checks what it prints wherever
// libnvrtc is installed (CI installs it). It prints:
//
//	compiler: libnvrtc on the fake
//	sum of squares of 0..999: 332833500
func Example_cudaC() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	compiler, _ := fake.Of(drv).Compiler()
	fmt.Println("compiler:", compiler)

	m, err := module.Compile(cc, sumSquaresSrc, module.Options{NoCache: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	f, _ := m.Function("sum_squares")

	const n = 1000
	xs := make([]int32, n)
	for i := range xs {
		xs[i] = int32(i)
	}
	s, _ := stream.New(cc, stream.Options{})
	defer s.Close()
	x, _ := memory.Alloc[int32](cc, n)
	defer x.Close()
	total, _ := memory.Alloc[uint64](cc, 1)
	defer total.Close()
	memory.CopyToDevice(x, xs)
	memory.CopyToDevice(total, []uint64{0})

	cfg := module.Config{Grid: module.Cover(n, 128), Block: module.Dim(128)}
	if err := f.Launch(s, cfg, x, int32(n), total); err != nil {
		fmt.Println(err)
		return
	}
	if err := s.Synchronize(); err != nil {
		fmt.Println(err)
		return
	}
	got := make([]uint64, 1)
	memory.CopyToHost(got, total)
	fmt.Println("sum of squares of 0..999:", got[0])
}

// The compiler can be given explicitly: here NVIDIA's NVRTC opened alone
// (no libcuda, no GPU), or the pretend one where a test wants the same
// compiler on every machine. (No Output: it depends on libnvrtc.)
func ExampleNVRTC() {
	nv, err := gpu.LoadNVRTC()
	if err != nil {
		fmt.Println("no libnvrtc:", err)
		return
	}
	drv := fake.New(fake.NVRTC(nv))
	major, minor, _ := drv.NVRTCVersion()
	fmt.Printf("the fake compiles with NVRTC %d.%d\n", major, minor)

	pretend := fake.New(fake.PretendNVRTC())
	major, minor, _ = pretend.NVRTCVersion()
	fmt.Printf("and pretends to be NVRTC %d.%d here\n", major, minor)
}
