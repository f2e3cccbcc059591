package libcuda_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver/backend"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/internal/callback"
	"github.com/nocgo/cuda/stream"
)

// binding is a context made current on the calling goroutine's locked OS
// thread with raw calls; a zero binding unbinds nothing.
type binding struct {
	api    backend.API
	pushed bool
}

// bindCtx locks the OS thread and pushes ctx there unless it is current.
func bindCtx(api backend.API, ctx *driver.Context) (binding, error) {
	runtime.LockOSThread()
	cur, err := api.CtxGetCurrent()
	if err == nil && cur == ctx.Handle() {
		return binding{api: api}, nil
	}
	if err == nil {
		err = api.CtxPushCurrent(ctx.Handle())
	}
	if err != nil {
		runtime.UnlockOSThread()
		return binding{}, err
	}
	return binding{api: api, pushed: true}, nil
}

// Unbind pops what bindCtx pushed and unlocks the thread.
func (b binding) Unbind() {
	if b.api == nil {
		return
	}
	if b.pushed {
		b.api.CtxPopCurrent()
	}
	runtime.UnlockOSThread()
}

// realSetup loads the real driver (skipping without one), retains device
// 0's primary context and creates a non-blocking stream in it.
func realSetup(t *testing.T) (*driver.Driver, *driver.Context, backend.API, uintptr) {
	t.Helper()
	api := cudatest.RealBackend(t)
	drv, err := driver.New(api)
	require.NoError(t, err)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	t.Cleanup(func() { ctx.Close() })
	b, err := bindCtx(api, ctx)
	require.NoError(t, err)
	s, err := api.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
	b.Unbind()
	require.NoError(t, err)
	t.Cleanup(func() { api.StreamDestroy(s) })
	return drv, ctx, api, s
}

