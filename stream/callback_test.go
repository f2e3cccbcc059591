package stream_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance"
	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/stream"
)

// manyCallbacks queues n callbacks on a new stream, synchronizing every
// batch, and checks that every one ran, in order.
func manyCallbacks(t *testing.T, drv *driver.Driver, n, batch int) time.Duration {
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer ctx.Close()
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	defer s.Close()

	var next, wrong atomic.Int64
	begin := time.Now()
	for i := 0; i < n; i++ {
		want := int64(i)
		require.NoError(t, s.Callback(func() {
			if next.Add(1)-1 != want {
				wrong.Add(1)
			}
		}))
		if (i+1)%batch == 0 {
			require.NoError(t, s.Synchronize())
		}
	}
	require.NoError(t, s.Synchronize())
	took := time.Since(begin)
	assert.Equal(t, int64(n), next.Load(), "every callback ran")
	assert.Zero(t, wrong.Load(), "callbacks ran in stream order")
	return took
}

func TestMillionCallbacksFake(t *testing.T) {
	n := 1_000_000
	took := manyCallbacks(t, fake.New(fake.Devices(1)), n, 50_000)
	t.Logf("%d callbacks on the fake in %v", n, took)
}

// TestManyCallbacksGPU runs 100k host callbacks through the real driver's
// one trampoline; it must take seconds, not minutes.
func TestManyCallbacksGPU(t *testing.T) {
	drv := cudatest.Real(t)
	n := 100_000
	took := manyCallbacks(t, drv, n, 10_000)
	t.Logf("%d callbacks on the GPU in %v", n, took)
	assert.Less(t, took, 30*time.Second)
}

// TestCallbackPanicGPU: a panic on a real driver thread is recovered and
// returned by Synchronize; the process and the stream go on.
func TestCallbackPanicGPU(t *testing.T) {
	drv := cudatest.Real(t)
	ctx := conformance.Primary(t, drv)
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	defer s.Close()

	var after atomic.Bool
	require.NoError(t, s.Callback(func() { panic("on a driver thread") }))
	require.NoError(t, s.Callback(func() { after.Store(true) }))
	err = s.Synchronize()
	var pe *stream.CallbackPanicError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "on a driver thread", pe.Value)
	assert.True(t, after.Load(), "the next callback ran")
	require.NoError(t, s.Synchronize())
}
