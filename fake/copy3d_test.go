package fake

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

func TestMemcpy3DSubBox(t *testing.T) {
	b := bound(t)
	// A device volume of 4 slices of 3 rows, pitch 8; copy a 2 x 2 x 2
	// box from host (x 1, y 1, z 1 of a 4 x 3 x 3 volume) to (x 3, y 0, z 2).
	p, err := b.MemAlloc(8 * 3 * 4)
	require.NoError(t, err)
	defer b.MemFree(p)
	require.NoError(t, b.MemsetD8(p, 0, 8*3*4))
	host := make([]byte, 4*3*3)
	for i := range host {
		host[i] = byte(i + 1)
	}
	c := backend.Memcpy3D{
		SrcXInBytes: 1, SrcY: 1, SrcZ: 1, SrcMemoryType: backend.MemoryTypeHost,
		SrcHost: unsafe.Pointer(&host[0]), SrcPitch: 4, SrcHeight: 3,
		DstXInBytes: 3, DstZ: 2, DstMemoryType: backend.MemoryTypeDevice,
		DstDevice: p, DstPitch: 8, DstHeight: 3,
		WidthInBytes: 2, Height: 2, Depth: 2,
	}
	require.NoError(t, b.Memcpy3D(&c))
	got := readDevice(t, b, p, 8*3*4)
	want := make([]byte, len(got))
	for z := range 2 {
		for y := range 2 {
			for x := range 2 {
				want[((2+z)*3+y)*8+3+x] = host[((1+z)*3+1+y)*4+1+x]
			}
		}
	}
	assert.Equal(t, want, got)

	bad := c
	bad.DstPitch = 4 // less than x + width
	assert.ErrorIs(t, b.Memcpy3D(&bad), driver.ErrInvalidValue)
	bad = c
	bad.DstHeight = 1 // less than y + height
	assert.ErrorIs(t, b.Memcpy3D(&bad), driver.ErrInvalidValue)
	bad = c
	bad.DstZ = 3 // past the allocation
	assert.ErrorIs(t, b.Memcpy3D(&bad), driver.ErrInvalidValue)
	bad = c
	bad.SrcHost = nil
	assert.ErrorIs(t, b.Memcpy3DAsync(&bad, 0), driver.ErrInvalidValue)
	bad = c
	bad.DstZ = ^uintptr(0) / 2
	assert.ErrorIs(t, b.Memcpy3D(&bad), driver.ErrInvalidValue)
	assert.ErrorIs(t, b.Memcpy3D(nil), driver.ErrInvalidValue)
	assert.Equal(t, want, readDevice(t, b, p, 8*3*4), "bad copies change nothing")
}
