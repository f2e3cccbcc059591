package drivertest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/stream"
)

// testStreamHold: owned streams and events hold their context. Releasing
// the *driver.Context first leaves them working (they bind through their
// Hold), closing them still succeeds, and the context ends in the driver
// with the last Close, not before: an owned context is destroyed then, a
// primary context reference released then. Wrapped objects hold nothing:
// what binds on them returns ErrClosed once the Context is released.
func testStreamHold(t *testing.T, drv *driver.Driver) {
	holdCases(t, drv, "Close", checkOutliveContext)
}

// checkOutliveContext makes owned streams and events (and wrapped ones) in
// ctx, releases ctx, checks that the owned ones work and the wrapped ones
// answer ErrClosed where they bind, closes the owned ones one by one while
// checking that the context is still alive, and after the last Close calls
// ended to check that the context is gone.
func checkOutliveContext(t *testing.T, ctx *driver.Context, ended func(t *testing.T)) {
	api := ctx.API()
	h := ctx.Handle()
	alive := func(msg string) {
		t.Helper()
		_, err := api.CtxGetApiVersion(h)
		require.NoError(t, err, "the context is alive %s", msg)
	}

	s, err := stream.New(ctx, stream.WithFlags(stream.NonBlocking))
	require.NoError(t, err)
	o, err := stream.New(ctx)
	require.NoError(t, err)
	ev, err := stream.NewEvent(ctx, stream.DisableTiming)
	require.NoError(t, err)
	start, err := stream.NewEvent(ctx)
	require.NoError(t, err)
	end, err := stream.NewEvent(ctx)
	require.NoError(t, err)
	ipc, err := stream.NewEvent(ctx, stream.Interprocess, stream.DisableTiming)
	require.NoError(t, err)
	owned := []interface{ Close() error }{ev, start, end, ipc, o, s}
	t.Cleanup(func() { // on failure; each Close is a no-op after the first
		for _, x := range owned {
			x.Close()
		}
	})

	// What this test makes with raw calls (as another library would), it
	// frees itself, under a Hold of its own so that it can still bind.
	mine, err := ctx.Hold()
	require.NoError(t, err)
	t.Cleanup(func() { mine.Release() })
	b, err := mine.Bind()
	require.NoError(t, err)
	p, r := api.MemAlloc(4096)
	require.NoError(t, r)
	rs, r := api.StreamCreateWithPriority(driver.StreamNonBlocking, 0)
	require.NoError(t, r)
	re, r := api.EventCreate(driver.EventInterprocess | driver.EventDisableTiming)
	require.NoError(t, r)
	b.Unbind()
	ws, err := stream.Wrap(ctx, rs)
	require.NoError(t, err)
	we, err := stream.WrapEvent(ctx, re)
	require.NoError(t, err)

	require.NoError(t, ctx.Release())
	assert.True(t, ctx.Closed())
	alive("after the Context's Release, while objects hold it")

	// Nothing new is made in the released Context, and what holds nothing
	// answers ErrClosed where it binds.
	_, err = stream.New(ctx)
	assert.ErrorIs(t, err, stream.ErrClosed)
	_, err = stream.NewEvent(ctx)
	assert.ErrorIs(t, err, stream.ErrClosed)
	_, err = stream.Wrap(ctx, s.Handle())
	assert.ErrorIs(t, err, stream.ErrClosed)
	assert.ErrorIs(t, stream.Default(ctx).Synchronize(), stream.ErrClosed)
	assert.ErrorIs(t, stream.Legacy(ctx).Synchronize(), stream.ErrClosed)
	_, err = we.IPCHandle()
	assert.ErrorIs(t, err, stream.ErrClosed, "a wrapped event binds the Context")
	assert.ErrorIs(t, s.WaitStream(ws), stream.ErrClosed, "the internal event of WaitStream is made in the wrapped stream's Context")

	// The owned objects work.
	require.NoError(t, start.Record(s))
	memsetU32(t, s, p, 42, 1024)
	require.NoError(t, end.Record(s))
	require.NoError(t, ev.Record(s))
	require.NoError(t, o.Wait(ev))
	ran := make(chan struct{})
	require.NoError(t, s.Callback(func() { close(ran) }))
	require.NoError(t, o.WaitStream(s), "WaitStream makes its event through the owned stream's Hold")
	assert.Equal(t, uint32(42), readU32(t, o, p+4092), "o's copy ran after s's memset")
	require.NoError(t, s.Synchronize())
	<-ran
	done, err := ev.Query()
	require.NoError(t, err)
	assert.True(t, done)
	require.NoError(t, end.Synchronize())
	d, err := stream.Elapsed(start, end)
	require.NoError(t, err, "Elapsed binds through the event's Hold")
	assert.GreaterOrEqual(t, d, time.Duration(0))
	ih, err := ipc.IPCHandle()
	require.NoError(t, err, "IPCHandle binds through the event's Hold")
	assert.NotEqual(t, driver.IPCHandle{}, ih)
	f, err := s.Flags()
	require.NoError(t, err)
	assert.Equal(t, stream.NonBlocking, f)
	_, err = o.Priority()
	require.NoError(t, err)
	// The wrapped stream's own calls name it and bind nothing.
	require.NoError(t, ws.Synchronize())

	// The test's raw objects go first, then its Hold.
	b, err = mine.Bind()
	require.NoError(t, err)
	require.NoError(t, api.MemFree(p))
	require.NoError(t, api.StreamDestroy(rs))
	require.NoError(t, api.EventDestroy(re))
	b.Unbind()
	require.NoError(t, ws.Close())
	require.NoError(t, we.Close())
	require.NoError(t, mine.Release())
	alive("after the test's own Hold is released")

	// Closing the owned objects succeeds; the context lives until the last.
	for i, x := range owned {
		require.NoError(t, x.Close(), "%v", x)
		require.NoError(t, x.Close(), "a second Close is a no-op")
		if i < len(owned)-1 {
			alive("while an object still holds it")
		}
	}
	ended(t)
	assert.NoError(t, ctx.Release(), "a second Release is a no-op")
}
