package backend

// VirtualMemory is implemented by backends with CUDA's virtual memory
// management (CUDA 10.2+): address ranges reserved apart from the memory
// behind them, physical allocations made apart from any address, mapped
// into reserved ranges and made accessible per device, and shareable
// handles (POSIX file descriptors) that carry a physical allocation to
// another process. Physical allocations are raw
// CUmemGenericAllocationHandle values; addresses are CUdeviceptr. None of
// these calls reads the current context, though the driver needs one
// somewhere in the process (cuInit and a device's primary context).
//
// Sizes, offsets and addresses given to MemAddressReserve, MemCreate,
// MemMap, MemUnmap and MemSetAccess must be multiples of the granularity
// MemGetAllocationGranularity reports (MemGranularityMinimum) for the
// allocation's properties; the driver refuses others with
// ErrInvalidValue.
type VirtualMemory interface {
	// MemGetAllocationGranularity is cuMemGetAllocationGranularity: the
	// granularity, in bytes, of allocations with prop.
	MemGetAllocationGranularity(prop MemAllocationProp, option MemGranularity) (uintptr, error)
	// MemAddressReserve is cuMemAddressReserve: size bytes of virtual
	// address space, aligned to alignment (0: the granularity), at addr if
	// that is free (0: anywhere; a hint the driver may ignore). flags is 0.
	MemAddressReserve(size, alignment, addr uintptr, flags uint64) (uintptr, error)
	// MemAddressFree is cuMemAddressFree of a whole reserved range (its
	// base and size); nothing may be mapped in it.
	MemAddressFree(ptr, size uintptr) error
	// MemCreate is cuMemCreate: size bytes of physical memory with prop,
	// returned as a handle released by MemRelease. flags is 0.
	MemCreate(size uintptr, prop MemAllocationProp, flags uint64) (uintptr, error)
	// MemRelease is cuMemRelease: the handle is gone; the memory is freed
	// once it is also unmapped everywhere.
	MemRelease(handle uintptr) error
	// MemMap is cuMemMap: size bytes of handle's memory from offset at
	// ptr, inside one reserved range, where nothing is mapped. flags is 0.
	MemMap(ptr, size, offset, handle uintptr, flags uint64) error
	// MemUnmap is cuMemUnmap: ptr and size cover whole mappings made by
	// MemMap. It waits for work using them to end.
	MemUnmap(ptr, size uintptr) error
	// MemSetAccess is cuMemSetAccess: every location of descs gets its
	// flags on [ptr, ptr+size), which must be mapped.
	MemSetAccess(ptr, size uintptr, descs []MemAccessDesc) error
	// MemGetAccess is cuMemGetAccess: loc's access to the mapped ptr.
	MemGetAccess(loc MemLocation, ptr uintptr) (MemAccessFlags, error)
	// MemGetAllocationPropertiesFromHandle is
	// cuMemGetAllocationPropertiesFromHandle.
	MemGetAllocationPropertiesFromHandle(handle uintptr) (MemAllocationProp, error)
	// MemRetainAllocationHandle is cuMemRetainAllocationHandle: the handle
	// of the physical allocation mapped at addr, retained once more (the
	// caller releases it with MemRelease).
	MemRetainAllocationHandle(addr uintptr) (uintptr, error)
	// MemExportToShareableHandle is cuMemExportToShareableHandle with
	// MemHandlePOSIXFileDescriptor: a new file descriptor the caller owns
	// (and closes). The allocation must have been created with that type
	// in RequestedHandleTypes. flags is 0.
	MemExportToShareableHandle(handle uintptr, typ MemHandleType, flags uint64) (fd int, err error)
	// MemImportFromShareableHandle is cuMemImportFromShareableHandle of a
	// file descriptor exported here or in another process: a new handle
	// to release with MemRelease. The descriptor stays the caller's.
	MemImportFromShareableHandle(fd int, typ MemHandleType) (uintptr, error)
}

// MemHandleType is a CUmemAllocationHandleType: a bit set of the kinds of
// shareable handle an allocation may be exported as.
type MemHandleType uint32

// Shareable handle types (CUmemAllocationHandleType, cuda.h 13.0).
const (
	MemHandleNone                MemHandleType = 0x0 // CU_MEM_HANDLE_TYPE_NONE
	MemHandlePOSIXFileDescriptor MemHandleType = 0x1 // CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR: an int
	MemHandleWin32               MemHandleType = 0x2 // CU_MEM_HANDLE_TYPE_WIN32
	MemHandleWin32KMT            MemHandleType = 0x4 // CU_MEM_HANDLE_TYPE_WIN32_KMT
	MemHandleFabric              MemHandleType = 0x8 // CU_MEM_HANDLE_TYPE_FABRIC
)

// MemGranularity is a CUmemAllocationGranularity_flags.
type MemGranularity int32

// Granularity options.
const (
	MemGranularityMinimum     MemGranularity = 0x0 // CU_MEM_ALLOC_GRANULARITY_MINIMUM
	MemGranularityRecommended MemGranularity = 0x1 // CU_MEM_ALLOC_GRANULARITY_RECOMMENDED
)

// MemAllocationProp is what cuMemCreate and cuMemGetAllocationGranularity
// read from a CUmemAllocationProp; the backend lays it out (32 bytes on
// 64-bit: type at 0, requestedHandleTypes at 4, location at 8,
// win32HandleMetaData at 16, allocFlags at 24: compressionType 24,
// gpuDirectRDMACapable 25, usage 26, reserved[4] 28; cuda.h 12.x and
// 13.0). The Windows metadata pointer is always NULL.
type MemAllocationProp struct {
	Type                 uint32 // MemAllocationTypePinned
	RequestedHandleTypes MemHandleType
	Location             MemLocation // a device: MemLocationDevice and its ordinal
	CompressionType      uint8       // CU_MEM_ALLOCATION_COMP_NONE (0) or _GENERIC (1)
	GPUDirectRDMACapable uint8
	Usage                uint16
}

// Kinds of leaked virtual memory objects (see Leak).
const (
	LeakAddressRange   LeakKind = "virtual address range"      // reserved, not freed
	LeakMapping        LeakKind = "virtual memory mapping"     // mapped, not unmapped
	LeakPhysicalMemory LeakKind = "physical memory allocation" // a handle not released (Refs: its references)
)
