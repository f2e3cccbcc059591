package fake

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// A 2D copy whose pitch and rows make the extent wrap is refused, with
// nothing copied and no panic: on the host side (not checked against an
// allocation) as on the device side.
func TestMemcpy2DOverflowRefused(t *testing.T) {
	b := bound(t)
	dev, err := b.MemAlloc(256)
	require.NoError(t, err)
	defer b.MemFree(dev)
	host := make([]byte, 256)
	for _, p := range []backend.Memcpy2D{
		{SrcMemoryType: backend.MemoryTypeHost, SrcHost: unsafe.Pointer(&host[0]), SrcPitch: 1 << 62,
			DstMemoryType: backend.MemoryTypeDevice, DstDevice: dev, DstPitch: 64, WidthInBytes: 16, Height: 4},
		{SrcMemoryType: backend.MemoryTypeDevice, SrcDevice: dev, SrcPitch: 1<<63 + 64,
			DstMemoryType: backend.MemoryTypeHost, DstHost: unsafe.Pointer(&host[0]), DstPitch: 64, WidthInBytes: 16, Height: 3},
		{SrcMemoryType: backend.MemoryTypeDevice, SrcDevice: dev, SrcPitch: 64, SrcY: ^uintptr(0) / 64,
			DstMemoryType: backend.MemoryTypeHost, DstHost: unsafe.Pointer(&host[0]), DstPitch: 64, WidthInBytes: 16, Height: 1},
	} {
		require.ErrorIs(t, b.Memcpy2D(&p), driver.ErrInvalidValue, "%+v", p)
	}
}
