package fake

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/loader"
)

func TestInitRequired(t *testing.T) {
	b := newBackend()
	_, err := b.DeviceGetCount()
	assert.ErrorIs(t, err, driver.ErrNotInitialized)
	v, err := b.DriverGetVersion()
	require.NoError(t, err, "cuDriverGetVersion works before cuInit")
	assert.Equal(t, 13000, v)
	require.NoError(t, b.Init(0))
	n, err := b.DeviceGetCount()
	require.NoError(t, err)
	assert.Equal(t, 1, n, "one device by default")
	assert.ErrorIs(t, newBackend(Devices(0)).Init(0), driver.ErrNoDevice)
}

func TestDevices(t *testing.T) {
	b := newBackend(Devices(2), WithDevice(DeviceSpec{Name: "Small", Major: 8, Minor: 6, SMs: 4, TotalMem: 1 << 20,
		Attrs: map[driver.DeviceAttribute]int{driver.AttrWarpSize: 16}}))
	require.NoError(t, b.Init(0))
	n, err := b.DeviceGetCount()
	require.NoError(t, err)
	require.Equal(t, 3, n)
	name, err := b.DeviceGetName(1)
	require.NoError(t, err)
	assert.Equal(t, "Fake CUDA Device 1", name)
	name, err = b.DeviceGetName(2)
	require.NoError(t, err)
	assert.Equal(t, "Small", name)
	for attr, want := range map[driver.DeviceAttribute]int{
		driver.AttrComputeCapabilityMajor: 8, driver.AttrComputeCapabilityMinor: 6,
		driver.AttrMultiprocessorCount: 4, driver.AttrWarpSize: 16,
	} {
		got, err := b.DeviceGetAttribute(attr, 2)
		require.NoError(t, err)
		assert.Equal(t, want, got, "attribute %d", attr)
	}
	mem, err := b.DeviceTotalMem(2)
	require.NoError(t, err)
	assert.Equal(t, uint64(1<<20), mem)
	u0, _ := b.DeviceGetUUID(0)
	u1, _ := b.DeviceGetUUID(1)
	assert.NotEqual(t, u0, u1)
	bus0, _ := b.DeviceGetPCIBusID(0)
	bus1, _ := b.DeviceGetPCIBusID(1)
	assert.NotEqual(t, bus0, bus1)
	assert.Regexp(t, `^0000:[0-9a-f]{2}:[0-9a-f]{2}\.0$`, bus0)
	dom, _ := b.DeviceGetAttribute(driver.AttrPCIDomainID, 0)
	bus, _ := b.DeviceGetAttribute(driver.AttrPCIBusID, 0)
	slot, _ := b.DeviceGetAttribute(driver.AttrPCIDeviceID, 0)
	assert.Equal(t, fmt.Sprintf("%04x:%02x:%02x.0", dom, bus, slot), bus0, "the bus id string is made of the PCI attributes")
	_, err = b.DeviceGet(3)
	assert.ErrorIs(t, err, driver.ErrInvalidDevice)
	_, err = b.DeviceGetAttribute(driver.DeviceAttribute(attrMax), 0)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	ok, err := b.DeviceCanAccessPeer(0, 1)
	require.NoError(t, err)
	assert.True(t, ok)
	ok, err = b.DeviceCanAccessPeer(0, 0)
	require.NoError(t, err)
	assert.False(t, ok)
}

