//go:build linux && (amd64 || arm64)

package libcuda

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/loader"
)

// The context-configuration and primary-flags entry points pass their
// arguments through (libc's labs returns its first argument as the
// CUresult) and read their results back.
func TestContextConfigPassesArguments(t *testing.T) {
	l := testLibcuda(t, 13000, map[sym]string{
		symCtxSetLimit: "labs", symCtxSetCacheConfig: "labs", symCtxSetSharedMemConfig: "labs",
		symDevicePrimaryCtxSetFlags: "labs",
	})
	assert.ErrorIs(t, l.CtxSetLimit(backend.Limit(backend.ErrUnsupportedLimit), 1<<40), backend.ErrUnsupportedLimit)
	assert.NoError(t, l.CtxSetLimit(backend.LimitStackSize, 4096))
	assert.ErrorIs(t, l.CtxSetCacheConfig(backend.CachePreferShared), backend.ErrInvalidValue)
	assert.NoError(t, l.CtxSetCacheConfig(backend.CachePreferNone))
	assert.ErrorIs(t, l.CtxSetSharedMemConfig(backend.SharedMemBankSizeEightByte), backend.ErrOutOfMemory)
	assert.ErrorIs(t, l.DevicePrimaryCtxSetFlags(101, 4), backend.ErrInvalidDevice)
	assert.NoError(t, l.DevicePrimaryCtxSetFlags(0, 4))
	assert.ErrorIs(t, l.DevicePrimaryCtxSetFlags(1<<32, 0), backend.ErrInvalidDevice, "a CUdevice that fits no C int never reaches the driver")
}

// cuDevicePrimaryCtxSetFlags is strict: a driver before CUDA 11.0 would
// serve the form that refuses an active primary context.
func TestPrimaryCtxSetFlagsStrict(t *testing.T) {
	l := testLibcuda(t, 10020, map[sym]string{symDevicePrimaryCtxSetFlags: "abort"})
	var serr *loader.SymbolError
	require.ErrorAs(t, l.DevicePrimaryCtxSetFlags(0, 4), &serr)
	assert.Equal(t, "cuDevicePrimaryCtxSetFlags", serr.Symbol)
	assert.Equal(t, 11000, serr.Since)
}
