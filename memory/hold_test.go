package memory_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// ownedCtx returns a fake driver and a context created on its device 0 (an
// owned context: its end is seen as cuCtxGetApiVersion failing). The
// context is released when the test ends, if the test did not release it.
func ownedCtx(t *testing.T, opts ...fake.Option) (*driver.Driver, *driver.Context) {
	t.Helper()
	drv := fake.New(opts...)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.NewContext(0)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx.Close()
		assert.Empty(t, fake.Of(drv).Leaks(), "objects left alive at the end of the test")
	})
	return drv, ctx
}

// ctxAlive reports whether the context with handle h still exists in the
// driver.
func ctxAlive(t *testing.T, api backend.API, h uintptr) bool {
	t.Helper()
	_, err := api.CtxGetAPIVersion(h)
	if err != nil {
		require.ErrorIs(t, err, driver.ErrInvalidContext)
		return false
	}
	return true
}

func TestFreeFailureAfterReleaseKeepsTheContext(t *testing.T) {
	drv, ctx := ownedCtx(t,
		fake.FailNth("cuMemFree", 1, driver.ErrUnknown),
		fake.FailNth("cuMemFreeHost", 1, driver.ErrUnknown))
	api, h := drv.API(), ctx.Handle()
	b, err := memory.Alloc[int32](ctx, 8)
	require.NoError(t, err)
	hb, err := memory.AllocHost[int32](ctx, 8)
	require.NoError(t, err)
	require.NoError(t, ctx.Close())

	err = b.Close()
	assert.ErrorIs(t, err, driver.ErrUnknown)
	assert.ErrorContains(t, err, "cuMemFree")
	assert.NotZero(t, b.Ptr(), "a failed Free changes nothing")
	assert.True(t, ctxAlive(t, api, h), "the buffer still holds its context")
	require.NoError(t, memory.CopyToDevice(b, []int32{1, 2, 3, 4, 5, 6, 7, 8}), "and still binds it")
	assert.Equal(t, []int32{1, 2, 3, 4, 5, 6, 7, 8}, read(t, b))

	err = hb.Close()
	assert.ErrorIs(t, err, driver.ErrUnknown)
	assert.ErrorContains(t, err, "cuMemFreeHost")
	require.Len(t, hb.Slice(), 8, "a failed Free changes nothing")

	require.NoError(t, b.Close(), "Free can be retried")
	assert.True(t, ctxAlive(t, api, h), "the pinned buffer still holds the context")
	require.NoError(t, hb.Close(), "Free can be retried")
	assert.False(t, ctxAlive(t, api, h), "destroyed with the last Free")
}

func TestFailedAllocationsReleaseTheirHold(t *testing.T) {
	drv, ctx := ownedCtx(t,
		fake.FailNth("cuMemAlloc", 1, driver.ErrOutOfMemory),
		fake.FailNth("cuMemAllocAsync", 1, driver.ErrOutOfMemory),
		fake.FailNth("cuMemHostAlloc", 1, driver.ErrOutOfMemory))
	_, exporter, _ := setup(t)
	exported, err := memory.Alloc[float32](exporter, 16)
	require.NoError(t, err)
	defer exported.Close()
	ipc, err := exported.IPCHandle()
	require.NoError(t, err)

	s, err := stream.New(ctx)
	require.NoError(t, err)
	_, err = memory.Alloc[float32](ctx, 16)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory)
	_, err = memory.AllocAsync[float32](s, 16)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory)
	_, err = memory.AllocHost[float32](ctx, 16)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory)
	_, err = memory.OpenIPC[float32](ctx, ipc, 17)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "more than was exported")
	require.NoError(t, s.Close())

	h := ctx.Handle()
	assert.True(t, ctxAlive(t, drv.API(), h))
	require.NoError(t, ctx.Close())
	assert.False(t, ctxAlive(t, drv.API(), h), "no failed allocation kept a Hold: Release destroys the context at once")
}

