package stream_test

import (
	"errors"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/stream"
)

// Behaviour specific to this package, on the fake. The behaviour shared
// with the real driver is in the conformance suite (package conformance).

func TestWrapInvalidHandle(t *testing.T) {
	ctx := fakeContext(t)
	s, err := stream.Wrap(ctx, 0xdead0)
	require.ErrorIs(t, err, driver.ErrInvalidHandle, "the driver's error, wrapped")
	assert.Nil(t, s)
	assert.Contains(t, err.Error(), "stream.Wrap: handle 0xdead0")
	assert.Contains(t, err.Error(), "cuStreamGetCtx")

	// A destroyed stream (undefined behaviour on a real driver; the fake
	// tells).
	var h uintptr
	bound(t, ctx, func(api backend.API) {
		var r error
		h, r = api.StreamCreateWithPriority(0, 0)
		require.NoError(t, r)
		require.NoError(t, api.StreamDestroy(h))
	})
	_, err = stream.Wrap(ctx, h)
	assert.ErrorIs(t, err, driver.ErrInvalidHandle)
}

func TestWrapEventInvalidHandle(t *testing.T) {
	ctx := fakeContext(t)
	ev, err := stream.WrapEvent(ctx, 0xdead0)
	require.ErrorIs(t, err, driver.ErrInvalidHandle)
	assert.Nil(t, ev)
	assert.Contains(t, err.Error(), "stream.WrapEvent: handle 0xdead0")
	assert.Contains(t, err.Error(), "cuEventQuery")
}

func TestWrapNeverCreates(t *testing.T) {
	ctx, c := countingContext(t)
	for _, h := range []uintptr{0, 1, 2} {
		s, err := stream.Wrap(ctx, h)
		if h == 0 {
			require.ErrorIs(t, err, stream.ErrNullHandle)
			assert.Nil(t, s)
			continue
		}
		require.NoError(t, err)
		require.NoError(t, s.Synchronize())
		require.NoError(t, s.Close())
	}
	_, err := stream.WrapEvent(ctx, 0)
	require.ErrorIs(t, err, stream.ErrNullHandle)
	assert.Zero(t, c.creates.Load(), "Wrap never creates a stream")
	assert.Zero(t, c.streams.Load())
	assert.Zero(t, c.events.Load())
}

func TestWaitStreamLeaksNothing(t *testing.T) {
	ctx, c := countingContext(t)
	a, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	b, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	legacy, err := stream.Legacy(ctx)
	require.NoError(t, err)
	defer legacy.Close()
	for i := 0; i < 1000; i++ {
		require.NoError(t, b.WaitStream(a))
		require.NoError(t, a.WaitStream(legacy))
	}
	require.NoError(t, b.Synchronize())
	assert.Zero(t, c.events.Load(), "every internal event is destroyed")
	require.NoError(t, a.Close())
	require.NoError(t, b.Close())
	assert.Zero(t, c.streams.Load())
}

func TestCloseDestroysOnlyOwned(t *testing.T) {
	ctx, c := countingContext(t)
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	assert.Equal(t, int64(1), c.streams.Load())
	w, err := stream.Wrap(ctx, s.Handle())
	require.NoError(t, err)
	require.NoError(t, w.Close())
	assert.Equal(t, int64(1), c.streams.Load(), "closing a wrap does not destroy")
	def, err := stream.Default(ctx)
	require.NoError(t, err)
	require.NoError(t, def.Close())
	require.NoError(t, s.Close())
	require.NoError(t, s.Close())
	assert.Zero(t, c.streams.Load(), "destroyed exactly once")

	ev, err := stream.NewEvent(ctx, stream.EventOptions{})
	require.NoError(t, err)
	we, err := stream.WrapEvent(ctx, ev.Handle())
	require.NoError(t, err)
	require.NoError(t, we.Close())
	assert.Equal(t, int64(1), c.events.Load())
	require.NoError(t, ev.Close())
	require.NoError(t, ev.Close())
	assert.Zero(t, c.events.Load())
}

// currentAt is a backend that records the calling thread's current context
// at each cuStreamQuery.
type currentAt struct {
	backend.API
	mu  sync.Mutex
	cur []uintptr
}

func (c *currentAt) StreamQuery(h uintptr) error {
	cur, err := c.API.CtxGetCurrent()
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.cur = append(c.cur, cur)
	c.mu.Unlock()
	return c.API.StreamQuery(h)
}

func (c *currentAt) last() uintptr {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur[len(c.cur)-1]
}

