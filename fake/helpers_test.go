package fake

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
)

// bound returns an initialised backend with device 0's primary context
// current on the calling goroutine's locked OS thread, undone at the end of
// the test.
func bound(t *testing.T, opts ...Option) *fakeBackend {
	t.Helper()
	b := newBackend(opts...)
	require.NoError(t, b.Init(0))
	runtime.LockOSThread()
	ctx, err := b.DevicePrimaryCtxRetain(0)
	require.NoError(t, err)
	require.NoError(t, b.CtxPushCurrent(ctx))
	t.Cleanup(func() {
		b.CtxPopCurrent()
		b.DevicePrimaryCtxRelease(0)
		runtime.UnlockOSThread()
	})
	return b
}

// args builds a kernelParams array: one pointer per argument.
func args(vals ...unsafe.Pointer) unsafe.Pointer {
	return unsafe.Pointer(&vals[0])
}

// readDevice copies n bytes of device memory to the host.
func readDevice(t *testing.T, b *fakeBackend, p uintptr, n int) []byte {
	t.Helper()
	out := make([]byte, n)
	require.NoError(t, b.MemcpyDtoH(unsafe.Pointer(&out[0]), p, uintptr(n)))
	return out
}

// readF32 reads n float32 values of device memory.
func readF32(t *testing.T, b *fakeBackend, p uintptr, n int) []float32 {
	t.Helper()
	out := make([]float32, n)
	require.NoError(t, b.MemcpyDtoH(unsafe.Pointer(&out[0]), p, uintptr(4*n)))
	return out
}

// writeF32 copies vals to device memory.
func writeF32(t *testing.T, b *fakeBackend, p uintptr, vals []float32) {
	t.Helper()
	require.NoError(t, b.MemcpyHtoD(p, unsafe.Pointer(&vals[0]), uintptr(4*len(vals))))
}

// load compiles src with the fake NVRTC for sm_90 and loads it in the
// current context.
func load(t *testing.T, b *fakeBackend, src string) uintptr {
	t.Helper()
	nv, err := b.NVRTC()
	require.NoError(t, err)
	p, err := nv.CreateProgram(src, "k.cu", nil, nil)
	require.NoError(t, err)
	defer nv.DestroyProgram(p)
	if err := nv.Compile(p, []string{"--gpu-architecture=sm_90"}); err != nil {
		log, _ := nv.ProgramLog(p)
		t.Fatalf("compile: %v\n%s", err, log)
	}
	ptx, err := nv.PTX(p)
	require.NoError(t, err)
	m, err := b.ModuleLoadData(ptx)
	require.NoError(t, err)
	t.Cleanup(func() { b.ModuleUnload(m) })
	return m
}

// loadCUBIN is load, through the compiler's CUBIN for sm_90 (which the
// driver loads whatever its PTX ISA version).
func loadCUBIN(t *testing.T, b *fakeBackend, src string) uintptr {
	t.Helper()
	nv, err := b.NVRTC()
	require.NoError(t, err)
	p, err := nv.CreateProgram(src, "k.cu", nil, nil)
	require.NoError(t, err)
	defer nv.DestroyProgram(p)
	if err := nv.Compile(p, []string{"--gpu-architecture=sm_90"}); err != nil {
		log, _ := nv.ProgramLog(p)
		t.Fatalf("compile: %v\n%s", err, log)
	}
	cubin, err := nv.CUBIN(p)
	require.NoError(t, err)
	m, err := b.ModuleLoadData(cubin)
	require.NoError(t, err)
	t.Cleanup(func() { b.ModuleUnload(m) })
	return m
}

var _ = driver.ErrInvalidValue

// ptr is unsafe.Pointer(p), to build kernel parameter arrays.
func ptr[T any](p *T) unsafe.Pointer { return unsafe.Pointer(p) }

// lockThread locks the test goroutine to its OS thread until the test ends.
func lockThread(t *testing.T) {
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
}

func runtimeLock()   { runtime.LockOSThread() }
func runtimeUnlock() { runtime.UnlockOSThread() }
