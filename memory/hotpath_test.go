package memory_test

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// stubAPI is a backend whose calls succeed and do nothing, so that the
// allocations measured around them are this package's alone. Methods it does
// not define panic (the embedded API is nil): the hot paths must not call
// them.
type stubAPI struct{ backend.API }

const stubCtx, stubStream = 0xc000, 0x5000

func (stubAPI) Init(uint32) error                           { return nil }
func (stubAPI) DeviceGet(i int) (int, error)                { return i, nil }
func (stubAPI) DeviceGetCount() (int, error)                { return 1, nil }
func (stubAPI) DevicePrimaryCtxRetain(int) (uintptr, error) { return stubCtx, nil }
func (stubAPI) DevicePrimaryCtxRelease(int) error           { return nil }
func (stubAPI) CtxGetCurrent() (uintptr, error)             { return stubCtx, nil }
func (stubAPI) MemAlloc(size uintptr) (uintptr, error)      { return 0x7000_0000_0000, nil }
func (stubAPI) MemFree(uintptr) error                       { return nil }
func (stubAPI) StreamGetCtx(uintptr) (uintptr, error)       { return stubCtx, nil }
func (stubAPI) MemcpyHtoDAsync(uintptr, unsafe.Pointer, uintptr, uintptr) error {
	return nil
}
func (stubAPI) MemcpyDtoHAsync(unsafe.Pointer, uintptr, uintptr, uintptr) error { return nil }
func (stubAPI) MemcpyDtoDAsync(uintptr, uintptr, uintptr, uintptr) error        { return nil }
func (stubAPI) MemsetD8Async(uintptr, uint8, uintptr, uintptr) error            { return nil }
func (stubAPI) MemsetD16Async(uintptr, uint16, uintptr, uintptr) error          { return nil }
func (stubAPI) MemsetD32Async(uintptr, uint32, uintptr, uintptr) error          { return nil }

// TestHotPathsAllocateNothing measures this package's own allocations on the
// hot paths (async copies, Fill, Ptr), with a backend that allocates nothing.
func TestHotPathsAllocateNothing(t *testing.T) {
	drv, err := driver.New(stubAPI{})
	require.NoError(t, err)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	s, err := stream.Wrap(ctx, stubStream)
	require.NoError(t, err)
	a, err := memory.Alloc[float32](ctx, 1024)
	require.NoError(t, err)
	b, err := memory.Alloc[float32](ctx, 1024)
	require.NoError(t, err)
	u8, err := memory.Alloc[uint8](ctx, 1024)
	require.NoError(t, err)
	u16, err := memory.Alloc[uint16](ctx, 1024)
	require.NoError(t, err)
	f64, err := memory.Alloc[float64](ctx, 1024)
	require.NoError(t, err)
	host := make([]float32, 1024)

	for name, f := range map[string]func(){
		"CopyToDeviceAsync": func() { _ = memory.CopyToDeviceAsync(s, a, host) },
		"CopyToHostAsync":   func() { _ = memory.CopyToHostAsync(s, host, a) },
		"CopyDtoDAsync":     func() { _ = memory.CopyDtoDAsync(s, b, a) },
		"Fill/float32":      func() { _ = memory.Fill(s, a, 1.5) },
		"Fill/uint8":        func() { _ = memory.Fill(s, u8, 7) },
		"Fill/uint16":       func() { _ = memory.Fill(s, u16, 7) },
		"Fill/float64":      func() { _ = memory.Fill(s, f64, 0) },
		"Ptr":               func() { _ = a.Ptr() },
	} {
		f() // and check that it succeeds on the stub
		assert.Zero(t, testing.AllocsPerRun(1000, f), name)
	}
	require.NoError(t, memory.CopyToDeviceAsync(s, a, host))
	require.NoError(t, memory.CopyToHostAsync(s, host, a))
	require.NoError(t, memory.CopyDtoDAsync(s, b, a))
	require.NoError(t, memory.Fill(s, a, 1.5))
	require.NoError(t, memory.Fill(s, u8, 7))
	require.NoError(t, memory.Fill(s, u16, 7))
	require.NoError(t, memory.Fill(s, f64, 0))
}