func TestOpenIPCHoldsTheContext(t *testing.T) {
	_, exporter, _ := setup(t)
	drv, ctx := ownedCtx(t, fake.FailNth("cuIpcCloseMemHandle", 1, driver.ErrUnknown))
	api, h := drv.API(), ctx.Handle()
	a, err := memory.Alloc[float32](exporter, 64)
	require.NoError(t, err)
	defer a.Close()
	require.NoError(t, memory.CopyToDevice(a, iota32(64, 1)))
	ipc, err := a.IPCHandle()
	require.NoError(t, err)

	b, err := memory.OpenIPC[float32](ctx, ipc, 64)
	require.NoError(t, err)
	v := b.Slice(0, 8)
	require.NoError(t, v.Err())
	require.NoError(t, ctx.Close())
	assert.True(t, ctxAlive(t, api, h), "the mapping holds the context")
	assert.Equal(t, iota32(8, 1), read(t, v), "a view binds through the mapping's Hold")
	err = b.Close()
	assert.ErrorIs(t, err, driver.ErrUnknown)
	assert.ErrorContains(t, err, "cuIpcCloseMemHandle")
	assert.True(t, ctxAlive(t, api, h), "a failed close keeps the Hold")
	require.NoError(t, b.Close())
	assert.Zero(t, v.Ptr())
	assert.False(t, ctxAlive(t, api, h), "destroyed once the mapping is closed")
}

func TestBorrowedBufferClosesWithItsContext(t *testing.T) {
	drv, ctx, s := setup(t)
	owned, err := memory.Alloc[float32](ctx, 16)
	require.NoError(t, err)
	defer owned.Close()
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ref, err := dev.PrimaryContext() // a second reference, released below
	require.NoError(t, err)
	b, err := memory.Borrow[float32](ref, owned.Ptr(), 16, nil)
	require.NoError(t, err)
	v := b.Slice(0, 4)
	require.NoError(t, v.Err())
	require.NoError(t, ref.Close())

	// The context is alive (setup holds it), but the borrowed buffer holds
	// nothing: its Context is released, so it is closed.
	assert.Zero(t, b.Ptr())
	assert.Zero(t, v.Ptr())
	assert.Regexp(t, `^orphaned borrowed buffer`, b.String())
	host := make([]float32, 16)
	for _, err := range []error{
		memory.CopyToDevice(b, host),
		memory.CopyToHost(host, b),
		memory.CopyToDeviceAsync(s, b, host),
		memory.CopyToHostAsync(s, host, v),
		memory.CopyDtoD(owned, b),
		memory.CopyDtoDAsync(s, b, owned),
		memory.Fill(s, b, 1),
	} {
		assert.ErrorIs(t, err, memory.ErrClosed)
		assert.ErrorContains(t, err, "released")
	}
	require.NoError(t, b.Close(), "Free only detaches")
	assert.Regexp(t, `^freed borrowed buffer`, b.String())
	require.NoError(t, memory.CopyToDevice(owned, iota32(16, 0)), "the owned buffer is not affected")
}

func TestLastFreeReportsTheContextEnd(t *testing.T) {
	drv, ctx := ownedCtx(t, fake.FailNth("cuCtxDestroy", 1, driver.ErrUnknown))
	api, h := drv.API(), ctx.Handle()
	b, err := memory.Alloc[float32](ctx, 16)
	require.NoError(t, err)
	require.NoError(t, ctx.Close())
	err = b.Close()
	assert.ErrorIs(t, err, driver.ErrUnknown, "the last Hold's error: cuCtxDestroy failed")
	assert.ErrorContains(t, err, "ending its context")
	assert.Zero(t, b.Ptr(), "the memory was freed all the same")
	require.NoError(t, b.Close(), "a second Free is a no-op")
	// The driver kept the context: destroy it, as the test's owner.
	require.True(t, ctxAlive(t, api, h))
	require.NoError(t, api.CtxDestroy(h))
}

func TestStreamOrderedFreeAfterReleaseOnASpecialStream(t *testing.T) {
	drv, ctx := ownedCtx(t)
	api, h := drv.API(), ctx.Handle()
	s := stream.Default(ctx)
	b, err := memory.AllocAsync[int32](s, 64)
	require.NoError(t, err)
	require.NoError(t, memory.Fill(s, b, int32(5)))
	require.NoError(t, ctx.Synchronize())
	require.NoError(t, ctx.Close())
	// The NULL stream binds the released Context, so it cannot be used any
	// more; the buffer can, through its Hold.
	assert.ErrorIs(t, s.Synchronize(), stream.ErrClosed)
	want := make([]int32, 64)
	for i := range want {
		want[i] = 5
	}
	assert.Equal(t, want, read(t, b))
	assert.True(t, ctxAlive(t, api, h))
	// Close cannot queue on the NULL stream of a released Context: it
	// synchronizes the (held) context and frees at once.
	require.NoError(t, b.Close())
	assert.Zero(t, b.Ptr())
	assert.False(t, ctxAlive(t, api, h), "destroyed with the Free")
}
