package stream_test

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

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
	drv, err := driver.New(c)
	require.NoError(t, err)
	return primary(t, drv), c
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

// bound runs fn with ctx current on a locked OS thread.
func bound(t testing.TB, ctx *driver.Context, fn func(api backend.API)) {
	t.Helper()
	b, err := ctx.Bind()
	require.NoError(t, err)
	defer b.Unbind()
	fn(ctx.API())
}
