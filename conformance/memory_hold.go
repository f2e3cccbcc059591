package conformance

import (
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// testMemHold: device memory (Alloc, AllocAsync) and pinned host memory
// (AllocHost) hold their context. Releasing the *driver.Context first leaves
// the buffers and their views working (synchronous copies bind through the
// buffer's Hold), freeing them still succeeds, and the context ends in the
// driver with the last Free, not before: an owned context is destroyed then,
// a primary context reference released then. A borrowed buffer holds
// nothing: it is closed once its Context is released.
func testMemHold(t *testing.T, drv *driver.Driver) {
	holdCases(t, drv, "Free", checkMemOutliveContext)
}

// checkMemOutliveContext allocates buffers of every owned kind in ctx (and
// borrows one), releases ctx, checks that the owned buffers and their views
// still copy and fill while the borrowed one answers ErrClosed, frees them one
// by one while checking that the context is still alive, and after the last
// Free calls ended to check that the context is gone.
func checkMemOutliveContext(t *testing.T, ctx *driver.Context, ended func(t *testing.T)) {
	api := ctxAPI(ctx)
	h := ctx.Handle()
	alive := func(msg string) {
		t.Helper()
		_, err := api.CtxGetAPIVersion(h)
		must(t, err, "the context is alive %s", msg)
	}
	const n = 1024

	s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	must(t, err)
	dev, err := memory.Alloc[float32](ctx, n)
	must(t, err)
	async, err := memory.AllocAsync[float32](s, n)
	must(t, err)
	host, err := memory.AllocHost[float32](ctx, n)
	must(t, err)
	borrowed, err := memory.Borrow[float32](ctx, dev.Ptr(), n, nil)
	must(t, err)
	view, err := dev.Slice(n/2, n)
	must(t, err)
	head, err := dev.Slice(0, n/2)
	must(t, err)
	first8, err := async.Slice(0, 8)
	must(t, err)
	must(t, s.Synchronize(), "the allocation stream reached the stream-ordered allocation")
	t.Cleanup(func() { // on failure; each Free or Close is a no-op after the first
		s.Synchronize()
		async.Close()
		s.Close()
		dev.Close()
		host.Close()
	})

	must(t, ctx.Close())
	isTrue(t, ctx.Closed())
	alive("after the Context's Release, while buffers hold it")

	// Nothing new is allocated in the closed Context; the borrowed buffer
	// holds it too, and keeps working until its own Close.
	_, err = memory.Alloc[float32](ctx, 1)
	errorIs(t, err, driver.ErrClosed)
	_, err = memory.AllocHost[float32](ctx, 1)
	errorIs(t, err, driver.ErrClosed)
	_, err = memory.AllocAsync[float32](s, 1)
	errorIs(t, err, driver.ErrClosed, "the stream lives on, but its Context is released")
	_, err = memory.Borrow[float32](ctx, dev.Ptr(), n, nil)
	errorIs(t, err, driver.ErrClosed)
	out := make([]float32, n)
	must(t, memory.CopyToDevice(borrowed, out))
	must(t, memory.CopyToHost(out, borrowed))
	must(t, memory.CopyToHostAsync(s, out, borrowed))
	must(t, s.Synchronize())
	notZero(t, borrowed.Ptr())
	must(t, borrowed.Close(), "Close only detaches a borrowed buffer")
	isZero(t, borrowed.Ptr())
	errorIs(t, memory.CopyToHost(out, borrowed), driver.ErrClosed)

	// The owned buffers and views work: synchronous copies (which bind
	// through the buffer's Hold), asynchronous ones and Fill.
	must(t, memory.CopyToDevice(dev, memIota(n, 1)))
	memSame(t, memIota(n/2, 1+n/2), memRead(t, view), "a view of held memory")
	must(t, memory.CopyDtoD(view, head))
	memSame(t, memIota(n/2, 1), memRead(t, view))
	pinned := host.Slice()
	mustLen(t, pinned, n)
	copy(pinned, memIota(n, 100))
	must(t, memory.CopyToDeviceAsync(s, async, pinned))
	must(t, memory.Fill(s, first8, float32(-1)))
	must(t, memory.CopyToHostAsync(s, out, async))
	must(t, s.Synchronize())
	want := memIota(n, 100)
	copy(want, memFilled(8, float32(-1)))
	memSame(t, want, out, "pinned memory to stream-ordered memory and back")
	must(t, memory.CopyDtoD(dev, async), "a synchronous copy from stream-ordered memory")
	memSame(t, want, memRead(t, dev))
	must(t, memory.CopyToDeviceAsync(s, dev, memIota(n, 7)))
	must(t, memory.CopyToHostAsync(s, pinned, dev))
	must(t, s.Synchronize())
	memSame(t, memIota(n, 7), pinned, "device memory to pinned memory")

	// Freeing succeeds, and the context lives until the last Free.
	must(t, async.Close(), "freed in stream order on its stream")
	must(t, async.Close(), "a second Free is a no-op")
	must(t, s.Synchronize())
	must(t, s.Close())
	alive("while buffers still hold it")
	must(t, dev.Close())
	must(t, dev.Close(), "a second Free is a no-op")
	isZero(t, view.Ptr(), "a view of freed memory")
	errorIs(t, memory.CopyToHost(out[:n/2], view), driver.ErrClosed)
	alive("while the pinned buffer still holds it")
	if all, ok := leaks(ctx.Driver()); ok {
		var left []backend.Leak
		for _, l := range all {
			if isMemory(l.Kind) {
				left = append(left, l)
			}
		}
		if hasLen(t, left, 1, "only the pinned buffer is left: %v", left) {
			equal(t, left[0].Kind, backend.LeakHostMemory)
		}
	}
	must(t, host.Close())
	must(t, host.Close(), "a second Free is a no-op")
	isNil(t, host.Slice())
	ended(t)
	noError(t, ctx.Close(), "a second Release is a no-op")
}
