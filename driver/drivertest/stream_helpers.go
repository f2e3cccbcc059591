package drivertest

import (
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/stream"
)

// streamContext retains device i's primary context for a stream or event
// case and releases it at the end of the test.
func streamContext(t *testing.T, drv *driver.Driver, i int) *driver.Context {
	t.Helper()
	dev, err := drv.Device(i)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, ctx.Release()) })
	return ctx
}

// streamOwnContext creates a context of its own on device i, destroyed at
// the end of the test.
func streamOwnContext(t *testing.T, drv *driver.Driver, i int) *driver.Context {
	t.Helper()
	dev, err := drv.Device(i)
	require.NoError(t, err)
	ctx, err := dev.NewContext(0)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, ctx.Release()) })
	return ctx
}

// rawStream creates a stream the way another library would: raw driver
// calls under its own binding. It is destroyed once, at the end of the test
// (after the cleanups registered later, such as the wrappers' Close).
func rawStream(t *testing.T, ctx *driver.Context, flags uint32, priority int) uintptr {
	t.Helper()
	b, err := ctx.Bind()
	require.NoError(t, err)
	h, r := ctx.API().StreamCreateWithPriority(flags, priority)
	b.Unbind()
	require.NoError(t, r)
	t.Cleanup(func() { require.NoError(t, ctx.API().StreamDestroy(h)) })
	return h
}

// rawEvent creates an event with raw driver calls, destroyed once at the end
// of the test.
func rawEvent(t *testing.T, ctx *driver.Context, flags uint32) uintptr {
	t.Helper()
	b, err := ctx.Bind()
	require.NoError(t, err)
	h, r := ctx.API().EventCreate(flags)
	b.Unbind()
	require.NoError(t, r)
	t.Cleanup(func() { require.NoError(t, ctx.API().EventDestroy(h)) })
	return h
}

// rawAlloc allocates n bytes of device memory in ctx with raw driver calls
// (the memory package is not used here), freed at the end of the test.
func rawAlloc(t *testing.T, ctx *driver.Context, n uintptr) uintptr {
	t.Helper()
	b, err := ctx.Bind()
	require.NoError(t, err)
	p, r := ctx.API().MemAlloc(n)
	b.Unbind()
	require.NoError(t, r)
	t.Cleanup(func() {
		b, err := ctx.Bind()
		require.NoError(t, err)
		defer b.Unbind()
		require.NoError(t, ctx.API().MemFree(p))
	})
	return p
}

// newStream creates an owned stream closed at the end of the test.
func newStream(t *testing.T, ctx *driver.Context, opts ...stream.Option) *stream.Stream {
	t.Helper()
	s, err := stream.New(ctx, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

// newEvent creates an owned event closed at the end of the test.
func newEvent(t *testing.T, ctx *driver.Context, flags ...stream.EventFlag) *stream.Event {
	t.Helper()
	ev, err := stream.NewEvent(ctx, flags...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, ev.Close()) })
	return ev
}

// readU32 copies the uint32 at device pointer p to the host on s and waits
// for it.
func readU32(t *testing.T, s *stream.Stream, p uintptr) uint32 {
	t.Helper()
	var v uint32
	b, err := s.Use()
	require.NoError(t, err)
	r := s.Context().API().MemcpyDtoHAsync(unsafe.Pointer(&v), p, 4, s.Handle())
	b.Unbind()
	require.NoError(t, r)
	require.NoError(t, s.Synchronize())
	return v
}

// memsetU32 queues a memset of n uint32 at p to v on s.
func memsetU32(t *testing.T, s *stream.Stream, p uintptr, v uint32, n uintptr) {
	t.Helper()
	b, err := s.Use()
	require.NoError(t, err)
	defer b.Unbind()
	require.NoError(t, s.Context().API().MemsetD32Async(p, v, n, s.Handle()))
}

// gate holds up s: work queued on s after it waits until release is called
// (a host callback that blocks). release is idempotent and is also called at
// the end of the test, so that a failing test never leaves the stream stuck.
// Do not wait on s (or on an event recorded after the gate) before release.
func gate(t *testing.T, s *stream.Stream) (release func()) {
	t.Helper()
	ch := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(ch) }) }
	require.NoError(t, s.Callback(func() {
		select {
		case <-ch:
		case <-time.After(time.Minute): // never hang a driver thread for good
		}
	}))
	t.Cleanup(release)
	return release
}