func TestRealLibcudaBackend(t *testing.T) {
	drv, ctx, api, s := realSetup(t)

	paths := drv.LibraryPaths()
	require.NotEmpty(t, paths)
	assert.True(t, filepath.IsAbs(paths[0]), "libcuda path %q", paths[0])
	v, err := drv.Version()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, v, 11030)

	// The driver's own descriptions are installed.
	assert.Equal(t, "CUDA_ERROR_NOT_READY: device not ready", driver.ErrNotReady.Error())

	t.Run("device", func(t *testing.T) {
		dev := ctx.Device()
		name, err := dev.Name()
		require.NoError(t, err)
		assert.NotEmpty(t, name)
		assert.NotContains(t, name, "\x00")
		mem, err := dev.TotalMemory()
		require.NoError(t, err)
		assert.Positive(t, mem)
		bus, err := dev.PCIBusID()
		require.NoError(t, err)
		assert.Regexp(t, `^[0-9a-fA-F]+:[0-9a-fA-F]+:[0-9a-fA-F]+\.[0-9a-fA-F]$`, bus)
		uuid, err := api.DeviceGetUUID(dev.Handle())
		require.NoError(t, err)
		assert.NotEqual(t, [16]byte{}, uuid)
		major, _, err := dev.ComputeCapability()
		require.NoError(t, err)
		assert.GreaterOrEqual(t, major, 3)
		_, err = api.DeviceGet(99)
		assert.ErrorIs(t, err, driver.ErrInvalidDevice)
	})

	t.Run("context", func(t *testing.T) {
		flags, active, err := api.DevicePrimaryCtxGetState(ctx.Device().Handle())
		require.NoError(t, err)
		assert.True(t, active)
		assert.Zero(t, flags&^0xff)
		api2, err := api.CtxGetAPIVersion(ctx.Handle())
		require.NoError(t, err)
		assert.GreaterOrEqual(t, api2, uint32(3020))

		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		require.NoError(t, api.CtxPushCurrent(ctx.Handle()))
		cur, err := api.CtxGetCurrent()
		assert.NoError(t, err)
		assert.Equal(t, ctx.Handle(), cur)
		d, err := api.CtxGetDevice()
		assert.NoError(t, err)
		assert.Equal(t, ctx.Device().Handle(), d)
		least, greatest, err := api.CtxGetStreamPriorityRange()
		assert.NoError(t, err)
		assert.LessOrEqual(t, greatest, least)
		assert.NoError(t, api.CtxSynchronize())
		popped, err := api.CtxPopCurrent()
		require.NoError(t, err)
		assert.Equal(t, ctx.Handle(), popped)

		own, err := api.CtxCreate(0, ctx.Device().Handle())
		require.NoError(t, err)
		cur, _ = api.CtxGetCurrent()
		assert.Equal(t, own, cur, "cuCtxCreate pushes the new context")
		popped, err = api.CtxPopCurrent()
		require.NoError(t, err)
		assert.Equal(t, own, popped)
		assert.NoError(t, api.CtxDestroy(own))
		_, err = api.CtxGetAPIVersion(own)
		assert.ErrorIs(t, err, driver.ErrInvalidContext)
	})

	t.Run("stream", func(t *testing.T) {
		c, err := api.StreamGetCtx(s)
		require.NoError(t, err)
		assert.Equal(t, ctx.Handle(), c)
		f, err := api.StreamGetFlags(s)
		require.NoError(t, err)
		assert.Equal(t, backend.StreamNonBlocking, f)
		p, err := api.StreamGetPriority(s)
		require.NoError(t, err)
		assert.Zero(t, p)
		assert.NoError(t, api.StreamSynchronize(s))
		assert.NoError(t, api.StreamQuery(s))
	})

	t.Run("host functions", func(t *testing.T) {
		base := callback.Pending()
		const n = 3000 // more than purego's C callback slots
		order := make([]int, 0, n)
		done := make(chan struct{})
		for i := 0; i < n; i++ {
			require.NoError(t, api.LaunchHostFunc(s, func() {
				order = append(order, i)
				if i == n-1 {
					close(done)
				}
			}))
		}
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("host functions did not run")
		}
		require.NoError(t, api.StreamSynchronize(s))
		require.Len(t, order, n)
		for i, v := range order {
			if v != i {
				t.Fatalf("host function %d ran as #%d", v, i)
			}
		}
		assert.Equal(t, base, callback.Pending())
	})

	t.Run("events", func(t *testing.T) {
		b, err := bindCtx(api, ctx)
		require.NoError(t, err)
		start, err1 := api.EventCreate(backend.EventDefault)
		end, err2 := api.EventCreate(backend.EventDefault)
		ipc, err3 := api.EventCreate(backend.EventInterprocess | backend.EventDisableTiming)
		b.Unbind()
		require.NoError(t, errors.Join(err1, err2, err3))
		defer api.EventDestroy(start)
		defer api.EventDestroy(end)
		defer api.EventDestroy(ipc)

		require.NoError(t, api.EventRecord(start, s))
		require.NoError(t, api.LaunchHostFunc(s, func() { time.Sleep(2 * time.Millisecond) }))
		require.NoError(t, api.EventRecord(end, s))
		require.NoError(t, api.EventSynchronize(end))
		assert.NoError(t, api.EventQuery(end))
		ms, err := api.EventElapsedTime(start, end)
		require.NoError(t, err, "cuEventElapsedTime needs no current context")
		assert.GreaterOrEqual(t, ms, float32(1), "the 2 ms host function ran between the events")

		require.NoError(t, api.StreamWaitEvent(s, end, 0))
		_, err = api.IPCGetEventHandle(ipc)
		assert.ErrorIs(t, err, driver.ErrInvalidContext, "measured: cuIpcGetEventHandle needs a current context")
		b, err = bindCtx(api, ctx)
		require.NoError(t, err)
		h, err := api.IPCGetEventHandle(ipc)
		b.Unbind()
		require.NoError(t, err)
		assert.NotEqual(t, driver.IPCHandle{}, h)
		// Opening in the process that made it is refused (measured: 201).
		_, err = api.IPCOpenEventHandle(h)
		assert.ErrorIs(t, err, driver.ErrInvalidContext)
	})

	t.Run("memory", func(t *testing.T) {
		b, err := bindCtx(api, ctx)
		require.NoError(t, err)
		defer b.Unbind()
		p, err := api.MemAlloc(1000)
		require.NoError(t, err)
		defer api.MemFree(p)
		q, err := api.MemAlloc(1000)
		require.NoError(t, err)
		defer api.MemFree(q)

		require.NoError(t, api.MemsetD32(p, 0xdeadbeef, 250))
		host := make([]byte, 1000)
		require.NoError(t, api.MemcpyDtoH(unsafe.Pointer(&host[0]), p, 1000))
		assert.Equal(t, uint32(0xdeadbeef), binary.LittleEndian.Uint32(host[996:]))

		for i := range host {
			host[i] = byte(i * 7)
		}
		require.NoError(t, api.MemcpyHtoD(p, unsafe.Pointer(&host[0]), 1000))
		require.NoError(t, api.MemcpyDtoD(q, p, 1000))
		back := make([]byte, 1000)
		require.NoError(t, api.MemcpyDtoH(unsafe.Pointer(&back[0]), q, 1000))
		assert.Equal(t, host, back)

		require.NoError(t, api.MemsetD8Async(q, 0x5a, 1000, s))
		require.NoError(t, api.MemsetD16Async(q, 0x1234, 2, s))
		require.NoError(t, api.MemcpyDtoHAsync(unsafe.Pointer(&back[0]), q, 1000, s))
		require.NoError(t, api.StreamSynchronize(s))
		assert.Equal(t, []byte{0x34, 0x12, 0x34, 0x12, 0x5a}, back[:5])
		require.NoError(t, api.MemsetD32Async(q, 7, 250, s))
		require.NoError(t, api.MemcpyDtoDAsync(p, q, 1000, s))
		require.NoError(t, api.MemcpyDtoHAsync(unsafe.Pointer(&back[0]), p, 1000, s))
		require.NoError(t, api.StreamSynchronize(s))
		assert.Equal(t, uint32(7), binary.LittleEndian.Uint32(back[500:]))

		base, size, err := api.MemGetAddressRange(p + 100)
		require.NoError(t, err)
		assert.Equal(t, p, base)
		assert.Equal(t, uintptr(1000), size)
		owner, err := api.PointerGetAttribute(backend.PointerAttrContext, p)
		require.NoError(t, err)
		assert.Equal(t, uint64(ctx.Handle()), owner)
		mt, err := api.PointerGetAttribute(backend.PointerAttrMemoryType, p)
		require.NoError(t, err)
		assert.Equal(t, uint64(backend.MemoryTypeDevice), mt)
		ord, err := api.PointerGetAttribute(backend.PointerAttrDeviceOrdinal, p)
		require.NoError(t, err)
		assert.Equal(t, uint64(ctx.Device().Ordinal()), ord)
		rs, err := api.PointerGetAttribute(backend.PointerAttrRangeSize, p+8)
		require.NoError(t, err)
		assert.Equal(t, uint64(1000), rs)

		free, total, err := api.MemGetInfo()
		require.NoError(t, err)
		assert.Positive(t, free)
		assert.LessOrEqual(t, free, total)

		pinned, err := api.MemHostAlloc(4096, backend.MemHostAllocPortable)
		require.NoError(t, err)
		require.NotNil(t, pinned)
		require.NoError(t, api.MemcpyHtoDAsync(p, unsafe.Pointer(&host[0]), 1000, s))
		require.NoError(t, api.MemcpyDtoHAsync(pinned, p, 1000, s))
		require.NoError(t, api.StreamSynchronize(s))
		assert.Equal(t, host, unsafe.Slice((*byte)(pinned), 1000))
		mt, err = api.PointerGetAttribute(backend.PointerAttrMemoryType, uintptr(pinned))
		require.NoError(t, err)
		assert.Equal(t, uint64(backend.MemoryTypeHost), mt)
		require.NoError(t, api.MemFreeHost(pinned))

		a, err := api.MemAllocAsync(1000, s)
		require.NoError(t, err)
		require.NoError(t, api.MemsetD8Async(a, 1, 1000, s))
		require.NoError(t, api.MemFreeAsync(a, s))
		require.NoError(t, api.StreamSynchronize(s))

		h, err := api.IPCGetMemHandle(p)
		require.NoError(t, err)
		assert.NotEqual(t, driver.IPCHandle{}, h)
		// Opening in the process that made it is refused (measured: 201);
		// the handle travels by value, so a wrong ABI would show here.
		_, err = api.IPCOpenMemHandle(h, backend.IPCMemLazyEnablePeerAccess)
		assert.ErrorIs(t, err, driver.ErrInvalidContext)

		assert.ErrorIs(t, api.MemsetD32(p+2, 0, 1), driver.ErrInvalidValue, "misaligned")
	})
}

