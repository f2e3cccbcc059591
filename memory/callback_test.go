package memory_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// within runs f on a goroutine of its own and returns its error, failing the
// test if f has not returned after a while: a deadlock.
func within(t *testing.T, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: deadlocked (no return after 20s)", what)
		return nil
	}
}

// A host callback that frees memory while the main goroutine frees the same
// buffer (cuMemFree waits for the callback) must not deadlock: the callback
// gets ErrNotPermitted, as the driver forbids CUDA calls from host
// callbacks, and the main goroutine's Close frees the memory.
func TestCloseFromCallbackDoesNotDeadlock(t *testing.T) {
	drv := fake.New(fake.Devices(1))
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer ctx.Close()
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)

	buf, err := memory.Alloc[float32](ctx, 64)
	require.NoError(t, err)
	host, err := memory.AllocHost[float32](ctx, 64)
	require.NoError(t, err)
	async, err := memory.AllocAsync[float32](s, 64)
	require.NoError(t, err)
	var cbBuf, cbHost, cbAsync, cbFreeAsync, cbAlloc, cbSync error
	require.NoError(t, s.Callback(func() {
		cbBuf = buf.Close()
		cbHost = host.Close()
		cbAsync = async.Close()
		cbFreeAsync = async.FreeAsync(s)
		var b *memory.Buffer[byte]
		b, cbAlloc = memory.Alloc[byte](ctx, 8)
		if b != nil {
			b.Close()
		}
		cbSync = s.Synchronize()
	}))
	require.NoError(t, within(t, "Buffer.Close while a callback closes it", buf.Close))
	require.NoError(t, within(t, "Synchronize", s.Synchronize))
	for what, err := range map[string]error{
		"Buffer.Close": cbBuf, "HostBuffer.Close": cbHost, "async Buffer.Close": cbAsync,
		"Buffer.FreeAsync": cbFreeAsync, "Alloc": cbAlloc, "Stream.Synchronize": cbSync,
	} {
		assert.ErrorIs(t, err, driver.ErrNotPermitted, "%s from a host callback", what)
	}
	assert.Contains(t, cbBuf.Error(), "host callback")

	// What the callback could not close is still open, and closes now.
	assert.True(t, buf.Closed())
	assert.False(t, async.Closed())
	assert.NotNil(t, host.Slice())
	require.NoError(t, async.Close())
	require.NoError(t, host.Close())
	// Calls from this goroutine work as before.
	b, err := memory.Alloc[byte](ctx, 8)
	require.NoError(t, err)
	require.NoError(t, b.Close())
	require.NoError(t, s.Close())
	assertNoLeaks(t, drv)
}

// The same on the legacy default stream, which binds its context for each
// call, and for a pinned buffer: no deadlock, no leak.
func TestCloseFromCallbackLegacyStream(t *testing.T) {
	drv := fake.New(fake.Devices(1))
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer ctx.Close()
	s, err := stream.Legacy(ctx)
	require.NoError(t, err)
	defer s.Close()

	host, err := memory.AllocHost[float32](ctx, 64)
	require.NoError(t, err)
	var cbErr error
	require.NoError(t, s.Callback(func() { cbErr = host.Close() }))
	require.NoError(t, within(t, "Synchronize", s.Synchronize))
	assert.ErrorIs(t, cbErr, driver.ErrNotPermitted)
	require.NoError(t, within(t, "HostBuffer.Close", host.Close))
	assertNoLeaks(t, drv)
}
