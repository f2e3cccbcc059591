package driver_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/stream"
)

// A context teardown the driver refuses is reported, and the next Close
// tries again until it succeeds: nothing leaks.
func TestCloseRetriesAFailedEnd(t *testing.T) {
	for _, c := range []struct {
		name, op string
		open     func(*driver.Device) (*driver.Context, error)
	}{
		{"primary", "cuDevicePrimaryCtxRelease", (*driver.Device).PrimaryContext},
		{"owned", "cuCtxDestroy", func(d *driver.Device) (*driver.Context, error) {
			return d.NewContext(driver.ContextOptions{})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			drv := fake.New(fake.FailNth(c.op, 1, driver.ErrUnknown))
			dev, err := drv.Device(0)
			require.NoError(t, err)
			ctx, err := c.open(dev)
			require.NoError(t, err)
			err = ctx.Close()
			require.ErrorIs(t, err, driver.ErrUnknown)
			assert.Contains(t, err.Error(), c.op)
			assert.NotEmpty(t, fake.Of(drv).Leaks(), "the reference is still held after the failure")
			require.NoError(t, ctx.Close(), "the retry ends it")
			assert.Empty(t, fake.Of(drv).Leaks())
			require.NoError(t, ctx.Close(), "after the end, Close is a no-op")
		})
	}
}

// When the last object's Close ends a closed context and the driver refuses,
// the object is closed all the same, the error says so, and the Context's
// next Close ends the context.
func TestObjectCloseReportsAFailedEnd(t *testing.T) {
	drv := fake.New(fake.FailNth("cuCtxDestroy", 1, driver.ErrUnknown))
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.NewContext(driver.ContextOptions{})
	require.NoError(t, err)
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	require.NoError(t, ctx.Close(), "the stream holds the context: nothing ends yet")
	err = s.Close()
	require.ErrorIs(t, err, driver.ErrUnknown)
	assert.ErrorIs(t, s.Synchronize(), driver.ErrClosed, "the stream itself is closed")
	require.NoError(t, s.Close())
	require.NoError(t, ctx.Close(), "the context's next Close ends it")
	assert.Empty(t, fake.Of(drv).Leaks())
}

// Close racing calls that bind the context never lets them use a destroyed
// context: they succeed or fail with ErrClosed.
func TestCloseRacingBind(t *testing.T) {
	for round := 0; round < 50; round++ {
		drv := fake.New()
		dev, err := drv.Device(0)
		require.NoError(t, err)
		ctx, err := dev.NewContext(driver.ContextOptions{})
		require.NoError(t, err)
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 20; i++ {
					if err := ctx.Synchronize(); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		require.NoError(t, ctx.Close())
		wg.Wait()
		close(errs)
		for err := range errs {
			if !errors.Is(err, driver.ErrClosed) {
				t.Fatalf("round %d: a call racing Close failed with %v, want ErrClosed", round, err)
			}
		}
		assert.Empty(t, fake.Of(drv).Leaks())
	}
}