// TestUseBindsOnlySpecial: work enqueued on a special stream makes the
// context current for the call (the driver resolves 0x0, 0x1 and 0x2 through
// it), work on any other stream binds nothing; either way the calling
// thread's context is left as it was.
func TestUseBindsOnlySpecial(t *testing.T) {
	api := &currentAt{API: fake.NewBackend(fake.Devices(1))}
	ctx := primary(t, newDriver(t, api))
	owned, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	defer owned.Close()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // a goroutine of its own: nothing is current on its thread
		defer wg.Done()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		_, err := owned.Query()
		require.NoError(t, err)
		assert.Zero(t, api.last(), "an owned stream binds nothing")

		for _, mk := range []func(*driver.Context) (*stream.Stream, error){stream.Default, stream.Legacy, stream.PerThread} {
			s, err := mk(ctx)
			require.NoError(t, err)
			_, err = s.Query()
			require.NoError(t, err)
			assert.Equal(t, ctx.Handle(), api.last(), "%s binds its context", s)
			cur, r := api.CtxGetCurrent()
			require.NoError(t, r)
			assert.Zero(t, cur, "%s leaves the thread as it was", s)
			require.NoError(t, s.Close())
		}
	}()
	wg.Wait()
}

// TestCloseAfterContextRelease: a stream and an event that outlive their
// *driver.Context reference keep working through their Hold, are still
// destroyed by Close, and the reference is released in the driver only with
// the last Close (the brief's change: before Holds, Close released it at
// once and Close called the driver unbound).
func TestCloseAfterContextRelease(t *testing.T) {
	ctx, c := countingContext(t)
	dev := ctx.Device()
	ref, err := dev.PrimaryContext() // the primary context stays alive through ctx
	require.NoError(t, err)
	s, err := stream.New(ref, stream.Options{})
	require.NoError(t, err)
	ev, err := stream.NewEvent(ref, stream.EventOptions{})
	require.NoError(t, err)
	require.NoError(t, ref.Close())
	assert.Zero(t, c.primaryReleases.Load(), "the reference is released only when its objects are closed")

	// The objects work after the Close.
	require.NoError(t, ev.Record(s))
	require.NoError(t, s.Synchronize())
	start, err := stream.NewEvent(ctx, stream.EventOptions{})
	require.NoError(t, err)
	defer start.Close()
	require.NoError(t, start.Record(s))
	require.NoError(t, start.Synchronize())
	_, err = stream.Elapsed(ev, start)
	require.NoError(t, err, "Elapsed binds through the event's Hold")

	require.NoError(t, s.Close())
	assert.Zero(t, c.primaryReleases.Load(), "the event still holds the reference")
	require.NoError(t, ev.Close())
	assert.Equal(t, int64(1), c.primaryReleases.Load(), "the last Close releases the reference")
	assert.Zero(t, c.streams.Load())
	assert.Equal(t, int64(1), c.events.Load(), "only start is left")
	// New objects cannot be made in the released reference.
	_, err = stream.New(ref, stream.Options{})
	assert.ErrorIs(t, err, driver.ErrClosed)
	_, err = stream.NewEvent(ref, stream.EventOptions{})
	assert.ErrorIs(t, err, driver.ErrClosed)
	_, err = stream.Default(ref)
	assert.ErrorIs(t, err, driver.ErrClosed)
	assert.NoError(t, ref.Close(), "a second Release is a no-op")
}

// ownedContext creates a context of its own on device 0 of a new fake
// driver with opts; the test releases it.
func ownedContext(t *testing.T, opts ...fake.Option) *driver.Context {
	t.Helper()
	dev, err := fake.New(opts...).Device(0)
	require.NoError(t, err)
	ctx, err := dev.NewContext(driver.ContextOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { ctx.Close() })
	return ctx
}

// destroyed reports whether the context with handle h is gone in the driver.
func destroyed(t *testing.T, ctx *driver.Context, h uintptr) bool {
	t.Helper()
	_, err := rawAPI(t, ctx).CtxGetAPIVersion(h)
	if err == nil {
		return false
	}
	require.ErrorIs(t, err, driver.ErrInvalidContext)
	return true
}

