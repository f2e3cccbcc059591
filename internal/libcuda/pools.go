//go:build linux && (amd64 || arm64)

package libcuda

import (
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/dl"
)

// The hand-written methods of backend.MemPools and their C layouts; the
// plain ones (the device's pools, destroy, trim, allocation from a pool)
// and backend.PeerAccessDisabler are generated from entrypoints.txt
// (zz_generated.go).

// cMemLocation is CUmemLocation (cuda.h 13.0; cudarc's sys bindings and the
// runtime's cudaMemLocation agree): {CUmemLocationType type; int id;}, 8
// bytes, type at 0, id at 4.
type cMemLocation struct {
	typ int32
	id  int32
}

// cMemAccessDesc is CUmemAccessDesc: {CUmemLocation location;
// CUmemAccess_flags flags;}, 12 bytes, flags at 8.
type cMemAccessDesc struct {
	location cMemLocation
	flags    int32
}

// cMemPoolProps is CUmemPoolProps (cuda.h 12.2 to 13.0, the same in
// cudarc's sys bindings and the runtime's cudaMemPoolProps of 12.6 and
// 13.0): allocType at 0, handleTypes at 4, location at 8,
// win32SecurityAttributes at 16, maxSize at 24, usage at 32, reserved[54]
// at 34; 88 bytes. Before 12.2 the 64 bytes after the pointer were all
// reserved (must be 0), which is what a zero maxSize and usage give.
type cMemPoolProps struct {
	allocType   uint32
	handleTypes uint32
	location    cMemLocation
	win32       uintptr
	maxSize     uintptr
	usage       uint16
	reserved    [54]byte
}

// The layouts, checked at compile time: a wrong size or offset fails the
// build.
var (
	_ [8 - unsafe.Sizeof(cMemLocation{})]byte
	_ [unsafe.Sizeof(cMemLocation{}) - 8]byte
	_ [12 - unsafe.Sizeof(cMemAccessDesc{})]byte
	_ [unsafe.Sizeof(cMemAccessDesc{}) - 12]byte
	_ [88 - unsafe.Sizeof(cMemPoolProps{})]byte
	_ [unsafe.Sizeof(cMemPoolProps{}) - 88]byte
	_ [24 - unsafe.Offsetof(cMemPoolProps{}.maxSize)]byte
	_ [unsafe.Offsetof(cMemPoolProps{}.maxSize) - 24]byte
	_ [32 - unsafe.Offsetof(cMemPoolProps{}.usage)]byte
	_ [unsafe.Offsetof(cMemPoolProps{}.usage) - 32]byte
)

func cLocation(l backend.MemLocation) cMemLocation {
	return cMemLocation{typ: int32(l.Type), id: l.ID}
}

// MemPoolCreate is cuMemPoolCreate(CUmemoryPool *pool, const
// CUmemPoolProps *poolProps).
func (l *libcuda) MemPoolCreate(props backend.MemPoolProps) (uintptr, error) {
	p, err := l.fn(symMemPoolCreate)
	if err != nil {
		return 0, err
	}
	c := cMemPoolProps{
		allocType:   props.AllocType,
		handleTypes: props.HandleTypes,
		location:    cLocation(props.Location),
		maxSize:     props.MaxSize,
		usage:       props.Usage,
	}
	var pool uintptr
	r := dl.Call2(p, uintptr(unsafe.Pointer(&pool)), uintptr(unsafe.Pointer(&c)))
	return pool, check(r)
}

// poolIntAttr reports whether attr's value is a C int (the reuse
// attributes) rather than a cuuint64_t.
func poolIntAttr(attr backend.MemPoolAttribute) bool {
	return attr >= backend.MemPoolReuseFollowEventDependencies && attr <= backend.MemPoolReuseAllowInternalDependencies
}

// MemPoolSetAttribute is cuMemPoolSetAttribute(CUmemoryPool pool,
// CUmemPool_attribute attr, void *value): the value is passed as an int
// for the reuse attributes (an int that does not fit is ErrInvalidValue)
// and as a cuuint64_t for the others.
func (l *libcuda) MemPoolSetAttribute(pool uintptr, attr backend.MemPoolAttribute, value uint64) error {
	p, err := l.fn(symMemPoolSetAttribute)
	if err != nil {
		return err
	}
	// Scratch of 8 bytes either way; an int attribute reads the first 4
	// (little-endian on amd64 and arm64).
	v := value
	if poolIntAttr(attr) && value > 0x7fffffff {
		return backend.ErrInvalidValue
	}
	return check(dl.Call3(p, pool, uintptr(attr), uintptr(unsafe.Pointer(&v))))
}

// MemPoolGetAttribute is cuMemPoolGetAttribute(CUmemoryPool pool,
// CUmemPool_attribute attr, void *value), into zeroed 8-byte scratch (an
// int attribute fills the low 4 bytes).
func (l *libcuda) MemPoolGetAttribute(pool uintptr, attr backend.MemPoolAttribute) (uint64, error) {
	p, err := l.fn(symMemPoolGetAttribute)
	if err != nil {
		return 0, err
	}
	var v uint64
	r := dl.Call3(p, pool, uintptr(attr), uintptr(unsafe.Pointer(&v)))
	if poolIntAttr(attr) {
		v = uint64(uint32(v))
	}
	return v, check(r)
}

// MemPoolSetAccess is cuMemPoolSetAccess(CUmemoryPool pool, const
// CUmemAccessDesc *map, size_t count).
func (l *libcuda) MemPoolSetAccess(pool uintptr, descs []backend.MemAccessDesc) error {
	if len(descs) == 0 {
		return backend.ErrInvalidValue
	}
	p, err := l.fn(symMemPoolSetAccess)
	if err != nil {
		return err
	}
	c := make([]cMemAccessDesc, len(descs))
	for i, d := range descs {
		c[i] = cMemAccessDesc{location: cLocation(d.Location), flags: int32(d.Flags)}
	}
	return check(dl.Call3(p, pool, uintptr(unsafe.Pointer(&c[0])), uintptr(len(c))))
}

var (
	_ backend.MemPools           = (*libcuda)(nil)
	_ backend.PeerAccessDisabler = (*libcuda)(nil)
)
