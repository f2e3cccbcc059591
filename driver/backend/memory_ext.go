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

// Pitched is implemented by backends with pitched 2D allocations and 2D
// copies: MemAllocPitch is cuMemAllocPitch (current context; elemSize 4,
// 8 or 16), Memcpy2D cuMemcpy2D (current context) and Memcpy2DAsync
// cuMemcpy2DAsync.
type Pitched interface {
	MemAllocPitch(widthBytes, height uintptr, elemSize uint32) (ptr, pitch uintptr, err error)
	Memcpy2D(p *Memcpy2D) error
	Memcpy2DAsync(p *Memcpy2D, s uintptr) error
}

// Memcpy2D is what cuMemcpy2D reads from a CUDA_MEMCPY2D (host or device
// on each side; CUDA arrays are not supported here). The backend lays it
// out: 128 bytes on 64-bit, srcXInBytes 0, srcY 8, srcMemoryType 16,
// srcHost 24, srcDevice 32, srcArray 40, srcPitch 48, dstXInBytes 56, dstY
// 64, dstMemoryType 72, dstHost 80, dstDevice 88, dstArray 96, dstPitch
// 104, WidthInBytes 112, Height 120 (cuda.h 13.0; cudarc's sys bindings
// agree).
type Memcpy2D struct {
	SrcXInBytes, SrcY uintptr
	SrcMemoryType     MemoryType // MemoryTypeHost or MemoryTypeDevice
	SrcHost           unsafe.Pointer
	SrcDevice         uintptr
	SrcPitch          uintptr
	DstXInBytes, DstY uintptr
	DstMemoryType     MemoryType
	DstHost           unsafe.Pointer
	DstDevice         uintptr
	DstPitch          uintptr
	WidthInBytes      uintptr
	Height            uintptr
}

// Copies3D is implemented by backends with 3D copies: Memcpy3D is
// cuMemcpy3D (current context), Memcpy3DAsync cuMemcpy3DAsync. A
// pageable host side of the async form must stay alive and untouched
// until the stream runs the copy.
type Copies3D interface {
	Memcpy3D(p *Memcpy3D) error
	Memcpy3DAsync(p *Memcpy3D, s uintptr) error
}

// Memcpy3D is what cuMemcpy3D reads from a CUDA_MEMCPY3D (host or device
// on each side; CUDA arrays and LOD are not supported here). The backend
// lays it out (200 bytes on 64-bit; see internal/libcuda). Each side is a
// volume of slices Height rows of Pitch bytes apart; the copied box is
// WidthInBytes x Height x Depth from (XInBytes, Y, Z).
type Memcpy3D struct {
	SrcXInBytes, SrcY, SrcZ uintptr
	SrcMemoryType           MemoryType // MemoryTypeHost or MemoryTypeDevice
	SrcHost                 unsafe.Pointer
	SrcDevice               uintptr
	SrcPitch, SrcHeight     uintptr
	DstXInBytes, DstY, DstZ uintptr
	DstMemoryType           MemoryType
	DstHost                 unsafe.Pointer
	DstDevice               uintptr
	DstPitch, DstHeight     uintptr
	WidthInBytes            uintptr
	Height, Depth           uintptr
}
