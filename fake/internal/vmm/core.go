package vmm

import "github.com/nocgo/cuda/driver/backend"

// Core is what the room needs of the fake's core. Its methods take the
// core's locks themselves; the room may call them holding its own lock,
// except Quiesce, which it calls holding none (see the fake's lock rule).
type Core interface {
	// Enter is the prologue of an entry point: the symbol exists in the
	// configured driver version, FailNth, cuInit called, no sticky fault.
	Enter(op string) error
	// CheckDevice is nil for a device ordinal of the backend, else
	// CUDA_ERROR_INVALID_DEVICE.
	CheckDevice(ordinal int) error
	// Reserve counts size bytes of device dev's memory as used, or answers
	// CUDA_ERROR_OUT_OF_MEMORY when they do not fit; Unreserve gives them
	// back.
	Reserve(dev int, size uintptr) error
	Unreserve(dev int, size uintptr)
	// Map puts a mapping into the memory table, with no access (every
	// access faults) until SetAccess.
	Map(m Mapping)
	// SetAccess makes the mapping at base usable through data (nil: not
	// usable) and records the access flags its pointer attributes answer.
	SetAccess(base uintptr, data []byte, access map[int32]backend.MemAccessFlags)
	// Unmap takes the mapping at base out of the memory table.
	Unmap(base uintptr)
	// Quiesce waits for every piece of work queued in the backend, then
	// runs fn before any more runs. From a host callback or kernel body it
	// is CUDA_ERROR_NOT_PERMITTED.
	Quiesce(fn func() error) error
	// NewHandle returns a handle no object of any backend has had.
	NewHandle() uintptr
}

// Mapping is a mapping as the memory table keeps it: copies, memsets and
// kernels find it as any other allocation, and run on into the next
// mapping of the same reserved range when it follows with no hole.
type Mapping struct {
	Base, Size uintptr
	Device     int
	// Range is the base of the reserved range holding it, and Shadow that
	// range's host bytes, which its data and its neighbours' are views of.
	Range  uintptr
	Shadow []byte
	// HandleTypes are the allocation's requested shareable handle types
	// (CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES).
	HandleTypes backend.MemHandleType
}
