// Package vmm is the fake driver's room for virtual memory management
// (backend.VirtualMemory: cuMemCreate, cuMemAddressReserve, cuMemMap,
// cuMemSetAccess, shareable handles). A physical allocation is a memfd, so
// that its shareable handle is a real file descriptor; a reserved range is
// inaccessible host address space; a mapping maps the memfd over its part
// of that range (os_linux.go).
//
// The room owns the reserved ranges, the allocation handles and the
// mappings under its own lock, and the process-wide registry of physical
// allocations (which every fake backend of the process shares, as the
// kernel shares a memfd) under that registry's lock. It reaches the fake's
// core only through [Core]: the entry-point prologue, device checks and
// the devices' memory accounting, the memory table (where a mapping is an
// allocation that copies and kernels find as any other: [Mapping]), the
// wait for queued work before an unmap, and new handles.
package vmm
