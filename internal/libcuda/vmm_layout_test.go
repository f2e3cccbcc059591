//go:build linux && (amd64 || arm64)

package libcuda

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"

	"github.com/nocgo/cuda/driver/backend"
)

// TestVMMStructLayouts pins the C layouts the virtual memory entry points
// are called with (cuda.h 13.0; see cMemAllocationProp), and that the
// conversion keeps every field.
func TestVMMStructLayouts(t *testing.T) {
	var p cMemAllocationProp
	assert.Equal(t, uintptr(32), unsafe.Sizeof(p), "CUmemAllocationProp")
	for _, f := range []struct {
		name      string
		got, want uintptr
	}{
		{"type", unsafe.Offsetof(p.typ), 0},
		{"requestedHandleTypes", unsafe.Offsetof(p.requestedHandleTypes), 4},
		{"location", unsafe.Offsetof(p.location), 8},
		{"location.id", unsafe.Offsetof(p.location) + unsafe.Offsetof(p.location.id), 12},
		{"win32HandleMetaData", unsafe.Offsetof(p.win32HandleMetaData), 16},
		{"allocFlags.compressionType", unsafe.Offsetof(p.compressionType), 24},
		{"allocFlags.gpuDirectRDMACapable", unsafe.Offsetof(p.gpuDirectRDMACapable), 25},
		{"allocFlags.usage", unsafe.Offsetof(p.usage), 26},
		{"allocFlags.reserved", unsafe.Offsetof(p.reserved), 28},
	} {
		assert.Equal(t, f.want, f.got, "CUmemAllocationProp.%s", f.name)
	}
	assert.Equal(t, uintptr(12), unsafe.Sizeof(cMemAccessDesc{}), "CUmemAccessDesc")
	assert.Equal(t, uintptr(8), unsafe.Offsetof(cMemAccessDesc{}.flags), "CUmemAccessDesc.flags")

	in := backend.MemAllocationProp{
		Type:                 backend.MemAllocationTypePinned,
		RequestedHandleTypes: backend.MemHandlePOSIXFileDescriptor,
		Location:             backend.MemLocation{Type: backend.MemLocationDevice, ID: 3},
		CompressionType:      1,
		GPUDirectRDMACapable: 1,
		Usage:                7,
	}
	c := cAllocationProp(in)
	assert.Zero(t, c.win32HandleMetaData, "the Windows metadata is always NULL")
	assert.Equal(t, in, goAllocationProp(c))
}
