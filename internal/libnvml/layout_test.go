//go:build linux && (amd64 || arm64)

package libnvml

import (
	"errors"
	"os"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/loader"
)

// TestLayouts checks the Go declarations that NVML fills against nvml.h's
// sizes and offsets (the package doc lists them, with their source).
func TestLayouts(t *testing.T) {
	var m backend.NVMLMemory
	assert.Equal(t, uintptr(24), unsafe.Sizeof(m))
	assert.Equal(t, []uintptr{0, 8, 16}, []uintptr{unsafe.Offsetof(m.Total), unsafe.Offsetof(m.Free), unsafe.Offsetof(m.Used)})
	var u backend.NVMLUtilization
	assert.Equal(t, uintptr(8), unsafe.Sizeof(u))
	assert.Equal(t, uintptr(4), unsafe.Offsetof(u.Memory))
	var p pciInfo
	assert.Equal(t, uintptr(68), unsafe.Sizeof(p))
	assert.Equal(t, []uintptr{16, 20, 24, 28, 32, 36}, []uintptr{unsafe.Offsetof(p.domain), unsafe.Offsetof(p.bus), unsafe.Offsetof(p.device), unsafe.Offsetof(p.pciDeviceID), unsafe.Offsetof(p.pciSubSysteID), unsafe.Offsetof(p.busID)})
	var q processInfo
	assert.Equal(t, uintptr(24), unsafe.Sizeof(q))
	assert.Equal(t, []uintptr{8, 16, 20}, []uintptr{unsafe.Offsetof(q.usedGpuMemory), unsafe.Offsetof(q.gpuInstanceID), unsafe.Offsetof(q.computeInstanceID)})
	var e backend.NVMLEvent
	assert.Equal(t, uintptr(32), unsafe.Sizeof(e))
	assert.Equal(t, []uintptr{0, 8, 16, 24, 28}, []uintptr{unsafe.Offsetof(e.Device), unsafe.Offsetof(e.Type), unsafe.Offsetof(e.Data), unsafe.Offsetof(e.GPUInstanceID), unsafe.Offsetof(e.ComputeInstanceID)})
}

func TestCheckAndNeeds(t *testing.T) {
	var l Lib
	assert.NoError(t, l.check(symDeviceGetMemoryInfo, 0))
	err := l.check(symDeviceGetPowerUsage, 0xffffffff00000000|3)
	assert.ErrorIs(t, err, backend.NVMLNotSupported, "the upper half is not the status")
	assert.Equal(t, "nvmlDeviceGetPowerUsage: NVML_ERROR_NOT_SUPPORTED", err.Error())
	assert.EqualError(t, needs(11450), "needs NVML 11.450 (driver R450) or later")
}

// TestOpen opens libnvidia-ml where there is one (a GPU machine): NVML
// initialises and sees at least one device; elsewhere the error lists where
// it looked.
func TestOpen(t *testing.T) {
	l, err := Open()
	if err != nil {
		var le *loader.LibraryError
		require.True(t, errors.As(err, &le), "%v", err)
		assert.Contains(t, err.Error(), "libnvidia-ml.so.1")
		if os.Getenv("NOCGO_CUDA_REQUIRE_GPU") == "1" {
			t.Fatalf("no libnvidia-ml on a GPU machine: %v", err)
		}
		return
	}
	require.NoError(t, l.Init())
	defer func() { require.NoError(t, l.Shutdown()) }()
	n, err := l.DeviceCount()
	require.NoError(t, err)
	require.Positive(t, n)
	d, err := l.DeviceByIndex(0)
	require.NoError(t, err)
	name, err := l.DeviceName(d)
	require.NoError(t, err)
	pci, err := l.DevicePCIInfo(d)
	require.NoError(t, err)
	procs, err := l.DeviceComputeProcesses(d)
	require.NoError(t, err)
	v, err := l.Version()
	require.NoError(t, err)
	t.Logf("%s: NVML %s, device 0 %s at %s, %d compute processes", l.Path(), v, name, pci.BusID, len(procs))
	_, err = l.DeviceByUUID("GPU-not\x00a-uuid")
	assert.ErrorIs(t, err, backend.NVMLInvalidArgument, "a NUL in the key is refused before NVML")
}
