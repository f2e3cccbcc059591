package backend

// MemPools is implemented by backends with stream-ordered memory pools
// (CUmemoryPool, CUDA 11.2+): the device's default and current pools,
// pools created and destroyed, their attributes, trimming, peer access and
// allocation from a chosen pool. Pool handles are raw CUmemoryPool values.
// None of these calls reads the current context.
type MemPools interface {
	// DeviceGetDefaultMemPool is cuDeviceGetDefaultMemPool.
	DeviceGetDefaultMemPool(dev int) (uintptr, error)
	// DeviceGetMemPool is cuDeviceGetMemPool: the pool cuMemAllocAsync
	// allocates from on dev (the default pool unless changed).
	DeviceGetMemPool(dev int) (uintptr, error)
	// DeviceSetMemPool is cuDeviceSetMemPool: process-wide state.
	DeviceSetMemPool(dev int, pool uintptr) error
	// MemPoolCreate is cuMemPoolCreate.
	MemPoolCreate(props MemPoolProps) (uintptr, error)
	// MemPoolDestroy is cuMemPoolDestroy: memory still allocated from the
	// pool is released once freed.
	MemPoolDestroy(pool uintptr) error
	// MemPoolTrimTo is cuMemPoolTrimTo.
	MemPoolTrimTo(pool uintptr, minBytesToKeep uintptr) error
	// MemPoolSetAttribute and MemPoolGetAttribute are cuMemPoolSetAttribute
	// and cuMemPoolGetAttribute with the value widened to 64 bits (the
	// driver's value is an int for the reuse attributes, a cuuint64_t for
	// the others).
	MemPoolSetAttribute(pool uintptr, attr MemPoolAttribute, value uint64) error
	MemPoolGetAttribute(pool uintptr, attr MemPoolAttribute) (uint64, error)
	// MemPoolSetAccess is cuMemPoolSetAccess with one descriptor per
	// location.
	MemPoolSetAccess(pool uintptr, descs []MemAccessDesc) error
	// MemPoolGetAccess is cuMemPoolGetAccess.
	MemPoolGetAccess(pool uintptr, loc MemLocation) (MemAccessFlags, error)
	// MemAllocFromPoolAsync is cuMemAllocFromPoolAsync.
	MemAllocFromPoolAsync(size uintptr, pool uintptr, s uintptr) (uintptr, error)
}

// MemPoolAttribute is a CUmemPool_attribute.
type MemPoolAttribute int32

// Memory pool attributes (CUmemPool_attribute, cuda.h 13.0; the same
// values in cuda-python's cydriver and the runtime's cudaMemPoolAttr).
const (
	MemPoolReuseFollowEventDependencies   MemPoolAttribute = 1 // int
	MemPoolReuseAllowOpportunistic        MemPoolAttribute = 2 // int
	MemPoolReuseAllowInternalDependencies MemPoolAttribute = 3 // int
	MemPoolReleaseThreshold               MemPoolAttribute = 4 // cuuint64_t
	MemPoolReservedMemCurrent             MemPoolAttribute = 5 // cuuint64_t, read-only
	MemPoolReservedMemHigh                MemPoolAttribute = 6 // cuuint64_t, reset by setting 0
	MemPoolUsedMemCurrent                 MemPoolAttribute = 7 // cuuint64_t, read-only
	MemPoolUsedMemHigh                    MemPoolAttribute = 8 // cuuint64_t, reset by setting 0
)

// MemLocationType is a CUmemLocationType.
type MemLocationType int32

// Memory location types.
const (
	MemLocationInvalid MemLocationType = 0 // CU_MEM_LOCATION_TYPE_INVALID
	MemLocationDevice  MemLocationType = 1 // CU_MEM_LOCATION_TYPE_DEVICE
	MemLocationHost    MemLocationType = 2 // CU_MEM_LOCATION_TYPE_HOST
)

// MemLocation is a CUmemLocation: {CUmemLocationType type; int id;}, 8
// bytes, type at 0 and id at 4.
type MemLocation struct {
	Type MemLocationType
	ID   int32
}

// MemAccessFlags is a CUmemAccess_flags.
type MemAccessFlags int32

// Access flags.
const (
	MemAccessNone      MemAccessFlags = 0x0 // CU_MEM_ACCESS_FLAGS_PROT_NONE
	MemAccessRead      MemAccessFlags = 0x1 // CU_MEM_ACCESS_FLAGS_PROT_READ
	MemAccessReadWrite MemAccessFlags = 0x3 // CU_MEM_ACCESS_FLAGS_PROT_READWRITE
)

// MemAccessDesc is a CUmemAccessDesc: {CUmemLocation location;
// CUmemAccess_flags flags;}, 12 bytes, flags at 8.
type MemAccessDesc struct {
	Location MemLocation
	Flags    MemAccessFlags
}

// MemAllocationTypePinned is CU_MEM_ALLOCATION_TYPE_PINNED, the one
// allocation type of pools made here.
const MemAllocationTypePinned uint32 = 0x1

// MemPoolProps is what cuMemPoolCreate reads from a CUmemPoolProps; the
// backend lays it out (88 bytes on 64-bit: allocType at 0, handleTypes at
// 4, location at 8, win32SecurityAttributes at 16, maxSize at 24, usage at
// 32, reserved[54] at 34; cuda.h 12.2+ and 13.0, cudarc's and the
// runtime's cudaMemPoolProps agree). The Windows security attributes are
// always NULL.
type MemPoolProps struct {
	AllocType   uint32 // MemAllocationTypePinned
	HandleTypes uint32 // CUmemAllocationHandleType bits; 0 for none
	Location    MemLocation
	MaxSize     uintptr // 0: the driver's default
	Usage       uint16
}
