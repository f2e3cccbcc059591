package memory_test

import (
	"sync/atomic"
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
	ctx, err := dev.NewContext(driver.ContextOptions{})
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
	api, h := fake.Of(drv).Backend(), ctx.Handle()
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

	s, err := stream.New(ctx, stream.Options{})
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
	assert.True(t, ctxAlive(t, fake.Of(drv).Backend(), h))
	require.NoError(t, ctx.Close())
	assert.False(t, ctxAlive(t, fake.Of(drv).Backend(), h), "no failed allocation kept a Hold: Release destroys the context at once")
}

func TestOpenIPCHoldsTheContext(t *testing.T) {
	_, exporter, _ := setup(t)
	drv, ctx := ownedCtx(t, fake.FailNth("cuIpcCloseMemHandle", 1, driver.ErrUnknown))
	api, h := fake.Of(drv).Backend(), ctx.Handle()
	a, err := memory.Alloc[float32](exporter, 64)
	require.NoError(t, err)
	defer a.Close()
	require.NoError(t, memory.CopyToDevice(a, iota32(64, 1)))
	ipc, err := a.IPCHandle()
	require.NoError(t, err)

	b, err := memory.OpenIPC[float32](ctx, ipc, 64)
	require.NoError(t, err)
	v, err := b.Slice(0, 8)
	require.NoError(t, err)
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

// primaryReleases wraps a backend and counts the primary context
// references released in the driver.
type primaryReleases struct {
	backend.API
	n atomic.Int64
}

func (p *primaryReleases) DevicePrimaryCtxRelease(dev int) error {
	err := p.API.DevicePrimaryCtxRelease(dev)
	if err == nil {
		p.n.Add(1)
	}
	return err
}

// TestBorrowedBufferOutlivesItsContext: a borrowed buffer holds its Context
// like any other object: it keeps working after the Context's Close, and the
// reference ends in the driver only with the borrow's Close.
func TestBorrowedBufferOutlivesItsContext(t *testing.T) {
	fb := fake.NewBackend()
	api := &primaryReleases{API: fb}
	drv, err := driver.New(api)
	require.NoError(t, err)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer func() {
		require.NoError(t, ctx.Close())
		assert.Empty(t, fb.Leaks())
	}()
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close()) }()
	owned, err := memory.Alloc[float32](ctx, 16)
	require.NoError(t, err)
	defer owned.Close()

	ref, err := dev.PrimaryContext() // a second reference, closed below
	require.NoError(t, err)
	b, err := memory.Borrow[float32](ref, owned.Ptr(), 16, nil)
	require.NoError(t, err)
	v, err := b.Slice(0, 4)
	require.NoError(t, err)
	require.NoError(t, ref.Close())
	assert.Zero(t, api.n.Load(), "the borrowed buffer holds ref's reference")

	// The borrowed buffer and its view keep working after ref's Close.
	assert.Equal(t, owned.Ptr(), b.Ptr())
	assert.Equal(t, owned.Ptr(), v.Ptr())
	assert.Regexp(t, `^borrowed buffer`, b.String())
	host := iota32(16, 0)
	ops := func() []error {
		return []error{
			memory.CopyToDevice(b, host),
			memory.CopyToHost(host, b),
			memory.CopyToDeviceAsync(s, b, host),
			memory.CopyToHostAsync(s, host[:4], v),
			memory.CopyDtoD(owned, b),
			memory.CopyDtoDAsync(s, b, owned),
			memory.Fill(s, b, 1),
		}
	}
	for i, err := range ops() {
		assert.NoError(t, err, "operation %d", i)
	}
	require.NoError(t, s.Synchronize())
	want := make([]float32, 16)
	for i := range want {
		want[i] = 1
	}
	assert.Equal(t, want, read(t, owned), "the borrowed buffer wrote the borrowed memory")

	require.NoError(t, b.Close(), "Close only detaches")
	assert.Equal(t, int64(1), api.n.Load(), "the borrow's Close ends ref's reference")
	assert.Regexp(t, `^freed borrowed buffer`, b.String())
	assert.Zero(t, b.Ptr())
	assert.Zero(t, v.Ptr())
	for i, err := range ops() {
		assert.ErrorIs(t, err, driver.ErrClosed, "operation %d", i)
	}
	require.NoError(t, memory.CopyToDevice(owned, iota32(16, 0)), "the owned buffer is not affected")
	assert.Equal(t, iota32(16, 0), read(t, owned))
}

func TestLastFreeReportsTheContextEnd(t *testing.T) {
	drv, ctx := ownedCtx(t, fake.FailNth("cuCtxDestroy", 1, driver.ErrUnknown))
	api, h := fake.Of(drv).Backend(), ctx.Handle()
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

// TestStreamOrderedFreeAfterReleaseOnASpecialStream: a special stream holds
// its Context like any stream: it keeps working after the Context's Close,
// and a stream-ordered buffer allocated on it is freed on it while it is
// open. Once it is closed, the buffer's Close synchronizes the (held)
// context and frees at once. The context ends with the last of them.
func TestStreamOrderedFreeAfterReleaseOnASpecialStream(t *testing.T) {
	for _, streamFirst := range []bool{false, true} {
		name := "buffer closed first"
		if streamFirst {
			name = "stream closed first"
		}
		t.Run(name, func(t *testing.T) {
			drv, ctx := ownedCtx(t)
			api, h := fake.Of(drv).Backend(), ctx.Handle()
			s, err := stream.Default(ctx)
			require.NoError(t, err)
			b, err := memory.AllocAsync[int32](s, 64)
			require.NoError(t, err)
			require.NoError(t, memory.Fill(s, b, int32(5)))
			require.NoError(t, ctx.Synchronize())
			require.NoError(t, ctx.Close())
			// The NULL stream holds the context: it works until its own
			// Close; so does the buffer.
			require.NoError(t, memory.Fill(s, b, int32(5)))
			require.NoError(t, s.Synchronize())
			want := make([]int32, 64)
			for i := range want {
				want[i] = 5
			}
			assert.Equal(t, want, read(t, b))
			assert.True(t, ctxAlive(t, api, h))
			if streamFirst {
				require.NoError(t, s.Close())
				assert.True(t, ctxAlive(t, api, h), "the buffer still holds the context")
				assert.ErrorIs(t, s.Synchronize(), driver.ErrClosed)
				// Close cannot queue on the closed NULL stream: it
				// synchronizes the (held) context and frees at once.
				require.NoError(t, b.Close())
				assert.Zero(t, b.Ptr())
				assert.False(t, ctxAlive(t, api, h), "destroyed with the Free")
				return
			}
			require.NoError(t, b.Close(), "freed in stream order on the NULL stream")
			assert.Zero(t, b.Ptr())
			assert.True(t, ctxAlive(t, api, h), "the stream still holds the context")
			require.NoError(t, s.Synchronize())
			require.NoError(t, s.Close())
			assert.False(t, ctxAlive(t, api, h), "destroyed with the stream's Close")
		})
	}
}
