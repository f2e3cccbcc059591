package conformance

import (
	"errors"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/stream"
)

func testErrors(t *testing.T, drv *driver.Driver) {
	_, err := drv.Device(1 << 20)
	mustErr(t, err)
	errorIs(t, err, driver.ErrInvalidDevice, "a bad ordinal is CUDA_ERROR_INVALID_DEVICE")
	contains(t, err.Error(), "CUDA_ERROR_INVALID_DEVICE")
	var r driver.Result
	mustTrue(t, errors.As(err, &r))
	equal(t, r, driver.ErrInvalidDevice)

	equal(t, driver.ErrNotReady.Error(), "CUDA_ERROR_NOT_READY: device not ready")
	equal(t, driver.ErrInvalidValue.Name(), "CUDA_ERROR_INVALID_VALUE")
	noError(t, backend.Check(0))
	equal[error](t, backend.Check(600), driver.ErrNotReady)
	equal[error](t, backend.Check(123456), driver.Result(123456))
	contains(t, driver.Result(123456).Error(), "123456")
}

func testDevices(t *testing.T, drv *driver.Driver) {
	v, err := drv.Version()
	must(t, err)
	compare(t, v, ">=", 11000, "driver version is 1000*major+10*minor")

	n, err := drv.DeviceCount()
	must(t, err)
	if n < 1 {
		t.Fatalf("got %d devices, want at least 1", n)
	}
	uuids := map[string]bool{}
	for i := 0; i < n; i++ {
		dev, err := drv.Device(i)
		must(t, err)
		again, err := drv.Device(i)
		must(t, err)
		isSame(t, again, dev, "one *Device per ordinal")
		equal(t, dev.Ordinal(), i)

		name, err := dev.Name()
		must(t, err)
		if name == "" {
			t.Error("the device name is empty")
		}
		if strings.Contains(name, "\x00") {
			t.Errorf("the device name %q contains a NUL byte", name)
		}
		major, minor, err := dev.ComputeCapability()
		must(t, err)
		compare(t, major, ">=", 5)
		compare(t, minor, ">=", 0)
		mem, err := dev.TotalMemory()
		must(t, err)
		compare(t, mem, ">", uint64(1<<28))
		for a, want := range map[driver.DeviceAttribute]int{driver.AttrWarpSize: 32, driver.AttrMaxThreadsPerBlock: 1024, driver.AttrUnifiedAddressing: 1} {
			got, err := dev.Attribute(a)
			must(t, err)
			equal(t, got, want, "attribute %d", a)
		}
		sms, err := dev.Attribute(driver.AttrMultiprocessorCount)
		must(t, err)
		compare(t, sms, ">", 0)
		_, err = dev.Attribute(driver.DeviceAttribute(100000))
		errorIs(t, err, driver.ErrInvalidValue)

		u, err := dev.UUID()
		must(t, err)
		if re := regexp.MustCompile(`^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`); !re.MatchString(u) {
			t.Errorf("UUID %q does not match %s", u, re)
		}
		isFalse(t, uuids[u], "UUIDs are distinct")
		uuids[u] = true
		bus, err := dev.PCIBusID()
		must(t, err)
		if re := regexp.MustCompile(`^[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-9a-fA-F]$`); !re.MatchString(bus) {
			t.Errorf("PCI bus ID %q does not match %s", bus, re)
		}
		self, err := dev.CanAccessPeer(dev)
		must(t, err)
		isFalse(t, self, "a device is not its own peer")
		_, err = dev.CanAccessPeer(nil)
		errorIs(t, err, driver.ErrInvalidValue)
	}
	_, err = drv.Device(-1)
	errorIs(t, err, driver.ErrInvalidDevice)
	_, err = drv.Device(n)
	errorIs(t, err, driver.ErrInvalidDevice)
}

// current returns the calling OS thread's current context; the caller has
// locked the thread.
func current(t *testing.T, api backend.API) uintptr {
	t.Helper()
	c, err := api.CtxGetCurrent()
	must(t, err)
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
	must(t, err)
	ctx, err := dev.PrimaryContext()
	must(t, err)
	t.Cleanup(func() { ctx.Close() })
	return ctx
}

