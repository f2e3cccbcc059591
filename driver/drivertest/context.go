package drivertest

import (
	"errors"
	"regexp"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
)

func testErrors(t *testing.T, drv *driver.Driver) {
	_, err := drv.Device(1 << 20)
	require.Error(t, err)
	assert.ErrorIs(t, err, driver.ErrInvalidDevice, "a bad ordinal is CUDA_ERROR_INVALID_DEVICE")
	assert.Contains(t, err.Error(), "CUDA_ERROR_INVALID_DEVICE")
	var r driver.Result
	require.True(t, errors.As(err, &r))
	assert.Equal(t, driver.ErrInvalidDevice, r)

	assert.Equal(t, "CUDA_ERROR_NOT_READY: device not ready", driver.ErrNotReady.Error())
	assert.Equal(t, "CUDA_ERROR_INVALID_VALUE", driver.ErrInvalidValue.Name())
	assert.NoError(t, driver.Check(0))
	assert.Equal(t, driver.ErrNotReady, driver.Check(600))
	assert.Equal(t, driver.Result(123456), driver.Check(123456))
	assert.Contains(t, driver.Result(123456).Error(), "123456")
}

func testDevices(t *testing.T, drv *driver.Driver) {
	v, err := drv.Version()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, v, 11000, "driver version is 1000*major+10*minor")

	n, err := drv.DeviceCount()
	require.NoError(t, err)
	require.GreaterOrEqual(t, n, 1)
	uuids := map[string]bool{}
	for i := 0; i < n; i++ {
		dev, err := drv.Device(i)
		require.NoError(t, err)
		again, err := drv.Device(i)
		require.NoError(t, err)
		assert.Same(t, dev, again, "one *Device per ordinal")
		assert.Equal(t, i, dev.Ordinal())

		name, err := dev.Name()
		require.NoError(t, err)
		assert.NotEmpty(t, name)
		assert.NotContains(t, name, "\x00")
		major, minor, err := dev.ComputeCapability()
		require.NoError(t, err)
		assert.GreaterOrEqual(t, major, 5)
		assert.GreaterOrEqual(t, minor, 0)
		mem, err := dev.TotalMemory()
		require.NoError(t, err)
		assert.Greater(t, mem, uint64(1<<28))
		for a, want := range map[driver.DeviceAttribute]int{driver.AttrWarpSize: 32, driver.AttrMaxThreadsPerBlock: 1024, driver.AttrUnifiedAddressing: 1} {
			got, err := dev.Attribute(a)
			require.NoError(t, err)
			assert.Equal(t, want, got, "attribute %d", a)
		}
		sms, err := dev.Attribute(driver.AttrMultiprocessorCount)
		require.NoError(t, err)
		assert.Greater(t, sms, 0)
		_, err = dev.Attribute(driver.DeviceAttribute(100000))
		assert.ErrorIs(t, err, driver.ErrInvalidValue)

		u, err := dev.UUID()
		require.NoError(t, err)
		assert.Regexp(t, regexp.MustCompile(`^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`), u)
		assert.False(t, uuids[u], "UUIDs are distinct")
		uuids[u] = true
		bus, err := dev.PCIBusID()
		require.NoError(t, err)
		assert.Regexp(t, regexp.MustCompile(`^[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-9a-fA-F]$`), bus)
		self, err := dev.CanAccessPeer(dev)
		require.NoError(t, err)
		assert.False(t, self, "a device is not its own peer")
		_, err = dev.CanAccessPeer(nil)
		assert.ErrorIs(t, err, driver.ErrInvalidValue)
	}
	_, err = drv.Device(-1)
	assert.ErrorIs(t, err, driver.ErrInvalidDevice)
	_, err = drv.Device(n)
	assert.ErrorIs(t, err, driver.ErrInvalidDevice)
}

// current returns the calling OS thread's current context; the caller has
// locked the thread.
func current(t *testing.T, api driver.API) uintptr {
	t.Helper()
	c, err := api.CtxGetCurrent()
	require.NoError(t, err)
	return c
}

// Primary retains the primary context of device 0 of drv for a test and
// releases it when the test ends.
func Primary(t testing.TB, drv *driver.Driver) *driver.Context {
	t.Helper()
	return primary(t, drv, 0)
}

func primary(t testing.TB, drv *driver.Driver, ordinal int) *driver.Context {
	t.Helper()
	dev, err := drv.Device(ordinal)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	t.Cleanup(func() { ctx.Release() })
	return ctx
}

