package stream_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
)

// counting wraps a backend and counts the streams and events alive, the
// calls that create streams and the primary context references released, to
// see what the stream package creates and destroys, and when the context
// ends.
type counting struct {
	backend.API
	streams, events, creates, primaryReleases atomic.Int64
}

func (c *counting) DevicePrimaryCtxRelease(dev int) error {
	err := c.API.DevicePrimaryCtxRelease(dev)
	if err == nil {
		c.primaryReleases.Add(1)
	}
	return err
}

func (c *counting) StreamCreateWithPriority(flags uint32, prio int) (uintptr, error) {
	c.creates.Add(1)
	h, err := c.API.StreamCreateWithPriority(flags, prio)
	if err == nil {
		c.streams.Add(1)
	}
	return h, err
}

func (c *counting) StreamDestroy(h uintptr) error {
	err := c.API.StreamDestroy(h)
	if err == nil {
		c.streams.Add(-1)
	}
	return err
}

func (c *counting) EventCreate(flags uint32) (uintptr, error) {
	h, err := c.API.EventCreate(flags)
	if err == nil {
		c.events.Add(1)
	}
	return h, err
}

func (c *counting) EventDestroy(h uintptr) error {
	err := c.API.EventDestroy(h)
	if err == nil {
		c.events.Add(-1)
	}
	return err
}

// fakeContext returns the primary context of device 0 of a new fake driver
// with opts, released at the end of the test.
func fakeContext(t testing.TB, opts ...fake.Option) *driver.Context {
	t.Helper()
	return primary(t, fake.New(opts...))
}

// countingContext is fakeContext over a counting wrapper.
func countingContext(t testing.TB) (*driver.Context, *counting) {
	t.Helper()
	c := &counting{API: fake.NewBackend(fake.Devices(1))}
	return primary(t, newDriver(t, c)), c
}

// raws remembers the backend under each Driver a test built with newDriver,
// for raw calls.
var raws sync.Map // *driver.Driver -> backend.API

// newDriver builds a Driver over api and remembers api for rawAPI.
func newDriver(t testing.TB, api backend.API) *driver.Driver {
	t.Helper()
	drv, err := driver.New(api)
	require.NoError(t, err)
	raws.Store(drv, api)
	return drv
}

// rawAPI returns a backend for raw calls on ctx's driver: the one given to
// newDriver, the fake Backend of fake.New, or else the real driver's.
func rawAPI(t testing.TB, ctx *driver.Context) backend.API {
	t.Helper()
	if api, ok := raws.Load(ctx.Driver()); ok {
		return api.(backend.API)
	}
	if b := fake.Of(ctx.Driver()); b != nil {
		return b.Backend()
	}
	return cudatest.RealBackend(t)
}

func primary(t testing.TB, drv *driver.Driver) *driver.Context {
	t.Helper()
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	t.Cleanup(func() { ctx.Close() })
	return ctx
}

// bound runs fn with ctx current on a locked OS thread, with raw calls.
func bound(t testing.TB, ctx *driver.Context, fn func(api backend.API)) {
	t.Helper()
	api := rawAPI(t, ctx)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	require.NoError(t, api.CtxPushCurrent(ctx.Handle()))
	defer func() {
		_, err := api.CtxPopCurrent()
		require.NoError(t, err)
	}()
	fn(api)
}