func TestContextStackIsPerThread(t *testing.T) {
	b := newBackend(Devices(2))
	require.NoError(t, b.Init(0))
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			if cur, err := b.CtxGetCurrent(); err != nil || cur != 0 {
				errs <- errors.New("a fresh thread has a current context")
				return
			}
			own, err := b.CtxCreate(0, g%2)
			if err != nil {
				errs <- err
				return
			}
			for i := 0; i < 50; i++ {
				prim, err := b.DevicePrimaryCtxRetain(g % 2)
				if err == nil {
					err = b.CtxPushCurrent(prim)
				}
				if err != nil {
					errs <- err
					return
				}
				if cur, _ := b.CtxGetCurrent(); cur != prim {
					errs <- errors.New("push did not make the primary context current")
				}
				if h, _ := b.CtxPopCurrent(); h != prim {
					errs <- errors.New("pop returned another context")
				}
				if cur, _ := b.CtxGetCurrent(); cur != own {
					errs <- errors.New("another thread changed this thread's stack")
				}
				if err := b.DevicePrimaryCtxRelease(g % 2); err != nil {
					errs <- err
				}
			}
			if err := b.CtxDestroy(own); err != nil {
				errs <- err
			}
			if cur, _ := b.CtxGetCurrent(); cur != 0 {
				errs <- errors.New("destroying the current context did not pop it")
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	assert.Empty(t, b.Leaks())
}

func TestContextCalls(t *testing.T) {
	b := newBackend()
	require.NoError(t, b.Init(0))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	_, err := b.CtxPopCurrent()
	assert.ErrorIs(t, err, driver.ErrInvalidContext, "pop on an empty stack")
	_, err = b.MemAlloc(16)
	assert.ErrorIs(t, err, driver.ErrInvalidContext, "no current context")
	_, err = b.StreamCreateWithPriority(0, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidContext)

	prim, err := b.DevicePrimaryCtxRetain(0)
	require.NoError(t, err)
	again, err := b.DevicePrimaryCtxRetain(0)
	require.NoError(t, err)
	assert.Equal(t, prim, again, "the same handle while retained")
	_, active, err := b.DevicePrimaryCtxGetState(0)
	require.NoError(t, err)
	assert.True(t, active)
	v, err := b.CtxGetAPIVersion(prim)
	require.NoError(t, err, "works with no context current")
	assert.Equal(t, uint32(3020), v)

	// SetCurrent replaces the top of the stack.
	own, err := b.CtxCreate(0, 0)
	require.NoError(t, err)
	require.NoError(t, b.CtxSetCurrent(prim))
	cur, _ := b.CtxGetCurrent()
	assert.Equal(t, prim, cur)
	_, err = b.CtxPopCurrent()
	require.NoError(t, err)
	cur, _ = b.CtxGetCurrent()
	assert.Zero(t, cur, "SetCurrent replaced the created context instead of pushing")

	// A stream of the primary context, then its last release.
	require.NoError(t, b.CtxPushCurrent(prim))
	s, err := b.StreamCreateWithPriority(0, 0)
	require.NoError(t, err)
	_, err = b.CtxPopCurrent()
	require.NoError(t, err)
	require.NoError(t, b.DevicePrimaryCtxRelease(0))
	require.NoError(t, b.StreamQuery(s), "one reference is left")
	require.NoError(t, b.DevicePrimaryCtxRelease(0))
	assert.ErrorIs(t, b.StreamQuery(s), driver.ErrContextIsDestroyed, "its streams went with it")
	assert.ErrorIs(t, b.DevicePrimaryCtxRelease(0), driver.ErrInvalidContext)
	_, err = b.CtxGetAPIVersion(prim)
	assert.ErrorIs(t, err, driver.ErrInvalidContext)

	// A destroyed context current on the thread.
	require.NoError(t, b.CtxPushCurrent(own))
	require.NoError(t, b.CtxPushCurrent(own))
	require.NoError(t, b.CtxDestroy(own))
	_, err = b.MemAlloc(16)
	assert.ErrorIs(t, err, driver.ErrContextIsDestroyed)
	_, err = b.CtxPopCurrent()
	require.NoError(t, err)
	_, err = b.CtxGetAPIVersion(own)
	assert.ErrorIs(t, err, driver.ErrInvalidContext)
	assert.ErrorIs(t, b.CtxDestroy(own), driver.ErrInvalidContext)
	assert.Empty(t, b.Leaks())
}

func TestPrinciple3(t *testing.T) {
	b := newBackend(Kernel("nop", func(Thread, int32) {}))
	require.NoError(t, b.Init(0))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a, err := b.CtxCreate(0, 0)
	require.NoError(t, err)
	defer b.CtxDestroy(a)
	s, err := b.StreamCreateWithPriority(0, 0)
	require.NoError(t, err)
	p, err := b.MemAlloc(64)
	require.NoError(t, err)
	m := load(t, b, `extern "C" __global__ void nop(int x) {}`)
	f, err := b.ModuleGetFunction(m, "nop")
	require.NoError(t, err)
	x := int32(1)
	_, err = b.CtxPopCurrent()
	require.NoError(t, err)

	// None current.
	assert.NoError(t, b.StreamQuery(s))
	assert.NoError(t, b.MemsetD8Async(p, 1, 64, s))
	assert.NoError(t, b.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0, s, args(ptr(&x))))
	assert.NoError(t, b.StreamSynchronize(s))
	_, err = b.PointerGetAttribute(backend.PointerAttrContext, p)
	assert.NoError(t, err)
	assert.ErrorIs(t, b.MemsetD8(p, 1, 64), driver.ErrInvalidContext)
	assert.ErrorIs(t, b.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0, 0, args(ptr(&x))), driver.ErrInvalidContext)

	// Context B current.
	bctx, err := b.CtxCreate(0, 0)
	require.NoError(t, err)
	defer b.CtxDestroy(bctx)
	assert.NoError(t, b.MemsetD8(p, 2, 64), "a synchronous copy works with another context current")
	assert.ErrorIs(t, b.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0, 0, args(ptr(&x))), driver.ErrInvalidHandle)
	q, err := b.MemAlloc(64)
	require.NoError(t, err)
	owner, err := b.PointerGetAttribute(backend.PointerAttrContext, q)
	require.NoError(t, err)
	assert.Equal(t, uint64(bctx), owner, "allocates in the current context B")
	require.NoError(t, b.MemFree(q))
	require.NoError(t, b.MemFree(p))
	require.NoError(t, b.StreamDestroy(s))
}

func TestMissingEntryPoints(t *testing.T) {
	b := bound(t, DriverVersion(12000), Kernel("k", func(Thread, int32) {}))
	// A CUBIN: the PTX of a newer NVRTC (13 writes PTX ISA 9.0) would be
	// refused by a 12.0 driver's JIT, as on a real one.
	m := loadCUBIN(t, b, `extern "C" __global__ void k(int n) {}`)
	f, err := b.ModuleGetFunction(m, "k")
	require.NoError(t, err)
	_, _, err = b.FuncGetParamInfo(f, 0)
	var se *loader.SymbolError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "cuFuncGetParamInfo", se.Symbol)
	assert.Equal(t, 12040, se.Since)
	v, err := b.DriverGetVersion()
	require.NoError(t, err)
	assert.Equal(t, 12000, v)
}

func TestBindingAllocatesNothing(t *testing.T) {
	b := bound(t)
	cur, err := b.CtxGetCurrent()
	require.NoError(t, err)
	own, err := b.CtxCreate(0, 0)
	require.NoError(t, err)
	_, err = b.CtxPopCurrent()
	require.NoError(t, err)
	defer b.CtxDestroy(own)
	b.CtxPushCurrent(own)
	b.CtxPopCurrent()
	allocs := testing.AllocsPerRun(100, func() {
		if c, _ := b.CtxGetCurrent(); c != cur {
			t.Fatal("wrong current context")
		}
		if err := b.CtxPushCurrent(own); err != nil {
			t.Fatal(err)
		}
		if _, err := b.CtxPopCurrent(); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs, "a push/pop pair, as in every Bind")
}
