package cudatest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// Interop code wraps another library's objects: Foreign makes them, and the
// wrappers work on them without owning them (closing a wrapper detaches;
// Foreign's own cleanup then destroys each object, which would fail if a
// wrapper had destroyed it).
func TestForeignObjectsAreWrappedNotOwned(t *testing.T) {
	drv := cudatest.Driver(t)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, ctx.Close()) })
	other := cudatest.NewForeign(t, ctx)

	s, err := stream.Wrap(ctx, other.Stream(true))
	require.NoError(t, err)
	ev, err := stream.WrapEvent(ctx, other.Event())
	require.NoError(t, err)
	const n = 256
	buf, err := memory.Borrow[float32](ctx, other.Alloc(4*n), n, other)
	require.NoError(t, err)

	host := make([]float32, n)
	for i := range host {
		host[i] = float32(i)
	}
	require.NoError(t, memory.CopyToDeviceAsync(s, buf, host))
	require.NoError(t, ev.Record(s))
	require.NoError(t, ev.Synchronize())
	got := make([]float32, n)
	require.NoError(t, memory.CopyToHostAsync(s, got, buf))
	require.NoError(t, s.Synchronize())
	assert.Equal(t, host, got)

	foreignCtx, err := driver.WrapContext(drv, other.Context())
	require.NoError(t, err)
	assert.Equal(t, driver.Wrapped, foreignCtx.Kind())

	require.NoError(t, buf.Close())
	require.NoError(t, ev.Close())
	require.NoError(t, s.Close())
	require.NoError(t, foreignCtx.Close())
	if f := fake.Of(drv); f != nil {
		// The foreign objects are still alive here: the wrappers did not
		// destroy them (Foreign's cleanup will).
		kinds := map[string]int{}
		for _, l := range f.Leaks() {
			kinds[string(l.Kind)]++
		}
		assert.Equal(t, map[string]int{"primary context": 1, "context": 1, "stream": 1, "event": 1, "device memory": 1}, kinds,
			"the foreign objects outlive their wrappers")
	}
}