// TestFailedCreateReleasesHold: when the driver fails to create a stream or
// event, or New rejects its priority, the Hold taken for it is released:
// the context's Close then destroys it at once.
func TestFailedCreateReleasesHold(t *testing.T) {
	ctx := ownedContext(t,
		fake.FailNth("cuStreamCreateWithPriority", 1, driver.ErrOutOfMemory),
		fake.FailNth("cuEventCreate", 1, driver.ErrOutOfMemory),
		fake.FailNth("cuCtxGetStreamPriorityRange", 1, driver.ErrUnknown),
	)
	_, err := stream.New(ctx, stream.Options{})
	require.ErrorIs(t, err, driver.ErrOutOfMemory)
	_, err = stream.New(ctx, stream.Options{Priority: -1}) // a priority other than 0 reads the range
	require.ErrorIs(t, err, driver.ErrUnknown)
	_, err = stream.New(ctx, stream.Options{Priority: -100})
	require.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = stream.NewEvent(ctx, stream.EventOptions{})
	require.ErrorIs(t, err, driver.ErrOutOfMemory)
	_, err = stream.OpenIPCEvent(ctx, driver.IPCHandle{1}) // not a handle the fake made
	require.ErrorIs(t, err, driver.ErrInvalidValue)
	h := ctx.Handle()
	require.NoError(t, ctx.Close())
	assert.True(t, destroyed(t, ctx, h), "no Hold was left behind by the failures")
}

// TestFailedDestroyKeepsHold: when the driver fails to destroy a stream or
// an event, Close returns the error and the object stays open and holding
// its context; a second Close retries, and the last one ends the context.
func TestFailedDestroyKeepsHold(t *testing.T) {
	ctx := ownedContext(t,
		fake.FailNth("cuStreamDestroy", 1, driver.ErrUnknown),
		fake.FailNth("cuEventDestroy", 1, driver.ErrUnknown),
	)
	h := ctx.Handle()
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	ev, err := stream.NewEvent(ctx, stream.EventOptions{})
	require.NoError(t, err)
	require.NoError(t, ctx.Close())

	err = s.Close()
	require.ErrorIs(t, err, driver.ErrUnknown)
	assert.Contains(t, err.Error(), "cuStreamDestroy")
	assert.NotContains(t, s.String(), "closed", "the stream stays open")
	require.NoError(t, s.Synchronize(), "and usable")
	err = ev.Close()
	require.ErrorIs(t, err, driver.ErrUnknown)
	assert.Contains(t, err.Error(), "cuEventDestroy")
	require.NoError(t, ev.Record(s))
	require.NoError(t, ev.Synchronize())
	assert.False(t, destroyed(t, ctx, h), "the failed Closes keep their Holds")

	require.NoError(t, s.Close(), "the retry destroys it")
	assert.False(t, destroyed(t, ctx, h), "the event still holds the context")
	require.NoError(t, ev.Close())
	assert.True(t, destroyed(t, ctx, h), "the last Close destroys the owned context")
	require.NoError(t, ev.Close())
	_, err = ev.Query()
	assert.ErrorIs(t, err, driver.ErrClosed)
}

func TestDriverFailures(t *testing.T) {
	ctx := fakeContext(t,
		fake.FailNth("cuStreamCreateWithPriority", 1, driver.ErrOutOfMemory),
		fake.FailNth("cuEventCreate", 1, driver.ErrOutOfMemory),
		fake.FailNth("cuEventRecord", 1, driver.ErrLaunchFailed),
		fake.FailNth("cuStreamQuery", 1, driver.ErrIllegalAddress),
		fake.FailNth("cuStreamWaitEvent", 1, driver.ErrInvalidHandle),
		fake.FailNth("cuLaunchHostFunc", 1, driver.ErrNotSupported),
		fake.FailNth("cuEventElapsedTime", 1, driver.ErrUnknown),
	)
	_, err := stream.New(ctx, stream.Options{})
	require.ErrorIs(t, err, driver.ErrOutOfMemory)
	assert.Contains(t, err.Error(), "cuStreamCreateWithPriority")
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err, "the next one works")
	defer s.Close()

	_, err = stream.NewEvent(ctx, stream.EventOptions{})
	require.ErrorIs(t, err, driver.ErrOutOfMemory)
	ev, err := stream.NewEvent(ctx, stream.EventOptions{})
	require.NoError(t, err)
	defer ev.Close()

	err = ev.Record(s)
	require.ErrorIs(t, err, driver.ErrLaunchFailed)
	assert.Contains(t, err.Error(), "cuEventRecord")
	done, err := s.Query()
	require.ErrorIs(t, err, driver.ErrIllegalAddress, "an error that is not NOT_READY is an error")
	assert.False(t, done)
	err = s.Wait(ev)
	require.ErrorIs(t, err, driver.ErrInvalidHandle)
	assert.Contains(t, err.Error(), "cuStreamWaitEvent")
	err = s.Callback(func() {})
	require.ErrorIs(t, err, driver.ErrNotSupported)

	end, err := stream.NewEvent(ctx, stream.EventOptions{})
	require.NoError(t, err)
	defer end.Close()
	require.NoError(t, ev.Record(s))
	require.NoError(t, end.Record(s))
	require.NoError(t, end.Synchronize())
	_, err = stream.Elapsed(ev, end)
	require.ErrorIs(t, err, driver.ErrUnknown)
	_, err = stream.Elapsed(ev, end)
	require.NoError(t, err)
}

