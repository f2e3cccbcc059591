package fake_test

import (
	"errors"
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

const saxpySrc = `
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = a * x[i] + y[i];
}`

// saxpy is the Go body the fake runs for the CUDA kernel above, once per
// thread.
func saxpy(t fake.Thread, a float32, x, y fake.Ptr, n int32) {
	if i := t.X(); i < int(n) {
		fake.Store(t, y, i, a*fake.Load[float32](t, x, i)+fake.Load[float32](t, y, i))
	}
}

// A kernel with a Go body registered with the fake is compiled, loaded and
// launched through the user packages exactly as on a GPU. PretendNVRTC makes
// the fake run the Go body on every machine (with NVIDIA's libnvrtc
// installed, the fake would compile the CUDA C and run its PTX; a Go body
// registered for a kernel takes precedence either way).
func Example() {
	drv := fake.New(fake.Kernel("saxpy", saxpy), fake.PretendNVRTC())
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	s, _ := stream.New(cc, stream.Options{})
	defer s.Close()

	m, err := module.Compile(cc, saxpySrc, module.Options{NoCache: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	f, _ := m.Function("saxpy")

	x, _ := memory.FromSlice(cc, []float32{1, 2, 3, 4})
	defer x.Close()
	y, _ := memory.FromSlice(cc, []float32{10, 20, 30, 40})
	defer y.Close()
	err = f.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(32)}, float32(2), x, y, int32(4))
	fmt.Println("launch:", err)
	ys := make([]float32, 4)
	memory.CopyToHostAsync(s, ys, y)
	s.Synchronize()
	fmt.Println(ys)
	// Output:
	// launch: <nil>
	// [12 24 36 48]
}

// Kernel bodies are bounds-checked: an access outside every allocation
// fails the launch like an illegal address on a GPU: sticky, so the
// context's later work fails too.
func ExampleLoad() {
	const src = `extern "C" __global__ void peek(const int* p) { volatile int v = p[threadIdx.x]; }`
	drv := fake.New(fake.PretendNVRTC(), fake.Kernel("peek", func(t fake.Thread, p fake.Ptr) {
		_ = fake.Load[int32](t, p, t.X())
	}))
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	m, _ := module.Compile(cc, src, module.Options{NoCache: true})
	defer m.Close()
	f, _ := m.Function("peek")
	p, _ := memory.Alloc[int32](cc, 2)
	defer p.Close()
	s, _ := stream.New(cc, stream.Options{})
	defer s.Close()
	f.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(3)}, p) // thread 2 reads past the end
	err := s.Synchronize()
	fmt.Println(errors.Is(err, driver.ErrIllegalAddress), errors.Is(err, driver.ErrStickyFault))
	// Output:
	// true true
}

// FailNth makes one call fail, to test error paths; Leaks then shows what
// the program still holds.
func ExampleFailNth() {
	drv := fake.New(fake.FailNth("cuMemAlloc", 1, driver.ErrOutOfMemory))
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	_, err := memory.Alloc[byte](cc, 64)
	fmt.Println(errors.Is(err, driver.ErrOutOfMemory))
	buf, err := memory.Alloc[byte](cc, 64)
	fmt.Println(err, fake.Of(drv).Leaks()[1])
	buf.Close()
	// Output:
	// true
	// <nil> device memory 0x300000000000: 64 bytes on device 0 not freed, made at example_test.go:98 (ExampleFailNth)
}
