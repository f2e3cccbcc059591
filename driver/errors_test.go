package driver_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
)

// prefixed checks that err names op first, and only once.
func prefixed(t *testing.T, err error, op string) {
	t.Helper()
	require.Error(t, err, op)
	msg := err.Error()
	assert.True(t, strings.HasPrefix(msg, op+": "), "%q starts with %q", msg, op)
	assert.Equal(t, 1, strings.Count(msg, op+":"), "%q names %q once", msg, op)
}

// Errors name the exported call that failed first, once, then the object
// and the driver call, and wrap the cause.
func TestErrorsNameTheCall(t *testing.T) {
	var drv *driver.Driver
	_, err := drv.Version()
	prefixed(t, err, "driver.Driver.Version")
	_, err = drv.Device(0)
	prefixed(t, err, "driver.Driver.Device")
	var dev *driver.Device
	_, err = dev.Name()
	prefixed(t, err, "driver.Device.Name")
	var ctx *driver.Context
	prefixed(t, ctx.Synchronize(), "driver.Context.Synchronize")

	_, err = driver.New(nil)
	prefixed(t, err, "driver.New")

	fdrv := fake.New(
		fake.FailNth("cuDeviceGetName", 1, driver.ErrUnknown),
		fake.FailNth("cuDeviceGetAttribute", 1, driver.ErrUnknown),
		fake.FailNth("cuCtxSynchronize", 1, driver.ErrUnknown),
		fake.FailNth("cuDevicePrimaryCtxRelease", 1, driver.ErrUnknown),
	)
	d, err := fdrv.Device(0)
	require.NoError(t, err)
	_, err = d.Name()
	prefixed(t, err, "driver.Device.Name")
	assert.ErrorIs(t, err, driver.ErrUnknown)
	assert.Contains(t, err.Error(), "device 0: cuDeviceGetName: ")
	_, _, err = d.ComputeCapability()
	prefixed(t, err, "driver.Device.ComputeCapability")
	assert.NotContains(t, err.Error(), "driver.Device.Attribute")
	assert.ErrorIs(t, err, driver.ErrUnknown)

	c, err := d.PrimaryContext()
	require.NoError(t, err)
	err = c.Synchronize()
	prefixed(t, err, "driver.Context.Synchronize")
	assert.Contains(t, err.Error(), c.String()+": cuCtxSynchronize: ")
	err = c.Close()
	prefixed(t, err, "driver.Context.Close")
	assert.ErrorIs(t, err, driver.ErrUnknown)
	require.NoError(t, c.Close())

	_, err = driver.WrapContext(fdrv, 0)
	prefixed(t, err, "driver.WrapContext")
}