const realKernels = `
#include "scale.h"
extern "C" __global__ void scale(float *out, const float *in, unsigned n) {
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) out[i] = in[i] * SCALE;
}
template <typename T> __global__ void fill(T *x, T v) { x[threadIdx.x] = v; }
`

func compileReal(t *testing.T, nv backend.NVRTC, src string, exprs []string, opts ...string) (uintptr, error) {
	t.Helper()
	prog, err := nv.CreateProgram(src, "real_test.cu", []string{"#define SCALE 3.0f\n"}, []string{"scale.h"})
	require.NoError(t, err)
	t.Cleanup(func() { nv.DestroyProgram(prog) })
	for _, e := range exprs {
		require.NoError(t, nv.AddNameExpression(prog, e))
	}
	return prog, nv.Compile(prog, opts)
}

func TestRealNVRTCAndLaunch(t *testing.T) {
	drv, ctx, api, s := realSetup(t)
	nv, err := api.(backend.NVRTCProvider).NVRTC()
	if err != nil {
		t.Skipf("no libnvrtc: %v", err)
	}
	nv2, err := api.(backend.NVRTCProvider).NVRTC()
	require.NoError(t, err)
	assert.Same(t, nv, nv2, "backend.NVRTC opens once")
	assert.Len(t, drv.LibraryPaths(), 2)

	major, minor, err := nv.Version()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, major, 11)
	t.Logf("backend.NVRTC %d.%d from %s", major, minor, drv.LibraryPaths()[1])

	ccMajor, ccMinor, err := ctx.Device().ComputeCapability()
	require.NoError(t, err)
	prog, err := compileReal(t, nv, realKernels, []string{"fill<int>"},
		fmt.Sprintf("--gpu-architecture=sm_%d%d", ccMajor, ccMinor), "-default-device")
	if err != nil {
		log, _ := nv.ProgramLog(prog)
		t.Fatalf("compile: %v\n%s", err, log)
	}
	cubin, err := nv.CUBIN(prog)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(cubin, []byte("\x7fELF")))
	lowered, err := nv.LoweredName(prog, "fill<int>")
	require.NoError(t, err)
	assert.Contains(t, lowered, "fill")
	assert.True(t, len(lowered) > 2 && lowered[:2] == "_Z", lowered)

	b, err := bindCtx(api, ctx)
	require.NoError(t, err)
	mod, err := api.ModuleLoadData(cubin)
	require.NoError(t, err)
	defer func() {
		b, _ := bindCtx(api, ctx)
		api.ModuleUnload(mod)
		b.Unbind()
	}()
	fn, err := api.ModuleGetFunction(mod, "scale")
	require.NoError(t, err)
	_, err = api.ModuleGetFunction(mod, "no_such_kernel")
	assert.ErrorIs(t, err, driver.ErrNotFound)
	fillInt, err := api.ModuleGetFunction(mod, lowered)
	require.NoError(t, err)
	const n = 1000
	in, err := api.MemAlloc(4 * n)
	require.NoError(t, err)
	out, err := api.MemAlloc(4 * n)
	require.NoError(t, err)
	b.Unbind()
	defer api.MemFree(in)
	defer api.MemFree(out)

	for i, want := range [][2]uintptr{{0, 8}, {8, 8}, {16, 4}} {
		off, size, err := api.FuncGetParamInfo(fn, i)
		require.NoError(t, err)
		assert.Equal(t, want, [2]uintptr{off, size}, "param %d", i)
	}
	_, _, err = api.FuncGetParamInfo(fn, 3)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	maxThreads, err := api.FuncGetAttribute(backend.FuncMaxThreadsPerBlock, fn)
	require.NoError(t, err)
	assert.Positive(t, maxThreads)
	carveout, err := api.FuncGetAttribute(backend.FuncPreferredSharedCarveout, fn)
	require.NoError(t, err)
	assert.Equal(t, -1, carveout, "a negative C int comes back negative")
	_, _, err = api.OccupancyMaxPotentialBlockSize(fn, 0, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidContext, "measured: the occupancy calculator needs a current context")
	b, err = bindCtx(api, ctx)
	require.NoError(t, err)
	minGrid, block, err := api.OccupancyMaxPotentialBlockSize(fn, 0, 0)
	b.Unbind()
	require.NoError(t, err)
	assert.Positive(t, minGrid)
	assert.Positive(t, block)
	require.NoError(t, api.FuncSetAttribute(fn, backend.FuncMaxDynamicSharedSize, 16384))

	host := make([]float32, n)
	for i := range host {
		host[i] = float32(i)
	}
	require.NoError(t, api.MemcpyHtoDAsync(in, unsafe.Pointer(&host[0]), 4*n, s))
	count := uint32(n)
	params := []unsafe.Pointer{unsafe.Pointer(&out), unsafe.Pointer(&in), unsafe.Pointer(&count)}
	require.NoError(t, api.LaunchKernel(fn, [3]uint32{(n + 255) / 256, 1, 1}, [3]uint32{256, 1, 1}, 0, s, unsafe.Pointer(&params[0])))
	res := make([]float32, n)
	require.NoError(t, api.MemcpyDtoHAsync(unsafe.Pointer(&res[0]), out, 4*n, s))
	require.NoError(t, api.StreamSynchronize(s))
	for i, v := range res {
		if v != 3*float32(i) {
			t.Fatalf("out[%d] = %v, want %v", i, v, 3*float32(i))
		}
	}
	runtime.KeepAlive(params)

	seven := int32(-7)
	fparams := []unsafe.Pointer{unsafe.Pointer(&out), unsafe.Pointer(&seven)}
	require.NoError(t, api.LaunchKernel(fillInt, [3]uint32{1, 1, 1}, [3]uint32{4, 1, 1}, 0, s, unsafe.Pointer(&fparams[0])))
	ints := make([]int32, 4)
	require.NoError(t, api.MemcpyDtoHAsync(unsafe.Pointer(&ints[0]), out, 16, s))
	require.NoError(t, api.StreamSynchronize(s))
	assert.Equal(t, []int32{-7, -7, -7, -7}, ints)
	runtime.KeepAlive(fparams)

	// A block larger than the device allows is refused before running.
	err = api.LaunchKernel(fn, [3]uint32{1, 1, 1}, [3]uint32{2048, 1, 1}, 0, s, unsafe.Pointer(&params[0]))
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	runtime.KeepAlive(params)
}

