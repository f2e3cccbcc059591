package backend

import "unsafe"

// PeerAccessDisabler is implemented by backends that can undo
// CtxEnablePeerAccess: CtxDisablePeerAccess is cuCtxDisablePeerAccess,
// from the current context to peer.
type PeerAccessDisabler interface {
	CtxDisablePeerAccess(peer uintptr) error
}

// ManagedMemory is implemented by backends with unified (managed) memory:
// cuMemAllocManaged, and the CUDA 13 forms of cuMemPrefetchAsync and
// cuMemAdvise, which take a MemLocation (the _v2 ABI of 12.2).
type ManagedMemory interface {
	// MemAllocManaged is cuMemAllocManaged in the current context; free
	// with MemFree.
	MemAllocManaged(size uintptr, flags uint32) (uintptr, error)
	// MemPrefetchAsync is cuMemPrefetchAsync (_v2 ABI) with flags 0.
	MemPrefetchAsync(ptr, size uintptr, loc MemLocation, s uintptr) error
	// MemAdvise is cuMemAdvise (_v2 ABI).
	MemAdvise(ptr, size uintptr, advice MemAdvice, loc MemLocation) error
}

// Flags of cuMemAllocManaged.
const (
	MemAttachGlobal uint32 = 0x1 // CU_MEM_ATTACH_GLOBAL
	MemAttachHost   uint32 = 0x2 // CU_MEM_ATTACH_HOST
)

// MemAdvice is a CUmem_advise.
type MemAdvice int32

// Advice values (CUmem_advise, cuda.h 13.0).
const (
	MemAdviseSetReadMostly          MemAdvice = 1
	MemAdviseUnsetReadMostly        MemAdvice = 2
	MemAdviseSetPreferredLocation   MemAdvice = 3
	MemAdviseUnsetPreferredLocation MemAdvice = 4
	MemAdviseSetAccessedBy          MemAdvice = 5
	MemAdviseUnsetAccessedBy        MemAdvice = 6
)

// HostRegistration is implemented by backends that page-lock existing host
// memory for DMA: MemHostRegister is cuMemHostRegister (in the current
// context), MemHostUnregister cuMemHostUnregister with the same pointer.
type HostRegistration interface {
	MemHostRegister(p unsafe.Pointer, size uintptr, flags uint32) error
	MemHostUnregister(p unsafe.Pointer) error
}

// Flags of cuMemHostRegister.
const (
	MemHostRegisterPortable  uint32 = 0x1 // CU_MEMHOSTREGISTER_PORTABLE
	MemHostRegisterDeviceMap uint32 = 0x2 // CU_MEMHOSTREGISTER_DEVICEMAP
	MemHostRegisterReadOnly  uint32 = 0x8 // CU_MEMHOSTREGISTER_READ_ONLY
)

// Results of host registration.
const (
	ErrHostMemoryAlreadyRegistered Result = 712 // CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
	ErrHostMemoryNotRegistered     Result = 713 // CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED
)
