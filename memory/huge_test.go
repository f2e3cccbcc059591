package memory_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
)

// TestAllocLargerThanMemory: every allocation path refuses a request larger
// than the (fake) device's memory with ErrOutOfMemory instead of taking the
// process down, leaves nothing behind, and keeps working afterwards.
func TestAllocLargerThanMemory(t *testing.T) {
	_, ctx, s := setup(t)
	const n = 1 << 40 // 4 TiB of float32, far beyond the fake's 8 GiB

	b, err := memory.Alloc[float32](ctx, n)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory)
	assert.Nil(t, b)

	ab, err := memory.AllocAsync[float32](s, n)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory)
	assert.ErrorContains(t, err, "cuMemAllocAsync")
	assert.Nil(t, ab)

	hb, err := memory.AllocHost[float32](ctx, n)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory)
	assert.ErrorContains(t, err, "cuMemHostAlloc")
	assert.Nil(t, hb)

	require.NoError(t, s.Synchronize())
	// Nothing was reserved by the failed requests: small ones still work.
	ok, err := memory.AllocAsync[float32](s, 16)
	require.NoError(t, err)
	require.NoError(t, ok.Close())
	h, err := memory.AllocHost[float32](ctx, 16)
	require.NoError(t, err)
	require.NoError(t, h.Close())
	require.NoError(t, s.Synchronize())
}
