package cufft_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// setup returns a context and a stream on the real GPU with
// NOCGO_CUDA_REQUIRE_GPU=1 (or wherever the driver loads), on the fake
// otherwise; both are closed when the test ends.
func setup(t testing.TB) (*driver.Driver, *driver.Context, *stream.Stream) {
	t.Helper()
	drv := cudatest.Driver(t)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, s.Close())
		require.NoError(t, ctx.Close())
	})
	return drv, ctx, s
}

func alloc[T any](t testing.TB, ctx *driver.Context, n int) *memory.Buffer[T] {
	t.Helper()
	b, err := memory.Alloc[T](ctx, n)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	return b
}

func download[T any](t testing.TB, s *stream.Stream, b *memory.Buffer[T]) []T {
	t.Helper()
	out := make([]T, b.Len())
	require.NoError(t, memory.CopyToHostAsync(s, out, b))
	require.NoError(t, s.Synchronize())
	return out
}
