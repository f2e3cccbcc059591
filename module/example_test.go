package module_test

import (
	"fmt"
	"log"
	"math"
	"runtime"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/gpu"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// The whole path: compile a kernel at run time, copy data in, launch, copy
// the result out. It runs on the GPU where the driver loads, and on the
// fake driver elsewhere, where the kernel's Go body computes what the CUDA
// C computes. (This is a test file: a program keeps the fake out of its
// binary by importing gpu only, and its tests bring the fake, as the
// README's quick start, cmd/quickstart, does.)
func Example_quickStart() {
	drv, err := gpu.Load() // the NVIDIA driver, where there is one
	if err != nil {
		// No GPU here: the fake driver, with the kernel's body in Go.
		drv = fake.New(fake.Kernel("scale", scaleBody))
	}
	dev, err := drv.Device(0)
	if err != nil {
		log.Fatal(err)
	}
	cc, err := dev.PrimaryContext() // shared with the CUDA runtime
	if err != nil {
		log.Fatal(err)
	}
	defer cc.Close()

	s, err := stream.New(cc, stream.Options{Flags: stream.NonBlocking})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	host := []float32{1, 2, 3, 4, 5, 6, 7, 8}
	n := len(host)
	in, err := memory.Alloc[float32](cc, n)
	if err != nil {
		log.Fatal(err)
	}
	defer in.Close()
	out, err := memory.Alloc[float32](cc, n)
	if err != nil {
		log.Fatal(err)
	}
	defer out.Close()
	if err := memory.CopyToDeviceAsync(s, in, host); err != nil {
		log.Fatal(err)
	}

	m, err := module.Compile(cc, scaleSource, module.Options{}) // NVRTC, cached on disk
	if err != nil {
		log.Fatal(err) // a *module.CompileError carries NVRTC's log
	}
	defer m.Close()
	f, err := m.Function("scale")
	if err != nil {
		log.Fatal(err)
	}
	cfg := module.Config{Grid: module.Cover(n, 256), Block: module.Dim(256)}
	if err := f.Launch(s, cfg, out, in, float32(2), int32(n)); err != nil {
		log.Fatal(err) // arguments are checked against the kernel's parameters
	}
	got := make([]float32, n)
	if err := memory.CopyToHostAsync(s, got, out); err != nil {
		log.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(got)
	// Output: [2 4 6 8 10 12 14 16]
}

// scaleSource is the examples' kernel: out[i] = k*in[i] for i < n.
const scaleSource = `extern "C" __global__ void scale(float* out, const float* in, float k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = k * in[i];
}
`

// scaleBody is scale's body in Go, for the fake driver: one thread's work.
func scaleBody(t fake.Thread, out, in fake.Ptr, k float32, n int32) {
	if i := t.X(); i < int(n) {
		fake.Store(t, out, i, k*fake.Load[float32](t, in, i))
	}
}

// The classic PyCUDA + PyTorch workflow, in Go: another library (PyTorch, a
// C library) owns the device memory and the stream; this program compiles a
// kernel at run time and applies it to that memory, on that stream, without
// taking ownership of either.
//
// The example runs on the fake driver, with the kernel's Go body; with
// drv, err := gpu.Load() instead it runs unchanged on a GPU.
func Example() {
	drv := fake.New(fake.Kernel("scale", scaleBody))
	dev, _ := drv.Device(0)
	cc, err := dev.PrimaryContext()
	if err != nil {
		log.Fatal(err)
	}
	defer cc.Close()

	// The foreign library's memory and stream, made by raw driver calls.
	const n = 8
	ptrIn, ptrOut, torchStream := foreignAlloc(cc, n)

	// Borrow the memory and wrap the stream: nothing here frees or
	// destroys them.
	s, err := stream.Wrap(cc, torchStream) // Close only detaches
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	in, err := memory.Borrow[float32](cc, ptrIn, n, nil) // Close never frees ptrIn
	if err != nil {
		log.Fatal(err)
	}
	defer in.Close()
	out, err := memory.Borrow[float32](cc, ptrOut, n, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer out.Close()

	host := []float32{1, 2, 3, 4, 5, 6, 7, 8}
	if err := memory.CopyToDeviceAsync(s, in, host); err != nil {
		log.Fatal(err)
	}

	// Compile scale for the device and launch it on the wrapped stream.
	// (The fake compiles instantly, so the example skips the on-disk
	// cache; programs normally leave it on.)
	m, err := module.Compile(cc, scaleSource, module.Options{Name: "scale.cu", NoCache: true})
	if err != nil {
		log.Fatal(err) // a *module.CompileError prints NVRTC's log
	}
	defer m.Close()
	fmt.Printf("compiled scale for %s (%s)\n", m.Arch(), m.Kind())
	f, err := m.Function("scale")
	if err != nil {
		log.Fatal(err)
	}
	cfg := module.Config{Grid: module.Cover(n, 256), Block: module.Dim(256)}
	if err := f.Launch(s, cfg, out, in, float32(0.5), int32(n)); err != nil {
		log.Fatal(err) // a float64 or int for n would be module.ErrArgs
	}

	got := make([]float32, n)
	if err := memory.CopyToHostAsync(s, got, out); err != nil {
		log.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("in: ", host)
	fmt.Println("out:", got)

	// The foreign library frees its own memory and stream.
	foreignFree(cc, ptrIn, ptrOut, torchStream)
	// Output:
	// compiled scale for sm_90 (CUBIN)
	// in:  [1 2 3 4 5 6 7 8]
	// out: [0.5 1 1.5 2 2.5 3 3.5 4]
}

// foreignAlloc stands for another library allocating device memory and
// creating a stream with raw driver calls.
func foreignAlloc(cc *driver.Context, n int) (in, out, s uintptr) {
	api, unbind := foreignBind(cc)
	defer unbind()
	var err error
	if in, err = api.MemAlloc(uintptr(n) * 4); err != nil {
		log.Fatal(err)
	}
	if out, err = api.MemAlloc(uintptr(n) * 4); err != nil {
		log.Fatal(err)
	}
	if s, err = api.StreamCreateWithPriority(backend.StreamNonBlocking, 0); err != nil {
		log.Fatal(err)
	}
	return in, out, s
}

// foreignBind makes cc current on the calling OS thread for raw calls on
// the backend under cc's driver (the fake's, here; another library would
// use its own bindings), until unbind.
func foreignBind(cc *driver.Context) (api backend.API, unbind func()) {
	fb := fake.Of(cc.Driver()).Backend()
	runtime.LockOSThread()
	if err := fb.CtxPushCurrent(cc.Handle()); err != nil {
		log.Fatal(err)
	}
	return fb, func() {
		fb.CtxPopCurrent()
		runtime.UnlockOSThread()
	}
}

func foreignFree(cc *driver.Context, in, out, s uintptr) {
	api, unbind := foreignBind(cc)
	defer unbind()
	api.StreamDestroy(s)
	api.MemFree(in)
	api.MemFree(out)
}

// Prepared arguments: checked and laid out once, then launched many times
// with no allocation, changing one argument in place between launches.
func ExampleFunction_Args() {
	drv := fake.New(fake.Kernel("scale", scaleBody))
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	s, _ := stream.New(cc, stream.Options{})
	defer s.Close()

	const n = 1000
	in, _ := memory.Alloc[float32](cc, n)
	defer in.Close()
	out, _ := memory.Alloc[float32](cc, n)
	defer out.Close()
	input := make([]float32, n)
	for i := range input {
		input[i] = float32(i)
	}
	memory.CopyToDevice(in, input)

	m, err := module.Compile(cc, scaleSource, module.Options{NoCache: true})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	f, _ := m.Function("scale")
	args, err := f.Args(out, in, float32(1), int32(n)) // checked once, laid out and pinned
	if err != nil {
		log.Fatal(err)
	}
	cfg := module.Config{Grid: module.Cover(n, 128), Block: module.Dim(128)}
	for _, k := range []float32{2, 3, 10} {
		if err := args.Set(2, k); err != nil { // a new factor, in place
			log.Fatal(err)
		}
		if err := f.LaunchArgs(s, cfg, args); err != nil {
			log.Fatal(err)
		}
	}
	got := make([]float32, n)
	memory.CopyToHostAsync(s, got, out)
	s.Synchronize()
	fmt.Println(got[1], got[999]) // the last launch scaled by 10

	// A mismatched argument is refused before anything reaches the driver.
	fmt.Println(args.Set(3, math.Pi))
	// Output:
	// 10 9990
	// module.Args.Set: kernel scale: argument 3 (int n): a float64 of 8 bytes for a .u32 parameter: pass an int32 (parameter 3: 4 bytes at offset 20, from cuFuncGetParamInfo): module: launch arguments do not match the kernel's parameters
}