func testContexts(t *testing.T, drv *driver.Driver) {
	api := raw(t, drv)
	dev, err := drv.Device(0)
	must(t, err)

	t.Run("primary is shared and reference counted", func(t *testing.T) {
		a, err := dev.PrimaryContext()
		must(t, err)
		b, err := dev.PrimaryContext()
		must(t, err)
		equal(t, b.Handle(), a.Handle(), "one primary context per device")
		equal(t, a.Kind(), driver.Primary)
		isSame(t, a.Device(), dev)

		// Another user of the device (the CUDA runtime, another library)
		// retains the same primary context.
		other, err := api.DevicePrimaryCtxRetain(dev.Handle())
		must(t, err)
		equal(t, other, a.Handle())

		must(t, a.Close())
		must(t, a.Close(), "a second Release is a no-op")
		must(t, b.Close())
		// Our references are gone; the other user's keeps it alive.
		_, err = api.CtxGetAPIVersion(other)
		noError(t, err, "the other user's reference keeps the primary context alive")
		must(t, api.DevicePrimaryCtxRelease(dev.Handle()))

		errorIs(t, a.Synchronize(), driver.ErrClosed)
		_, err = bindCtx(a)
		errorIs(t, err, driver.ErrClosed)
	})

	t.Run("bind leaves the thread as it found it", func(t *testing.T) {
		ctx := primary(t, drv, 0)
		owned, err := dev.NewContext(driver.ContextOptions{})
		must(t, err)
		defer owned.Close()

		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for _, before := range []uintptr{0, owned.Handle(), ctx.Handle()} {
			must(t, api.CtxSetCurrent(before))
			b, err := bindCtx(ctx)
			must(t, err)
			equal(t, current(t, api), ctx.Handle(), "bound context is current")
			b.Unbind()
			equal(t, current(t, api), before, "Unbind restores the previous context")
			must(t, ctx.Synchronize())
			equal(t, current(t, api), before, "Synchronize restores the previous context")
		}
		must(t, api.CtxSetCurrent(0))
		// A stack pushed by someone else is left intact below our push.
		must(t, api.CtxPushCurrent(owned.Handle()))
		must(t, ctx.Synchronize())
		popped, err := api.CtxPopCurrent()
		must(t, err)
		equal(t, popped, owned.Handle())
		equal(t, current(t, api), uintptr(0))
	})

	t.Run("any goroutine any thread", func(t *testing.T) {
		ctx := primary(t, drv, 0)
		owned, err := dev.NewContext(driver.ContextOptions{})
		must(t, err)
		defer owned.Close()
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
		must(t, api.CtxSetCurrent(0))
		owned, err := dev.NewContext(driver.ContextOptions{})
		must(t, err)
		equal(t, owned.Kind(), driver.Owned)
		equal(t, current(t, api), uintptr(0), "NewContext leaves the thread's context as it was")

		w, err := driver.WrapContext(drv, owned.Handle())
		must(t, err)
		equal(t, w.Kind(), driver.Wrapped)
		equal(t, w.Handle(), owned.Handle())
		isSame(t, w.Device(), dev)
		must(t, w.Synchronize())
		must(t, w.Close())
		must(t, w.Close())
		_, err = api.CtxGetAPIVersion(owned.Handle())
		noError(t, err, "releasing a wrapped context never destroys it")
		errorIs(t, w.Synchronize(), driver.ErrClosed)

		h := owned.Handle()
		must(t, owned.Close())
		_, err = api.CtxGetAPIVersion(h)
		errorIs(t, err, driver.ErrInvalidContext, "releasing an owned context destroys it")
		_, err = driver.WrapContext(drv, h)
		errorIs(t, err, driver.ErrInvalidContext, "a destroyed context cannot be wrapped")
		_, err = driver.WrapContext(drv, 0)
		errorIs(t, err, driver.ErrInvalidContext)
		_, err = driver.WrapContext(nil, 1)
		hasError(t, err)
	})

	t.Run("release waits for holds", func(t *testing.T) {
		// Objects made in a context hold it: releasing the Context first
		// ends it only when the last of them is closed.
		owned, err := dev.NewContext(driver.ContextOptions{})
		must(t, err)
		h1, err := stream.New(owned, stream.Options{})
		must(t, err)
		h2, err := stream.NewEvent(owned, stream.EventOptions{})
		must(t, err)
		must(t, owned.Close())
		must(t, owned.Close(), "a second Close is a no-op")
		_, err = stream.New(owned, stream.Options{})
		errorIs(t, err, driver.ErrClosed, "no new objects in a closed context")
		_, err = api.CtxGetAPIVersion(owned.Handle())
		noError(t, err, "still alive while held")
		must(t, h1.Synchronize(), "a holder still works")
		must(t, h1.Close())
		must(t, h1.Close(), "a second Close is a no-op")
		errorIs(t, h1.Synchronize(), driver.ErrClosed)
		_, err = api.CtxGetAPIVersion(owned.Handle())
		noError(t, err, "alive while one object is left")
		must(t, h2.Synchronize(), "the event still works")
		must(t, h2.Close())
		_, err = api.CtxGetAPIVersion(owned.Handle())
		errorIs(t, err, driver.ErrInvalidContext, "destroyed with the last object")
	})

	t.Run("current-context rules", func(t *testing.T) {
		// What the driver needs a current context for (DESIGN principle 3).
		ctx := primary(t, drv, 0)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		must(t, api.CtxSetCurrent(0))
		_, err := api.MemAlloc(1024)
		errorIs(t, err, driver.ErrInvalidContext)
		errorIs(t, api.CtxSynchronize(), driver.ErrInvalidContext)
		_, err = api.CtxGetDevice()
		errorIs(t, err, driver.ErrInvalidContext)
		_, err = api.CtxPopCurrent()
		errorIs(t, err, driver.ErrInvalidContext, "popping an empty stack")
		v, err := api.CtxGetAPIVersion(ctx.Handle())
		noError(t, err, "cuCtxGetApiVersion names its context")
		notZero(t, v)
		least, greatest, err := func() (int, int, error) {
			b, err := bindCtx(ctx)
			if err != nil {
				return 0, 0, err
			}
			defer b.Unbind()
			return api.CtxGetStreamPriorityRange()
		}()
		must(t, err)
		compare(t, least, ">=", greatest)

		// Measured on the H200: elapsed time needs no current context; an
		// event's IPC handle and the occupancy calculator do.
		b, err := bindCtx(ctx)
		must(t, err)
		s, err := api.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
		must(t, err)
		e1, err := api.EventCreate(backend.EventDefault)
		must(t, err)
		e2, err := api.EventCreate(backend.EventDefault)
		must(t, err)
		ipc, err := api.EventCreate(backend.EventInterprocess | backend.EventDisableTiming)
		must(t, err)
		b.Unbind()
		defer func() {
			api.EventDestroy(e1)
			api.EventDestroy(e2)
			api.EventDestroy(ipc)
			api.StreamDestroy(s)
		}()
		must(t, api.EventRecord(e1, s))
		must(t, api.EventRecord(e2, s))
		must(t, api.StreamSynchronize(s))
		ms, err := api.EventElapsedTime(e1, e2)
		noError(t, err, "cuEventElapsedTime needs no current context")
		compare(t, ms, ">=", float32(0))
		_, err = api.IPCGetEventHandle(ipc)
		errorIs(t, err, driver.ErrInvalidContext, "cuIpcGetEventHandle needs a current context")
		f, err := Kernels(t, ctx).Function(kernels.Add1)
		must(t, err)
		_, _, err = api.OccupancyMaxPotentialBlockSize(f.Handle(), 0, 0)
		errorIs(t, err, driver.ErrInvalidContext, "the occupancy calculator needs a current context")
	})
}
