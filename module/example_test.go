package module_test

import (
	"fmt"
	"log"
	"math"
	"runtime"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/internal/segscale"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// The classic PyCUDA + PyTorch workflow, in Go: another library (PyTorch, a
// C library) owns the device memory and the stream; this program compiles a
// kernel at run time and applies it to that memory, on that stream, without
// taking ownership of either.
//
// The example runs on the fake driver, with the kernel's Go body; with
// drv, err := driver.Load() instead it runs unchanged on a GPU.
func Example() {
	drv := fake.New(fake.Devices(1), segscale.FakeKernel())
	dev, _ := drv.Device(0)
	ctx, err := dev.PrimaryContext()
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Close()

	// The foreign library's memory and stream, made by raw driver calls.
	const n = 8
	rawIn, rawOut, rawStream := foreignAlloc(ctx, n)

	// Borrow the memory and wrap the stream: nothing here frees or
	// destroys them.
	in, err := memory.Borrow[float32](ctx, rawIn, n, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer in.Close()
	out, err := memory.Borrow[float32](ctx, rawOut, n, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer out.Close()
	s, err := stream.Wrap(ctx, rawStream)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	host := []float32{1, 2, 3, 4, 5, 6, 7, 8}
	if err := memory.CopyToDeviceAsync(s, in, host); err != nil {
		log.Fatal(err)
	}

	// Compile segment_scale for the device and launch it on the wrapped
	// stream. (The fake compiles instantly, so the example skips the
	// on-disk cache; programs normally leave it on.)
	m, err := module.Compile(ctx, segscale.Source, module.Options{Name: "segment_scale.cu", NoCache: true})
	if err != nil {
		log.Fatal(err) // a *module.CompileError prints NVRTC's log
	}
	defer m.Close()
	fmt.Printf("compiled %s for %s (%s)\n", segscale.Name, m.Arch(), m.Kind())
	f, err := m.Function(segscale.Name)
	if err != nil {
		log.Fatal(err)
	}
	cfg := module.Config{Grid: module.Cover(n, 256), Block: module.Dim(256)}
	if err := f.Launch(s, cfg, out, in, int32(n)); err != nil {
		log.Fatal(err) // a float64 or int for n would be module.ErrArgs
	}

	got := make([]float32, n)
	if err := memory.CopyToHostAsync(s, got, out); err != nil {
		log.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		log.Fatal(err)
	}
	want := make([]float32, n)
	segscale.Reference(want, host)
	fmt.Println("in: ", host)
	fmt.Println("out:", got)
	fmt.Println("matches the Go reference:", segscale.Compare(got, want) == nil)

	// The foreign library frees its own memory and stream.
	foreignFree(ctx, rawIn, rawOut, rawStream)
	// Output:
	// compiled segment_scale for sm_90 (CUBIN)
	// in:  [1 2 3 4 5 6 7 8]
	// out: [0.5 1 3 4 5 6 14 16]
	// matches the Go reference: true
}

// foreignAlloc stands for another library allocating device memory and
// creating a stream with raw driver calls.
func foreignAlloc(ctx *driver.Context, n int) (in, out, s uintptr) {
	api, unbind := foreignBind(ctx)
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

// foreignBind makes ctx current on the calling OS thread for raw calls on
// the backend under ctx's driver (the fake's, here; another library would
// use its own bindings), until unbind.
func foreignBind(ctx *driver.Context) (api backend.API, unbind func()) {
	fb := fake.Of(ctx.Driver())
	runtime.LockOSThread()
	if err := fb.CtxPushCurrent(ctx.Handle()); err != nil {
		log.Fatal(err)
	}
	return fb, func() {
		fb.CtxPopCurrent()
		runtime.UnlockOSThread()
	}
}

func foreignFree(ctx *driver.Context, in, out, s uintptr) {
	api, unbind := foreignBind(ctx)
	defer unbind()
	api.StreamDestroy(s)
	api.MemFree(in)
	api.MemFree(out)
}

// Prepared arguments: checked and laid out once, then launched many times
// with no allocation, changing one argument in place between launches.
func ExampleFunction_Args() {
	drv := fake.New(fake.Devices(1), segscale.FakeKernel())
	dev, _ := drv.Device(0)
	ctx, _ := dev.PrimaryContext()
	defer ctx.Close()
	s, _ := stream.New(ctx, stream.Options{})
	defer s.Close()

	const n = 1000
	in, _ := memory.Alloc[float32](ctx, n)
	defer in.Close()
	out, _ := memory.Alloc[float32](ctx, n)
	defer out.Close()
	memory.CopyToDevice(in, segscale.Input(n))

	m, err := module.Compile(ctx, segscale.Source, module.Options{NoCache: true})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	f, _ := m.Function(segscale.Name)
	args, err := f.Args(out, in, int32(n)) // checked once, laid out and pinned
	if err != nil {
		log.Fatal(err)
	}
	cfg := module.Config{Grid: module.Cover(n, 128), Block: module.Dim(128)}
	for _, k := range []int32{n, n / 2, n / 10} {
		if err := args.Set(2, k); err != nil { // segment_scale over the first k elements
			log.Fatal(err)
		}
		if err := f.LaunchArgs(s, cfg, args); err != nil {
			log.Fatal(err)
		}
	}
	got := make([]float32, n)
	memory.CopyToHostAsync(s, got, out)
	s.Synchronize()
	// The last launch covered 100 elements: element 0 is halved (first
	// quarter), element 99 doubled (last quarter of 100).
	input := segscale.Input(n)
	fmt.Println(got[0] == input[0]*0.5, got[99] == input[99]*2)

	// A mismatched argument is refused before anything reaches the driver.
	fmt.Println(args.Set(2, math.Pi))
	// Output:
	// true true
	// module.Args.Set: kernel segment_scale: argument 2 is a float64 of 8 bytes, but the parameter takes 4 bytes (parameter 2: 4 bytes at offset 16, from cuFuncGetParamInfo): launch arguments do not match the kernel's parameters
}
