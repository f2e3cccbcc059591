package fake_test

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
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

// A kernel registered with the fake is compiled by the fake NVRTC, loaded
// and launched through the raw seam like on a GPU.
func Example() {
	drv := fake.New(fake.Kernel("saxpy", saxpy))
	dev, _ := drv.Device(0)
	ctx, _ := dev.PrimaryContext()
	defer ctx.Close()

	api := fake.Of(drv) // the raw seam under drv
	nv, _ := api.NVRTC()
	prog, _ := nv.CreateProgram(saxpySrc, "saxpy.cu", nil, nil)
	if err := nv.Compile(prog, []string{"--gpu-architecture=sm_90"}); err != nil {
		log, _ := nv.ProgramLog(prog)
		fmt.Println(err, log)
		return
	}
	ptx, _ := nv.PTX(prog)
	nv.DestroyProgram(prog)

	runtime.LockOSThread() // raw calls use the calling thread's current context
	defer runtime.UnlockOSThread()
	api.CtxPushCurrent(ctx.Handle())
	defer api.CtxPopCurrent()
	mod, _ := api.ModuleLoadData(ptx)
	defer api.ModuleUnload(mod)
	fn, _ := api.ModuleGetFunction(mod, "saxpy")

	xs := []float32{1, 2, 3, 4}
	ys := []float32{10, 20, 30, 40}
	x, _ := api.MemAlloc(16)
	y, _ := api.MemAlloc(16)
	defer api.MemFree(x)
	defer api.MemFree(y)
	api.MemcpyHtoD(x, unsafe.Pointer(&xs[0]), 16)
	api.MemcpyHtoD(y, unsafe.Pointer(&ys[0]), 16)

	a, n := float32(2), int32(len(xs))
	params := []unsafe.Pointer{unsafe.Pointer(&a), unsafe.Pointer(&x), unsafe.Pointer(&y), unsafe.Pointer(&n)}
	err := api.LaunchKernel(fn, [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, 0, backend.StreamNull, unsafe.Pointer(&params[0]))
	fmt.Println("launch:", err)
	api.MemcpyDtoH(unsafe.Pointer(&ys[0]), y, 16) // waits for the launch
	fmt.Println(ys)
	// Output:
	// launch: <nil>
	// [12 24 36 48]
}

// Kernel bodies are bounds-checked: an access outside every allocation
// fails the launch like an illegal address on a GPU.
func ExampleLoad() {
	drv := fake.New(fake.Kernel("peek", func(t fake.Thread, p fake.Ptr) {
		_ = fake.Load[int32](t, p, t.X())
	}))
	dev, _ := drv.Device(0)
	ctx, _ := dev.PrimaryContext()
	defer ctx.Close()
	api := fake.Of(drv)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	api.CtxPushCurrent(ctx.Handle())
	defer api.CtxPopCurrent()
	mod, _ := api.ModuleLoadData([]byte(".version 8.8\n.target sm_90\n.visible .entry peek(.param .u64 p)\n{\n\tret;\n}\n"))
	defer api.ModuleUnload(mod)
	fn, _ := api.ModuleGetFunction(mod, "peek")
	p, _ := api.MemAlloc(8) // two int32
	defer api.MemFree(p)
	params := []unsafe.Pointer{unsafe.Pointer(&p)}
	api.LaunchKernel(fn, [3]uint32{1, 1, 1}, [3]uint32{3, 1, 1}, 0, backend.StreamNull, unsafe.Pointer(&params[0]))
	fmt.Println(api.CtxSynchronize())
	// Output:
	// CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered
}

// FailNth makes one call fail, to test error paths.
func ExampleFailNth() {
	drv := fake.New(fake.FailNth("cuMemAlloc", 1, driver.ErrOutOfMemory))
	dev, _ := drv.Device(0)
	ctx, _ := dev.PrimaryContext()
	defer ctx.Close()
	api := fake.Of(drv)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	api.CtxPushCurrent(ctx.Handle())
	defer api.CtxPopCurrent()
	_, err := api.MemAlloc(64)
	fmt.Println(err)
	p, err := api.MemAlloc(64)
	fmt.Println(err, api.Leaks()[1])
	api.MemFree(p)
	// Output:
	// CUDA_ERROR_OUT_OF_MEMORY: out of memory
	// <nil> device memory 0x300000000000: 64 bytes on device 0 not freed
}