func testContexts(t *testing.T, drv *driver.Driver) {
	api := drv.API()
	dev, err := drv.Device(0)
	require.NoError(t, err)

	t.Run("primary is shared and reference counted", func(t *testing.T) {
		a, err := dev.PrimaryContext()
		require.NoError(t, err)
		b, err := dev.PrimaryContext()
		require.NoError(t, err)
		assert.Equal(t, a.Handle(), b.Handle(), "one primary context per device")
		assert.Equal(t, driver.Primary, a.Kind())
		assert.Same(t, dev, a.Device())

		// Another user of the device (the CUDA runtime, another library)
		// retains the same primary context.
		other, err := api.DevicePrimaryCtxRetain(dev.Handle())
		require.NoError(t, err)
		assert.Equal(t, a.Handle(), other)

		require.NoError(t, a.Release())
		require.NoError(t, a.Release(), "a second Release is a no-op")
		require.NoError(t, b.Release())
		// Our references are gone; the other user's keeps it alive.
		_, err = api.CtxGetApiVersion(other)
		assert.NoError(t, err, "the other user's reference keeps the primary context alive")
		require.NoError(t, api.DevicePrimaryCtxRelease(dev.Handle()))

		assert.ErrorIs(t, a.Synchronize(), driver.ErrClosed)
		_, err = a.Bind()
		assert.ErrorIs(t, err, driver.ErrClosed)
	})

	t.Run("bind leaves the thread as it found it", func(t *testing.T) {
		ctx := primary(t, drv, 0)
		owned, err := dev.NewContext(0)
		require.NoError(t, err)
		defer owned.Release()

		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for _, before := range []uintptr{0, owned.Handle(), ctx.Handle()} {
			require.NoError(t, api.CtxSetCurrent(before))
			b, err := ctx.Bind()
			require.NoError(t, err)
			assert.Equal(t, ctx.Handle(), current(t, api), "bound context is current")
			b.Unbind()
			assert.Equal(t, before, current(t, api), "Unbind restores the previous context")
			require.NoError(t, ctx.Synchronize())
			assert.Equal(t, before, current(t, api), "Synchronize restores the previous context")
		}
		require.NoError(t, api.CtxSetCurrent(0))
		// A stack pushed by someone else is left intact below our push.
		require.NoError(t, api.CtxPushCurrent(owned.Handle()))
		require.NoError(t, ctx.Synchronize())
		popped, err := api.CtxPopCurrent()
		require.NoError(t, err)
		assert.Equal(t, owned.Handle(), popped)
		assert.Equal(t, uintptr(0), current(t, api))
	})

	t.Run("any goroutine any thread", func(t *testing.T) {
		ctx := primary(t, drv, 0)
		owned, err := dev.NewContext(0)
		require.NoError(t, err)
		defer owned.Release()
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for g := 0; g < 16; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				mine := []uintptr{0, owned.Handle(), ctx.Handle()}[g%3]
				if err := api.CtxSetCurrent(mine); err != nil {
					errs <- err
					return
				}
				for i := 0; i < 50; i++ {
					target := ctx
					if i%2 == 1 {
						target = owned
					}
					if err := target.Synchronize(); err != nil {
						errs <- err
						return
					}
					if c, _ := api.CtxGetCurrent(); c != mine {
						errs <- errors.New("the thread's current context changed")
						return
					}
				}
				api.CtxSetCurrent(0)
			}(g)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})

	t.Run("owned and wrapped", func(t *testing.T) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		require.NoError(t, api.CtxSetCurrent(0))
		owned, err := dev.NewContext(0)
		require.NoError(t, err)
		assert.Equal(t, driver.Owned, owned.Kind())
		assert.Equal(t, uintptr(0), current(t, api), "NewContext leaves the thread's context as it was")

		w, err := driver.WrapContext(drv, owned.Handle())
		require.NoError(t, err)
		assert.Equal(t, driver.Wrapped, w.Kind())
		assert.Equal(t, owned.Handle(), w.Handle())
		assert.Same(t, dev, w.Device())
		require.NoError(t, w.Synchronize())
		require.NoError(t, w.Release())
		require.NoError(t, w.Release())
		_, err = api.CtxGetApiVersion(owned.Handle())
		assert.NoError(t, err, "releasing a wrapped context never destroys it")
		assert.ErrorIs(t, w.Synchronize(), driver.ErrClosed)

		h := owned.Handle()
		require.NoError(t, owned.Release())
		_, err = api.CtxGetApiVersion(h)
		assert.ErrorIs(t, err, driver.ErrInvalidContext, "releasing an owned context destroys it")
		_, err = driver.WrapContext(drv, h)
		assert.ErrorIs(t, err, driver.ErrInvalidContext, "a destroyed context cannot be wrapped")
		_, err = driver.WrapContext(drv, 0)
		assert.ErrorIs(t, err, driver.ErrInvalidContext)
		_, err = driver.WrapContext(nil, 1)
		assert.Error(t, err)
	})

	t.Run("release waits for holds", func(t *testing.T) {
		// Objects made in a context hold it: releasing the Context first
		// ends it only when the last of them is closed.
		owned, err := dev.NewContext(0)
		require.NoError(t, err)
		h1, err := owned.Hold()
		require.NoError(t, err)
		h2, err := owned.Hold()
		require.NoError(t, err)
		require.NoError(t, owned.Release())
		_, err = owned.Bind()
		assert.ErrorIs(t, err, driver.ErrClosed, "the Context itself is closed")
		_, err = owned.Hold()
		assert.ErrorIs(t, err, driver.ErrClosed, "no new objects in a released context")
		_, err = api.CtxGetApiVersion(owned.Handle())
		assert.NoError(t, err, "still alive while held")
		b, err := h1.Bind()
		require.NoError(t, err, "a holder still binds")
		b.Unbind()
		require.NoError(t, h1.Release())
		require.NoError(t, h1.Release(), "a second Release is a no-op")
		_, err = h1.Bind()
		assert.ErrorIs(t, err, driver.ErrClosed)
		_, err = api.CtxGetApiVersion(owned.Handle())
		assert.NoError(t, err, "alive while one Hold is left")
		require.NoError(t, h2.Release())
		_, err = api.CtxGetApiVersion(owned.Handle())
		assert.ErrorIs(t, err, driver.ErrInvalidContext, "destroyed with the last Hold")
	})

	t.Run("current-context rules", func(t *testing.T) {
		// What the driver needs a current context for (DESIGN principle 3).
		ctx := primary(t, drv, 0)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		require.NoError(t, api.CtxSetCurrent(0))
		_, err := api.MemAlloc(1024)
		assert.ErrorIs(t, err, driver.ErrInvalidContext)
		assert.ErrorIs(t, api.CtxSynchronize(), driver.ErrInvalidContext)
		_, err = api.CtxGetDevice()
		assert.ErrorIs(t, err, driver.ErrInvalidContext)
		_, err = api.CtxPopCurrent()
		assert.ErrorIs(t, err, driver.ErrInvalidContext, "popping an empty stack")
		v, err := api.CtxGetApiVersion(ctx.Handle())
		assert.NoError(t, err, "cuCtxGetApiVersion names its context")
		assert.NotZero(t, v)
		least, greatest, err := func() (int, int, error) {
			b, err := ctx.Bind()
			if err != nil {
				return 0, 0, err
			}
			defer b.Unbind()
			return api.CtxGetStreamPriorityRange()
		}()
		require.NoError(t, err)
		assert.GreaterOrEqual(t, least, greatest)

		// Measured on the H200: elapsed time needs no current context; an
		// event's IPC handle and the occupancy calculator do.
		b, err := ctx.Bind()
		require.NoError(t, err)
		s, err := api.StreamCreateWithPriority(driver.StreamNonBlocking, 0)
		require.NoError(t, err)
		e1, err := api.EventCreate(driver.EventDefault)
		require.NoError(t, err)
		e2, err := api.EventCreate(driver.EventDefault)
		require.NoError(t, err)
		ipc, err := api.EventCreate(driver.EventInterprocess | driver.EventDisableTiming)
		require.NoError(t, err)
		b.Unbind()
		defer func() {
			api.EventDestroy(e1)
			api.EventDestroy(e2)
			api.EventDestroy(ipc)
			api.StreamDestroy(s)
		}()
		require.NoError(t, api.EventRecord(e1, s))
		require.NoError(t, api.EventRecord(e2, s))
		require.NoError(t, api.StreamSynchronize(s))
		ms, err := api.EventElapsedTime(e1, e2)
		assert.NoError(t, err, "cuEventElapsedTime needs no current context")
		assert.GreaterOrEqual(t, ms, float32(0))
		_, err = api.IpcGetEventHandle(ipc)
		assert.ErrorIs(t, err, driver.ErrInvalidContext, "cuIpcGetEventHandle needs a current context")
		f, err := Kernels(t, ctx).Function(KernelAdd1)
		require.NoError(t, err)
		_, _, err = api.OccupancyMaxPotentialBlockSize(f.Handle(), 0, 0)
		assert.ErrorIs(t, err, driver.ErrInvalidContext, "the occupancy calculator needs a current context")
	})
}
