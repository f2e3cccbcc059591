package conformance

import (
	"runtime"
	"testing"
	"time"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
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
	api := ctxAPI(ctx)
	h := ctx.Handle()
	alive := func(msg string) {
		t.Helper()
		_, err := api.CtxGetAPIVersion(h)
		must(t, err, "the context is alive %s", msg)
	}

	s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	must(t, err)
	o, err := stream.New(ctx, stream.Options{})
	must(t, err)
	ev, err := stream.NewEvent(ctx, stream.EventOptions{Flags: stream.DisableTiming})
	must(t, err)
	start, err := stream.NewEvent(ctx, stream.EventOptions{})
	must(t, err)
	end, err := stream.NewEvent(ctx, stream.EventOptions{})
	must(t, err)
	ipc, err := stream.NewEvent(ctx, stream.EventOptions{Flags: stream.Interprocess | stream.DisableTiming})
	must(t, err)
	owned := []interface{ Close() error }{ev, start, end, ipc, o, s}
	t.Cleanup(func() { // on failure; each Close is a no-op after the first
		for _, x := range owned {
			x.Close()
		}
	})

	// What this test makes with raw calls (as another library would), it
	// frees itself, pushing the context with raw calls.
	b, err := bindCtx(ctx)
	must(t, err)
	p, r := api.MemAlloc(4096)
	must(t, r)
	rs, r := api.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
	must(t, r)
	re, r := api.EventCreate(backend.EventInterprocess | backend.EventDisableTiming)
	must(t, r)
	b.Unbind()
	ws, err := stream.Wrap(ctx, rs)
	must(t, err)
	we, err := stream.WrapEvent(ctx, re)
	must(t, err)

	must(t, ctx.Close())
	isTrue(t, ctx.Closed())
	alive("after the Context's Release, while objects hold it")

	// Nothing new is made in the closed Context; what was made holds it,
	// wrapped objects included.
	_, err = stream.New(ctx, stream.Options{})
	errorIs(t, err, driver.ErrClosed)
	_, err = stream.NewEvent(ctx, stream.EventOptions{})
	errorIs(t, err, driver.ErrClosed)
	_, err = stream.Wrap(ctx, s.Handle())
	errorIs(t, err, driver.ErrClosed)
	_, err = stream.Default(ctx)
	errorIs(t, err, driver.ErrClosed)
	_, err = stream.Legacy(ctx)
	errorIs(t, err, driver.ErrClosed)
	_, err = we.IPCHandle()
	must(t, err, "a wrapped event holds the context too")
	must(t, s.WaitStream(ws), "the internal event of WaitStream is made in the wrapped stream's context")

	// The owned objects work.
	must(t, start.Record(s))
	memsetU32(t, s, p, 42, 1024)
	must(t, end.Record(s))
	must(t, ev.Record(s))
	must(t, o.Wait(ev))
	ran := make(chan struct{})
	must(t, s.Callback(func() { close(ran) }))
	must(t, o.WaitStream(s), "WaitStream makes its event through the owned stream's Hold")
	equal(t, readU32(t, o, p+4092), uint32(42), "o's copy ran after s's memset")
	must(t, s.Synchronize())
	<-ran
	done, err := ev.Query()
	must(t, err)
	isTrue(t, done)
	must(t, end.Synchronize())
	d, err := stream.Elapsed(start, end)
	must(t, err, "Elapsed binds through the event's Hold")
	compare(t, d, ">=", time.Duration(0))
	ih, err := ipc.IPCHandle()
	must(t, err, "IPCHandle binds through the event's Hold")
	notEqual(t, ih, driver.IPCHandle{})
	f, err := s.Flags()
	must(t, err)
	equal(t, f, stream.NonBlocking)
	_, err = o.Priority()
	must(t, err)
	// The wrapped stream's own calls name it and bind nothing.
	must(t, ws.Synchronize())

	// The test's raw objects go first.
	runtime.LockOSThread()
	must(t, api.CtxPushCurrent(h))
	b = binding{api: api, pushed: true}
	must(t, api.MemFree(p))
	must(t, api.StreamDestroy(rs))
	must(t, api.EventDestroy(re))
	b.Unbind()
	must(t, ws.Close())
	must(t, we.Close())
	alive("after the wrapped objects are closed")

	// Closing the owned objects succeeds; the context lives until the last.
	for i, x := range owned {
		must(t, x.Close(), "%v", x)
		must(t, x.Close(), "a second Close is a no-op")
		if i < len(owned)-1 {
			alive("while an object still holds it")
		}
	}
	ended(t)
	noError(t, ctx.Close(), "a second Close is a no-op")
}
