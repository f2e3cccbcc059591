package memory_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
)

// noPools hides the fake's optional interfaces: a backend with the core
// API only.
type noPools struct{ backend.API }

func TestPoolsUnsupported(t *testing.T) {
	drv, err := driver.New(noPools{fake.NewBackend()})
	require.NoError(t, err)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer ctx.Close()
	_, err = memory.NewPool(ctx, memory.PoolOptions{})
	require.ErrorIs(t, err, errors.ErrUnsupported)
	assert.ErrorIs(t, err, memory.ErrNoPools)
	assert.True(t, strings.HasPrefix(err.Error(), "memory.NewPool: "), err.Error())
	_, err = memory.DefaultPool(ctx)
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	_, err = memory.CurrentPool(ctx)
	assert.ErrorIs(t, err, errors.ErrUnsupported)
}

func TestPoolBadInput(t *testing.T) {
	drv, ctx, s := setup(t, fake.Devices(2))
	var nilPool *memory.Pool
	assert.ErrorIs(t, nilPool.Close(), driver.ErrInvalidValue)
	_, err := nilPool.Stats()
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.ErrorIs(t, nilPool.Trim(0), driver.ErrInvalidValue)
	assert.Zero(t, nilPool.Handle())
	assert.Equal(t, "nil pool", nilPool.String())
	_, err = memory.NewPool(nil, memory.PoolOptions{})
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = memory.DefaultPool(nil)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)

	p, err := memory.NewPool(ctx, memory.PoolOptions{})
	require.NoError(t, err)
	assert.Contains(t, p.String(), "owned pool")
	assert.ErrorIs(t, p.SetAccess(nil, memory.AccessReadWrite), driver.ErrInvalidValue)
	_, err = p.Access(nil)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	dev1, err := drv.Device(1)
	require.NoError(t, err)
	err = p.SetAccess(dev1, memory.Access(7))
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.Equal(t, 1, strings.Count(err.Error(), "memory.Pool.SetAccess:"), err.Error())

	// MaxSize caps what the pool reserves.
	small, err := memory.NewPool(ctx, memory.PoolOptions{MaxSize: 1 << 20})
	require.NoError(t, err)
	_, err = memory.AllocFromPool[byte](s, small, 2<<20)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory)
	b, err := memory.AllocFromPool[byte](s, small, 1<<20)
	require.NoError(t, err)
	require.NoError(t, b.Close())
	require.NoError(t, s.Synchronize())
	require.NoError(t, small.Close())

	require.NoError(t, p.Close())
	assert.Contains(t, p.String(), "closed owned pool")
	_, err = p.ReleaseThreshold()
	assert.ErrorIs(t, err, driver.ErrClosed)
	assert.ErrorIs(t, p.SetReleaseThreshold(1), driver.ErrClosed)
	assert.ErrorIs(t, p.ResetHighWater(), driver.ErrClosed)
	assert.NoError(t, p.Close())
}

func TestPoolMemInfoCountsReserved(t *testing.T) {
	_, ctx, s := setup(t)
	p, err := memory.NewPool(ctx, memory.PoolOptions{ReleaseThreshold: 1 << 30})
	require.NoError(t, err)
	defer p.Close()
	free0, _, err := ctx.MemInfo()
	require.NoError(t, err)
	b, err := memory.AllocFromPool[byte](s, p, 8<<20)
	require.NoError(t, err)
	require.NoError(t, b.Close())
	require.NoError(t, s.Synchronize())
	free1, _, err := ctx.MemInfo()
	require.NoError(t, err)
	assert.Equal(t, free0-8<<20, free1, "memory cached by the pool counts as used")
	require.NoError(t, p.Trim(0))
	free2, _, err := ctx.MemInfo()
	require.NoError(t, err)
	assert.Equal(t, free0, free2)
}
