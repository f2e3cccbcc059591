//go:build linux && (amd64 || arm64)

package libcuda

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/loader"
)

// TestGraphStructLayouts pins the C layouts the graph entry points are
// called with (cuda.h 13.0; see the comments beside the declarations).
func TestGraphStructLayouts(t *testing.T) {
	var k backend.KernelNodeParams
	assert.Equal(t, uintptr(72), unsafe.Sizeof(k), "CUDA_KERNEL_NODE_PARAMS_v2")
	for _, f := range []struct {
		name      string
		got, want uintptr
	}{
		{"func", unsafe.Offsetof(k.Func), 0},
		{"gridDimX", unsafe.Offsetof(k.Grid), 8},
		{"blockDimX", unsafe.Offsetof(k.Block), 20},
		{"sharedMemBytes", unsafe.Offsetof(k.SharedMem), 32},
		{"kernelParams", unsafe.Offsetof(k.Params), 40},
		{"extra", unsafe.Offsetof(k.Extra), 48},
		{"kern", unsafe.Offsetof(k.Kernel), 56},
		{"ctx", unsafe.Offsetof(k.Ctx), 64},
	} {
		assert.Equal(t, f.want, f.got, "CUDA_KERNEL_NODE_PARAMS_v2.%s", f.name)
	}

	var m backend.MemsetNodeParams
	assert.Equal(t, uintptr(40), unsafe.Sizeof(m), "CUDA_MEMSET_NODE_PARAMS")
	assert.Equal(t, []uintptr{0, 8, 16, 20, 24, 32}, []uintptr{
		unsafe.Offsetof(m.Dst), unsafe.Offsetof(m.Pitch), unsafe.Offsetof(m.Value),
		unsafe.Offsetof(m.ElementSize), unsafe.Offsetof(m.Width), unsafe.Offsetof(m.Height),
	}, "CUDA_MEMSET_NODE_PARAMS offsets")

	var u backend.GraphExecUpdateInfo
	assert.Equal(t, uintptr(24), unsafe.Sizeof(u), "CUgraphExecUpdateResultInfo")
	assert.Equal(t, []uintptr{0, 8, 16}, []uintptr{
		unsafe.Offsetof(u.Result), unsafe.Offsetof(u.ErrorNode), unsafe.Offsetof(u.ErrorFromNode),
	}, "CUgraphExecUpdateResultInfo offsets")

	var c memcpy3D
	assert.Equal(t, uintptr(200), unsafe.Sizeof(c), "CUDA_MEMCPY3D")
	assert.Equal(t, []uintptr{0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80}, []uintptr{
		unsafe.Offsetof(c.srcXInBytes), unsafe.Offsetof(c.srcY), unsafe.Offsetof(c.srcZ), unsafe.Offsetof(c.srcLOD),
		unsafe.Offsetof(c.srcMemoryType), unsafe.Offsetof(c.srcHost), unsafe.Offsetof(c.srcDevice),
		unsafe.Offsetof(c.srcArray), unsafe.Offsetof(c.reserved0), unsafe.Offsetof(c.srcPitch), unsafe.Offsetof(c.srcHeight),
	}, "CUDA_MEMCPY3D source offsets")
	assert.Equal(t, []uintptr{88, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184, 192}, []uintptr{
		unsafe.Offsetof(c.dstXInBytes), unsafe.Offsetof(c.dstY), unsafe.Offsetof(c.dstZ), unsafe.Offsetof(c.dstLOD),
		unsafe.Offsetof(c.dstMemoryType), unsafe.Offsetof(c.dstHost), unsafe.Offsetof(c.dstDevice),
		unsafe.Offsetof(c.dstArray), unsafe.Offsetof(c.reserved1), unsafe.Offsetof(c.dstPitch), unsafe.Offsetof(c.dstHeight),
		unsafe.Offsetof(c.widthInBytes), unsafe.Offsetof(c.height), unsafe.Offsetof(c.depth),
	}, "CUDA_MEMCPY3D destination and extent offsets")
}

// TestGraphOldABIRefused: on a driver older than the ABI called, a graph
// entry point whose base name changed ABI is refused before any call, even
// when the driver would hand out its old version.
func TestGraphOldABIRefused(t *testing.T) {
	// The stand-ins resolve (to libc's abort, which must never run).
	l := testLibcuda(t, 12020, map[sym]string{
		symStreamGetCaptureInfo: "abort",
		symGraphGetEdges:        "abort",
	})
	_, _, err := l.StreamGetCaptureInfo(0x1234)
	var serr *loader.SymbolError
	require.ErrorAs(t, err, &serr)
	assert.Equal(t, "cuStreamGetCaptureInfo", serr.Symbol)
	assert.Equal(t, 12030, serr.Since)
	assert.Equal(t, 12020, serr.Have)
	_, err = l.GraphEdgeCount(0x1234)
	require.ErrorAs(t, err, &serr)
	assert.Equal(t, "cuGraphGetEdges", serr.Symbol)
}
