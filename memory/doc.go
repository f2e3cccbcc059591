// Package memory holds typed CUDA device memory and the copies between it and
// Go memory.
//
// A Buffer[T] is device memory holding Len elements of a fixed-size type T
// (no pointers, slices, strings, maps, interfaces, channels or functions
// inside, and not of size zero). Who owns the memory is explicit:
//
//   - Alloc (cuMemAlloc) and AllocAsync (cuMemAllocAsync, stream-ordered)
//     return owned buffers: Close releases the memory.
//   - Borrow wraps device memory allocated by someone else (another library,
//     the CUDA runtime): Close only detaches and never frees it.
//   - OpenIPC maps memory exported by another process: Close closes the
//     mapping (cuIpcCloseMemHandle) and never frees the exporter's memory.
//   - Slice and Bytes return views of a buffer: they never free anything and
//     stop working (driver.ErrClosed) once the buffer they view is freed. Slice's
//     bounds are those of Go slicing, 0 <= i <= j <= Len; any others are an
//     error (wrapping ErrInvalidValue), and no view is made.
//
// A second Close is a no-op that returns nil; every other use of a freed
// buffer returns an error wrapping driver.ErrClosed, and Ptr returns 0.
//
// # Empty buffers
//
// Empty buffers and views are valid, as empty Go slices are. Alloc,
// AllocAsync and AllocHost of zero elements allocate nothing (the buffer's
// Ptr is 0, a HostBuffer's Slice is empty) and their Close frees nothing;
// Borrow and OpenIPC of zero elements still check the pointer or the handle.
// An empty buffer holds its context and is closed like any other. Copies
// and Fill of zero elements check their arguments (live buffers, streams,
// contexts) as any copy does, then do nothing: no driver call is made. A
// negative element count is an error.
//
// # Buffers and their context
//
// Every buffer and HostBuffer, borrowed ones included, holds its context from
// its making until its Close (see driver.Context for the lifetime rule): it
// keeps working (copies, Fill, Close) after the *driver.Context it was made in
// is closed, and freeing memory never touches a dead context. Making one
// needs an open Context (driver.ErrClosed after its Close).
//
// # Checks
//
// Copies are checked before the driver is called: the source must fit in the
// destination (a source of n elements fills the first n elements of the
// destination; a source longer than the destination is an error, never a
// truncated copy), and both buffers must be live. A device-to-device copy
// between two buffers over the same allocation (a buffer and its views, or
// two views of it) is refused when the bytes copied overlap. Overlap between
// different allocations is not detected: two Borrows of the same memory, or
// a Borrow of memory that an Alloc buffer also covers, are separate buffers
// to this package, and a copy between overlapping ranges of them is passed
// to the driver, whose result is undefined. A copy that fails a check writes
// nothing. Element types match at compile time; copies between different
// types go through explicit Bytes views. Buffers of one context are copied
// with cuMemcpyDtoD(Async); buffers of different contexts or devices with the
// peer copies (cuMemcpyPeer(Async)).
//
// # Synchronous copies
//
// CopyToDevice, CopyToHost and CopyDtoD make the context of the device buffer
// (of dst for CopyDtoD) current for the call and return once the copy is
// complete (CopyToDevice and CopyDtoD also wait for the legacy default
// stream, since the driver may return from cuMemcpyHtoD/DtoD before the data
// has landed). Like the driver's
// synchronous copies they are ordered after the work queued on the legacy
// stream and on blocking streams, not after work on non-blocking streams. A
// stream-ordered buffer must have been reached by its allocation stream
// (synchronize it) before a synchronous copy uses it.
//
// # Asynchronous copies and Fill
//
// CopyToDeviceAsync, CopyToHostAsync, CopyDtoDAsync and Fill queue work on a
// stream and return. They allocate nothing, use no reflection and, on an
// ordinary stream, make no context current (the special streams of package
// stream bind their context for the call). The stream must be on the device
// of the device buffer(s); a stream of another context of the same device is
// accepted for copies (the address space is unified) but not for Fill, which
// runs in its stream's context. Otherwise the error wraps driver.ErrWrongContext.
//
// What CUDA guarantees for the host side of an asynchronous copy:
//
//   - From or to pinned memory (a HostBuffer's Slice) the copy really is
//     asynchronous: the caller must not modify the source (to the device) nor
//     read the destination (to the host) until the stream has reached the
//     copy (Stream.Synchronize, an event), and must not free the HostBuffer
//     before.
//   - From pageable Go memory to the device, the driver first stages the data
//     and returns once it is staged: the slice may be reused as soon as the
//     call returns.
//   - From the device to pageable Go memory, CUDA says only that the copy
//     may be synchronous, not that it is: whatever the memory, dst must not
//     be read until the stream has reached the copy (Stream.Synchronize, an
//     event). The fake driver writes dst only when its stream runs the copy,
//     so code that reads early fails there too.
//
// The Go slice is kept alive for the duration of the call (Go never moves
// heap memory, but it may free it once unreachable); pinned memory is not Go
// memory and lives until HostBuffer.Close.
//
// # Pinned memory, other processes, threads
//
// HostBuffer[T] (AllocHost) is page-locked (pinned) host memory seen as a Go
// slice: the fast source and destination of asynchronous copies.
//
// Buffer.IPCHandle exports an Alloc buffer to another process, which maps it
// with OpenIPC.
//
// Register page-locks an existing Go slice instead (pinned with
// runtime.Pinner until Close), and AllocManaged gives managed (unified)
// memory, which the host reads and writes in place through
// Buffer.HostSlice, with Prefetch and Advise to place it.
//
// # Pools, conveniences, 2D arrays, cancellable copies
//
// Pool is a stream-ordered memory pool: NewPool makes one, DefaultPool and
// CurrentPool wrap the device's; AllocFromPool allocates from a chosen
// pool. Raise the release threshold (see Pool) when allocating in a loop.
//
// FromSlice and ToSlice allocate and copy in one call; AllocZeroed returns
// zeroed memory. AllocPitched makes a pitched 2D array (Pitched), copied
// with CopyToPitched and CopyFromPitched. CopyToDeviceContext and
// CopyToHostContext are the synchronous copies with a context.Context: the
// wait for earlier work ends when the context is done.
//
// # Virtual memory
//
// CUDA's virtual memory management separates addresses from memory:
// ReserveAddress reserves an AddressRange (cuMemAddressReserve),
// NewPhysical allocates PhysicalMemory with no address (cuMemCreate),
// AddressRange.Map puts it at an address (cuMemMap) and Mapping.SetAccess
// lets a device use it (cuMemSetAccess; nothing can before). MappedBuffer
// views a Mapping as a Buffer for copies and kernels; it never frees the
// memory and ends with the mapping. One PhysicalMemory may be mapped at
// several addresses, which then show the same bytes (copies between such
// aliases are not checked for overlap, as between two Borrows). Sizes and
// offsets are multiples of Granularity (2 MiB on an H200), checked before
// the driver is called. Growable[T] builds on them a device array that
// grows without moving (PyTorch's expandable segments), and
// PhysicalMemory.Export and ImportPhysical carry memory to another process
// as a POSIX file descriptor. Each object is owned by its maker and closed
// with Close, which can be retried when the driver refuses.
//
// Every function works from any goroutine. Allocation, Close and synchronous
// copies make the buffer's context current on the calling OS thread for the
// call only; asynchronous copies and Fill on an ordinary stream bind
// nothing, allocate nothing and use no reflection.
//
// Errors name the call that failed first (memory.Buffer.Close: ...,
// memory.Alloc[float32]: ...), then the buffer or argument and the driver
// entry point, and wrap the cause.
package memory
