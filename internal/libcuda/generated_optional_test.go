//go:build linux && (amd64 || arm64)

package libcuda

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/loader"
)

// The generated methods of the optional interfaces pass their arguments
// through: with libc's labs as the entry point, the first argument comes
// back as the CUresult.
func TestGeneratedOptionalMethodsPassArguments(t *testing.T) {
	l := testLibcuda(t, 13000, map[sym]string{
		symGraphDestroy: "labs", symGraphExecDestroy: "labs", symMemPoolDestroy: "labs",
		symGraphLaunch: "labs", symMemPoolTrimTo: "labs", symCtxDisablePeerAccess: "labs",
		symStreamBeginCapture: "labs", symMemAdvise: "labs", symMemPrefetchAsync: "labs",
		symDeviceSetMemPool: "labs",
	})
	assert.ErrorIs(t, l.GraphDestroy(400), backend.ErrInvalidHandle)
	assert.ErrorIs(t, l.GraphExecDestroy(400), backend.ErrInvalidHandle)
	assert.ErrorIs(t, l.MemPoolDestroy(1), backend.ErrInvalidValue)
	assert.ErrorIs(t, l.GraphLaunch(201, 7), backend.ErrInvalidContext)
	assert.ErrorIs(t, l.MemPoolTrimTo(400, 1<<40), backend.ErrInvalidHandle)
	assert.ErrorIs(t, l.CtxDisablePeerAccess(704), backend.Result(704))
	assert.ErrorIs(t, l.StreamBeginCapture(400, backend.CaptureModeRelaxed), backend.ErrInvalidHandle)
	assert.ErrorIs(t, l.MemAdvise(400, 64, backend.MemAdviseSetReadMostly, backend.MemLocation{Type: backend.MemLocationDevice}), backend.ErrInvalidHandle)
	assert.ErrorIs(t, l.MemPrefetchAsync(400, 64, backend.MemLocation{Type: backend.MemLocationDevice}, 0), backend.ErrInvalidHandle)
	assert.ErrorIs(t, l.DeviceSetMemPool(101, 1), backend.ErrInvalidDevice)

	// A CUdevice or int that does not fit a C int never reaches the driver.
	_, err := l.DeviceGetDefaultMemPool(1 << 32)
	assert.ErrorIs(t, err, backend.ErrInvalidDevice)
	assert.ErrorIs(t, l.DeviceSetMemPool(-1<<40, 1), backend.ErrInvalidDevice)
	_, err = l.OccupancyMaxActiveBlocksPerMultiprocessor(1, math.MaxInt32+1, 0)
	assert.ErrorIs(t, err, backend.ErrInvalidValue)
}

// Strict entry points (new ABIs under old base names) are refused on an
// older driver before any lookup: here they resolve to libc's abort,
// which must never run.
func TestGeneratedStrictEntryPointsRefused(t *testing.T) {
	l := testLibcuda(t, 12080, map[sym]string{
		symMemPrefetchAsync: "abort", symMemAdvise: "abort", symGraphExecUpdate: "abort",
	})
	var serr *loader.SymbolError
	err := l.MemPrefetchAsync(1, 64, backend.MemLocation{}, 0)
	require.ErrorAs(t, err, &serr)
	assert.Equal(t, "cuMemPrefetchAsync", serr.Symbol)
	assert.Equal(t, 13000, serr.Since)
	assert.Equal(t, 12080, serr.Have)
	require.ErrorAs(t, l.MemAdvise(1, 64, backend.MemAdviseSetReadMostly, backend.MemLocation{}), &serr)
	assert.Equal(t, "cuMemAdvise", serr.Symbol)

	old := testLibcuda(t, 11080, map[sym]string{symGraphExecUpdate: "abort"})
	_, err = old.GraphExecUpdate(1, 2)
	require.ErrorAs(t, err, &serr)
	assert.Equal(t, "cuGraphExecUpdate", serr.Symbol)
	assert.Contains(t, err.Error(), "older ABI")
}
