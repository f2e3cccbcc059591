package driver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// Nil objects answer with errors, never a panic.
func TestNilObjects(t *testing.T) {
	var drv *driver.Driver
	_, err := drv.Version()
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = drv.DeviceCount()
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = drv.Device(0)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, _, err = drv.NVRTCVersion()
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.Nil(t, drv.LibraryPaths())

	var dev *driver.Device
	_, err = dev.Name()
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, _, err = dev.ComputeCapability()
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = dev.PrimaryContext()
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = dev.NewContext(driver.ContextOptions{})
	assert.ErrorIs(t, err, driver.ErrInvalidValue)

	var ctx *driver.Context
	// Objects cannot be made in a nil context.
	_, err = stream.New(ctx, stream.Options{})
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = memory.Alloc[float32](ctx, 1)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.ErrorIs(t, ctx.Synchronize(), driver.ErrInvalidValue)
	assert.ErrorIs(t, ctx.Close(), driver.ErrInvalidValue)
	assert.Zero(t, ctx.Handle())
	assert.True(t, ctx.Closed())
	assert.Equal(t, "nil context", ctx.String())
	assert.Nil(t, ctx.Device())
	assert.Nil(t, ctx.Driver())
}

// Zero values (not made by this package) answer with errors too.
func TestZeroObjects(t *testing.T) {
	_, err := (&driver.Driver{}).DeviceCount()
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = (&driver.Device{}).Name()
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = (&driver.Device{}).PrimaryContext()
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	var c driver.Context
	assert.ErrorIs(t, c.Synchronize(), driver.ErrInvalidValue)
	assert.ErrorIs(t, c.Close(), driver.ErrInvalidValue)
	assert.True(t, c.Closed())
	// Objects cannot be made in a zero context.
	_, err = stream.New(&c, stream.Options{})
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = memory.Alloc[float32](&c, 1)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.Equal(t, "nil context", c.String())
	_, err = driver.WrapContext(&driver.Driver{}, 1)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
}