func TestCallbackPanicErrorText(t *testing.T) {
	e := &stream.CallbackPanicError{Stream: 0x40, Value: "boom", More: 2}
	assert.Equal(t, "stream.Stream.Synchronize: stream 0x40: host callback panicked: boom (and 2 more callbacks panicked)", e.Error())
	assert.Nil(t, e.Unwrap())
	inner := errors.New("inner")
	e = &stream.CallbackPanicError{Stream: 0x40, Value: inner}
	assert.Equal(t, "stream.Stream.Synchronize: stream 0x40: host callback panicked: inner", e.Error())
	assert.ErrorIs(t, e, inner)
}

func TestFlagStrings(t *testing.T) {
	assert.Equal(t, "Blocking", stream.Blocking.String())
	assert.Equal(t, "NonBlocking", stream.NonBlocking.String())
	assert.Equal(t, "Flag(0x4)", stream.Flag(4).String())
	assert.Equal(t, "Default", stream.EventFlag(0).String())
	assert.Equal(t, "DisableTiming|Interprocess", (stream.Interprocess | stream.DisableTiming).String())
	assert.Equal(t, "BlockingSync|0x10", (stream.BlockingSync | 0x10).String())
}

// TestIPCEventFake shares an event between two fake backends, the fake's
// two processes: the opener sees the exporter's stream.
func TestIPCEventFake(t *testing.T) {
	exporter := fakeContext(t)
	importer := fakeContext(t)
	s, err := stream.New(exporter, stream.Options{})
	require.NoError(t, err)
	defer s.Close()
	ev, err := stream.NewEvent(exporter, stream.EventOptions{Flags: stream.Interprocess | stream.DisableTiming})
	require.NoError(t, err)
	defer ev.Close()
	require.NoError(t, s.Callback(func() {}))
	require.NoError(t, ev.Record(s))
	h, err := ev.IPCHandle()
	require.NoError(t, err)

	_, err = stream.OpenIPCEvent(exporter, h)
	require.ErrorIs(t, err, driver.ErrInvalidContext, "not in the exporting process")

	opened, err := stream.OpenIPCEvent(importer, h)
	require.NoError(t, err)
	assert.False(t, opened.Owned())
	f, known := opened.Flags()
	assert.True(t, known)
	assert.Equal(t, stream.Interprocess|stream.DisableTiming, f)
	assert.Contains(t, opened.String(), "IPC-opened")
	done, err := opened.Query()
	require.NoError(t, err)
	assert.False(t, done, "the exporter's stream has work pending")

	is, err := stream.New(importer, stream.Options{})
	require.NoError(t, err)
	defer is.Close()
	require.NoError(t, is.Wait(opened))
	require.NoError(t, is.Synchronize())
	done, err = ev.Query()
	require.NoError(t, err)
	assert.True(t, done, "the wait in the importer completed the exporter's event")
	// Record works on the opened event too (cuda.h: "cuEventRecord,
	// cuEventSynchronize, cuStreamWaitEvent and cuEventQuery may be used in
	// either process"), and the exporter sees it.
	require.NoError(t, is.Callback(func() {}))
	require.NoError(t, opened.Record(is), "record an IPC-opened event in the importing process")
	done, err = ev.Query()
	require.NoError(t, err)
	assert.False(t, done, "the exporter sees the importer's pending record")
	require.NoError(t, is.Synchronize())
	require.NoError(t, ev.Synchronize())

	_, err = stream.Elapsed(opened, opened)
	assert.ErrorIs(t, err, driver.ErrInvalidHandle, "IPC events do not time")
	require.NoError(t, opened.Close())
	require.NoError(t, opened.Close())
	_, err = opened.Query()
	assert.ErrorIs(t, err, driver.ErrClosed)
}

// TestConcurrentUse hammers one stream and one event from many goroutines
// (run with -race).
func TestConcurrentUse(t *testing.T) {
	ctx := fakeContext(t)
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	defer s.Close()
	ev, err := stream.NewEvent(ctx, stream.EventOptions{})
	require.NoError(t, err)
	defer ev.Close()
	o, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	defer o.Close()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				assert.NoError(t, ev.Record(s))
				assert.NoError(t, o.Wait(ev))
				_, err := s.Query()
				assert.NoError(t, err)
				_, err = ev.Query()
				assert.NoError(t, err)
				assert.NoError(t, s.Callback(func() {}))
				if i%50 == 0 {
					assert.NoError(t, o.WaitStream(s))
					assert.NoError(t, s.Synchronize())
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, o.Synchronize())
	require.NoError(t, s.Synchronize())
}
