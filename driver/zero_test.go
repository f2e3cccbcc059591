package driver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/internal/zerotest"
)

// Every method of every exported type, on a nil pointer and on a zero
// value, returns an error (or a zero answer) and never panics.
func TestZeroValuesNeverPanic(t *testing.T) {
	values := []any{
		(*driver.Driver)(nil), (*driver.Device)(nil), (*driver.Context)(nil),
		(*driver.ContextOptions)(nil), driver.ContextKind(0), driver.ContextFlags(0),
		(*driver.NVRTC)(nil),
		(*driver.Properties)(nil), (*driver.PrimaryContextState)(nil),
		driver.Limit(0), driver.CacheConfig(0), driver.SharedMemConfig(0), driver.ComputeMode(0),
	}
	zerotest.Covers(t, ".", values...)
	zerotest.Methods(t, zerotest.Options{}, values...)
}

// A zero Device is refused like a nil one wherever a device is an argument,
// and so is a device of another *driver.Driver (whose ordinal names another
// device of this one's driver only by accident).
func TestZeroAndForeignDeviceArguments(t *testing.T) {
	drv, other := fake.New(fake.Devices(2)), fake.New(fake.Devices(2))
	dev, err := drv.Device(0)
	require.NoError(t, err)
	for name, peer := range map[string]*driver.Device{"nil": nil, "zero": {}} {
		_, err := dev.CanAccessPeer(peer)
		assert.ErrorIs(t, err, driver.ErrInvalidValue, name)
	}
	foreign, err := other.Device(1)
	require.NoError(t, err)
	_, err = dev.CanAccessPeer(foreign)
	assert.ErrorIs(t, err, driver.ErrWrongContext)
	assert.ErrorContains(t, err, "another *driver.Driver")

	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer ctx.Close()
	octx, err := foreign.PrimaryContext()
	require.NoError(t, err)
	defer octx.Close()
	assert.ErrorIs(t, ctx.EnablePeerAccess(octx), driver.ErrWrongContext)
	assert.ErrorIs(t, ctx.DisablePeerAccess(octx), driver.ErrWrongContext)
	assert.ErrorIs(t, ctx.EnablePeerAccess(&driver.Context{}), driver.ErrInvalidValue)
}
