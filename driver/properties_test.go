package driver_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
)

// Properties follow the fake's DeviceSpec, are read once, and a failed
// read is not kept.
func TestPropertiesFollowTheSpecAndAreCached(t *testing.T) {
	drv := fake.New(fake.WithDevice(fake.DeviceSpec{Name: "Small", Major: 8, Minor: 6, SMs: 28, TotalMem: 1 << 30,
		Attrs: map[driver.DeviceAttribute]int{driver.AttrL2CacheSize: 4 << 20}}),
		fake.FailNth("cuDeviceGetAttribute", 3, driver.ErrUnknown))
	dev, err := drv.Device(0)
	require.NoError(t, err)
	_, err = dev.Properties()
	require.ErrorIs(t, err, driver.ErrUnknown, "the third attribute read fails")
	assert.ErrorContains(t, err, "driver.Device.Properties: device 0: cuDeviceGetAttribute(")
	p, err := dev.Properties()
	require.NoError(t, err, "the failure was not kept")
	assert.Equal(t, "Small", p.Name)
	assert.Equal(t, [2]int{8, 6}, [2]int{p.Major, p.Minor})
	assert.Equal(t, 28, p.MultiprocessorCount)
	assert.Equal(t, uint64(1<<30), p.TotalMemory)
	assert.Equal(t, 4<<20, p.L2CacheSize)

	calls := fake.Of(drv).Calls()["cuDeviceGetAttribute"]
	again, err := dev.Properties()
	require.NoError(t, err)
	assert.Equal(t, p, again)
	assert.Equal(t, calls, fake.Of(drv).Calls()["cuDeviceGetAttribute"], "a second read makes no driver call")
}

// A device below compute capability 9.0 has the device runtime's sync
// depth; the H200-like default does not.
func TestSyncDepthFollowsComputeCapability(t *testing.T) {
	for major, supported := range map[int]bool{8: true, 9: false} {
		drv := fake.New(fake.WithDevice(fake.DeviceSpec{Major: major}))
		dev, err := drv.Device(0)
		require.NoError(t, err)
		ctx, err := dev.PrimaryContext()
		require.NoError(t, err)
		v, err := ctx.Limit(driver.LimitDevRuntimeSyncDepth)
		if supported {
			require.NoError(t, err)
			assert.Equal(t, uint64(2), v)
			kept, err := ctx.SetLimit(driver.LimitDevRuntimeSyncDepth, 5)
			require.NoError(t, err)
			assert.Equal(t, uint64(5), kept)
		} else {
			assert.ErrorIs(t, err, driver.ErrUnsupportedLimit)
		}
		require.NoError(t, ctx.Close())
	}
}

// onlyCore hides every optional interface of a backend.
type onlyCore struct{ backend.API }

// A backend without the optional interfaces is refused with
// errors.ErrUnsupported, and bad values before any driver call.
func TestLimitsAndFlagsRefusals(t *testing.T) {
	drv, err := driver.New(onlyCore{fake.NewBackend()})
	require.NoError(t, err)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer ctx.Close()
	_, err = ctx.Limit(driver.LimitStackSize)
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	_, err = ctx.SetLimit(driver.LimitStackSize, 1)
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	assert.ErrorIs(t, ctx.SetCacheConfig(driver.CachePreferL1), errors.ErrUnsupported)
	_, err = ctx.CacheConfig()
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	_, err = ctx.SharedMemConfig()
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	assert.ErrorIs(t, ctx.SetSharedMemConfig(driver.SharedMemBankSizeFourByte), errors.ErrUnsupported)
	assert.ErrorIs(t, dev.SetPrimaryContextFlags(driver.SchedSpin), errors.ErrUnsupported)

	drv = fake.New()
	dev, err = drv.Device(0)
	require.NoError(t, err)
	ctx, err = dev.PrimaryContext()
	require.NoError(t, err)
	defer ctx.Close()
	before := fake.Of(drv).Calls()["cuCtxSetCacheConfig"] + fake.Of(drv).Calls()["cuCtxSetLimit"] + fake.Of(drv).Calls()["cuDevicePrimaryCtxSetFlags"]
	assert.ErrorIs(t, ctx.SetCacheConfig(9), driver.ErrInvalidValue)
	assert.ErrorIs(t, ctx.SetSharedMemConfig(3), driver.ErrInvalidValue)
	_, err = ctx.SetLimit(driver.Limit(10), 1)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.ErrorContains(t, err, "CUlimit(10)")
	assert.ErrorIs(t, dev.SetPrimaryContextFlags(driver.SchedSpin|driver.SchedBlockingSync), driver.ErrInvalidValue)
	assert.ErrorIs(t, dev.SetPrimaryContextFlags(0x200), driver.ErrInvalidValue)
	after := fake.Of(drv).Calls()["cuCtxSetCacheConfig"] + fake.Of(drv).Calls()["cuCtxSetLimit"] + fake.Of(drv).Calls()["cuDevicePrimaryCtxSetFlags"]
	assert.Equal(t, before, after, "refused before any driver call")

	st, err := dev.PrimaryContextState()
	require.NoError(t, err)
	assert.Equal(t, driver.PrimaryContextState{Flags: driver.SchedAuto, Active: true}, st, "nothing changed")
	v, err := ctx.Limit(driver.LimitStackSize)
	require.NoError(t, err)
	assert.Equal(t, uint64(1024), v)
}

// A limit is the context's: a reset primary context starts from the
// defaults again, and another context never sees it.
func TestLimitsBelongToTheirContext(t *testing.T) {
	drv := fake.New()
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	own, err := dev.NewContext(driver.ContextOptions{})
	require.NoError(t, err)
	defer own.Close()
	_, err = ctx.SetLimit(driver.LimitMallocHeapSize, 1<<26)
	require.NoError(t, err)
	require.NoError(t, ctx.SetCacheConfig(driver.CachePreferShared))
	v, err := own.Limit(driver.LimitMallocHeapSize)
	require.NoError(t, err)
	assert.Equal(t, uint64(8<<20), v, "another context keeps its default")
	require.NoError(t, ctx.Close())
	require.NoError(t, dev.ResetPrimaryContext())
	ctx, err = dev.PrimaryContext()
	require.NoError(t, err)
	defer ctx.Close()
	v, err = ctx.Limit(driver.LimitMallocHeapSize)
	require.NoError(t, err)
	assert.Equal(t, uint64(8<<20), v, "a reset primary context starts from the defaults")
	cfg, err := ctx.CacheConfig()
	require.NoError(t, err)
	assert.Equal(t, driver.CachePreferNone, cfg)
	_, err = ctx.SetLimit(driver.LimitStackSize, 1<<40)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "a stack beyond the driver's bound (INVALID_VALUE on the H200)")
}
