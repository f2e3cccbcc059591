//go:build linux && (amd64 || arm64)

package libcuda

import (
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/dl"
)

// cLaunchConfig is CUlaunchConfig on 64-bit Linux: 56 bytes, checked
// against cuda.h 13.0's declaration as mirrored by Triton's launcher
// (comment "= 56 bytes", hStream after 7 unsigned ints and 4 bytes of
// padding) and a ctypes mirror (gridDim*, blockDim*, sharedMemBytes:
// c_uint; hStream: c_void_p; attrs: pointer; numAttrs: c_uint).
type cLaunchConfig struct {
	gridDimX, gridDimY, gridDimZ    uint32 // offsets 0, 4, 8
	blockDimX, blockDimY, blockDimZ uint32 // 12, 16, 20
	sharedMemBytes                  uint32 // 24
	_                               uint32 // 28: padding before the pointer
	hStream                         uintptr
	attrs                           unsafe.Pointer // 40: *cLaunchAttribute
	numAttrs                        uint32         // 48
	_                               uint32         // 52: tail padding
}

// cLaunchAttribute is CUlaunchAttribute: a CUlaunchAttributeID (4 bytes),
// 4 bytes of padding (cuda.h: char pad[8 - sizeof(CUlaunchAttributeID)]),
// then the 64-byte CUlaunchAttributeValue union (8-byte aligned: it holds
// pointers): 72 bytes. In the union, cooperative is an int at offset 0 and
// clusterDim three unsigned ints at 0, 4, 8 (cuda.h 13.0; the Julia and
// ctypes mirrors agree).
type cLaunchAttribute struct {
	id    uint32
	_     uint32
	value [8]uint64
}

// CUlaunchAttributeID values (cuda.h; the C#, Julia and Fortran mirrors
// agree).
const (
	launchAttrCooperative      = 2 // CU_LAUNCH_ATTRIBUTE_COOPERATIVE
	launchAttrClusterDimension = 4 // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
)

// Sizes and offsets fixed at compile time: each line fails to compile if
// the Go layout drifts from the C one.
var (
	_ [unsafe.Sizeof(cLaunchConfig{}) - 56]byte
	_ [56 - unsafe.Sizeof(cLaunchConfig{})]byte
	_ [unsafe.Offsetof(cLaunchConfig{}.hStream) - 32]byte
	_ [32 - unsafe.Offsetof(cLaunchConfig{}.hStream)]byte
	_ [unsafe.Offsetof(cLaunchConfig{}.attrs) - 40]byte
	_ [40 - unsafe.Offsetof(cLaunchConfig{}.attrs)]byte
	_ [unsafe.Offsetof(cLaunchConfig{}.numAttrs) - 48]byte
	_ [48 - unsafe.Offsetof(cLaunchConfig{}.numAttrs)]byte
	_ [unsafe.Sizeof(cLaunchAttribute{}) - 72]byte
	_ [72 - unsafe.Sizeof(cLaunchAttribute{})]byte
	_ [unsafe.Offsetof(cLaunchAttribute{}.value) - 8]byte
	_ [8 - unsafe.Offsetof(cLaunchAttribute{}.value)]byte
)

// launchBlock is a CUlaunchConfig with room for its attributes, in one
// allocation.
type launchBlock struct {
	cfg   cLaunchConfig
	attrs [2]cLaunchAttribute
}

// newLaunchBlock converts cfg; attrs points into the block itself, which
// the caller keeps alive over the call.
func newLaunchBlock(cfg *backend.LaunchConfig) *launchBlock {
	b := &launchBlock{cfg: cLaunchConfig{
		gridDimX: cfg.Grid[0], gridDimY: cfg.Grid[1], gridDimZ: cfg.Grid[2],
		blockDimX: cfg.Block[0], blockDimY: cfg.Block[1], blockDimZ: cfg.Block[2],
		sharedMemBytes: cfg.SharedMem,
		hStream:        cfg.Stream,
	}}
	n := 0
	if cfg.Cooperative {
		b.attrs[n].id = launchAttrCooperative
		b.attrs[n].value[0] = 1 // int cooperative = 1 (little-endian: the low 4 bytes)
		n++
	}
	if cfg.Cluster != [3]uint32{} {
		b.attrs[n].id = launchAttrClusterDimension
		// clusterDim.x, .y at bytes 0-7, .z at 8-11 (little-endian).
		b.attrs[n].value[0] = uint64(cfg.Cluster[0]) | uint64(cfg.Cluster[1])<<32
		b.attrs[n].value[1] = uint64(cfg.Cluster[2])
		n++
	}
	if n > 0 {
		b.cfg.attrs = unsafe.Pointer(&b.attrs[0])
		b.cfg.numAttrs = uint32(n)
	}
	return b
}

// LaunchKernelEx is cuLaunchKernelEx(const CUlaunchConfig *config,
// CUfunction f, void **kernelParams, void **extra) with extra NULL and the
// attributes cfg asks for.
func (l *libcuda) LaunchKernelEx(f uintptr, cfg *backend.LaunchConfig, params unsafe.Pointer) error {
	if cfg == nil {
		return backend.ErrInvalidValue
	}
	p, err := l.fn(symLaunchKernelEx)
	if err != nil {
		return err
	}
	b := newLaunchBlock(cfg)
	r := dl.Call4(p, uintptr(unsafe.Pointer(b)), f, uintptr(params), 0)
	runtime.KeepAlive(b)
	return check(r)
}

// OccupancyMaxActiveClusters is cuOccupancyMaxActiveClusters(int
// *numClusters, CUfunction func, const CUlaunchConfig *config).
func (l *libcuda) OccupancyMaxActiveClusters(f uintptr, cfg *backend.LaunchConfig) (int, error) {
	if cfg == nil {
		return 0, backend.ErrInvalidValue
	}
	p, err := l.fn(symOccupancyMaxActiveClusters)
	if err != nil {
		return 0, err
	}
	b := newLaunchBlock(cfg)
	var n int32
	r := dl.Call3(p, uintptr(unsafe.Pointer(&n)), f, uintptr(unsafe.Pointer(b)))
	runtime.KeepAlive(b)
	return int(n), check(r)
}

var (
	_ backend.KernelLauncherEx = (*libcuda)(nil)
	_ backend.Occupancy        = (*libcuda)(nil)
)