func TestRealNVRTCVirtualArchAndErrors(t *testing.T) {
	_, ctx, api, _ := realSetup(t)
	nv, err := api.(backend.NVRTCProvider).NVRTC()
	if err != nil {
		t.Skipf("no libnvrtc: %v", err)
	}
	ccMajor, ccMinor, err := ctx.Device().ComputeCapability()
	require.NoError(t, err)
	prog, err := compileReal(t, nv, realKernels, nil, fmt.Sprintf("--gpu-architecture=compute_%d%d", ccMajor, ccMinor))
	require.NoError(t, err)
	_, err = nv.CUBIN(prog)
	var nerr *backend.NVRTCError
	require.ErrorAs(t, err, &nerr, "no CUBIN for a virtual architecture")
	assert.Equal(t, backend.NVRTCErrorInvalidInput, nerr.Code)
	ptx, err := nv.PTX(prog)
	require.NoError(t, err)
	require.NotEmpty(t, ptx)
	assert.NotEqual(t, byte(0), ptx[len(ptx)-1], "PTX comes without its NUL")
	assert.Contains(t, string(ptx), ".entry scale")

	// PTX text without a NUL loads: the backend terminates it.
	b, err := bindCtx(api, ctx)
	require.NoError(t, err)
	mod, err := api.ModuleLoadData(ptx)
	require.NoError(t, err)
	_, err = api.ModuleGetFunction(mod, "scale")
	assert.NoError(t, err)
	assert.NoError(t, api.ModuleUnload(mod))
	_, err = api.ModuleLoadData([]byte("garbage"))
	assert.ErrorIs(t, err, driver.ErrInvalidImage)
	b.Unbind()

	bad, err := compileReal(t, nv, "__global__ void k() { undeclared(); }", nil)
	require.ErrorAs(t, err, &nerr)
	assert.Equal(t, backend.NVRTCErrorCompilation, nerr.Code)
	assert.Equal(t, "NVRTC_ERROR_COMPILATION", nerr.Name)
	assert.Equal(t, "nvrtcCompileProgram", nerr.Op)
	log, err := nv.ProgramLog(bad)
	require.NoError(t, err)
	assert.Contains(t, log, "undeclared")

	_, err = compileReal(t, nv, realKernels, nil, "--no-such-option")
	require.ErrorAs(t, err, &nerr)
	assert.Equal(t, backend.NVRTCErrorInvalidOption, nerr.Code)

	prog2, err := compileReal(t, nv, realKernels, nil)
	require.NoError(t, err)
	_, err = nv.LoweredName(prog2, "fill<float>")
	assert.ErrorAs(t, err, &nerr)
}

func TestRealHotPathsDoNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items, which allocates")
	}
	_, ctx, api, s := realSetup(t)
	b, err := bindCtx(api, ctx)
	require.NoError(t, err)
	ev, err := api.EventCreate(backend.EventDisableTiming)
	require.NoError(t, err)
	p, err := api.MemAlloc(256)
	require.NoError(t, err)
	b.Unbind()
	defer api.EventDestroy(ev)
	defer api.MemFree(p)
	host := make([]byte, 256)
	legacy, err := stream.Legacy(ctx)
	require.NoError(t, err)
	defer legacy.Close()

	calls := map[string]func() error{
		"StreamQuery":     func() error { return api.StreamQuery(s) },
		"EventRecord":     func() error { return api.EventRecord(ev, s) },
		"EventQuery":      func() error { return api.EventQuery(ev) },
		"StreamWaitEvent": func() error { return api.StreamWaitEvent(s, ev, 0) },
		"MemsetD32Async":  func() error { return api.MemsetD32Async(p, 1, 64, s) },
		"MemcpyHtoDAsync": func() error { return api.MemcpyHtoDAsync(p, unsafe.Pointer(&host[0]), 256, s) },
		"MemcpyDtoHAsync": func() error { return api.MemcpyDtoHAsync(unsafe.Pointer(&host[0]), p, 256, s) },
		"MemcpyDtoDAsync": func() error { return api.MemcpyDtoDAsync(p+128, p, 128, s) },
		"CtxGetCurrent":   func() error { _, err := api.CtxGetCurrent(); return err },
		"PushPop":         func() error { b, err := bindCtx(api, ctx); b.Unbind(); return err },
		"Legacy.Query":    func() error { _, err := legacy.Query(); return err }, // binds ctx

	}
	for name, call := range calls {
		require.NoError(t, call(), name)
		require.NoError(t, api.StreamSynchronize(s))
		allocs := testing.AllocsPerRun(100, func() {
			if err := call(); err != nil && !errors.Is(err, driver.ErrNotReady) {
				t.Fatalf("%s: %v", name, err)
			}
		})
		assert.Zero(t, allocs, name)
		require.NoError(t, api.StreamSynchronize(s))
	}
}
