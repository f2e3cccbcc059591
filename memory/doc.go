// Package memory holds typed CUDA device memory and the copies between it and
// Go memory.
//
// A Buffer[T] is device memory holding Len elements of a fixed-size type T
// (no pointers, slices, strings, maps, interfaces, channels or functions
// inside, and not of size zero). Who owns the memory is explicit:
//
//   - Alloc (cuMemAlloc) and AllocAsync (cuMemAllocAsync, stream-ordered)
//     return owned buffers: Free releases the memory.
//   - Borrow wraps device memory allocated by someone else (another library,
//     the CUDA runtime): Free only detaches and never frees it.
//   - OpenIPC maps memory exported by another process: Free closes the
//     mapping (cuIpcCloseMemHandle) and never frees the exporter's memory.
//   - Slice and Bytes return views of a buffer: they never free anything and
//     stop working (ErrClosed) once the buffer they view is freed.
//
// A second Free is a no-op that returns nil; every other use of a freed
// buffer returns an error wrapping ErrClosed, and Ptr returns 0.
//
// Copies are checked before the driver is called: both sides must hold the
// same number of elements (a shorter or longer destination is an error, never
// a silent partial copy), buffers must be live and belong to the stream's
// device. A copy that fails a check writes nothing. Element types match at
// compile time; copies between different types go through explicit Bytes
// views.
//
// HostBuffer[T] is page-locked (pinned) host memory seen as a Go slice: the
// fast source and destination of asynchronous copies.
//
// Every function works from any goroutine. Allocation, Free and synchronous
// copies make the buffer's context current on the calling OS thread for the
// call only (driver.Context.Bind); asynchronous copies and Fill on an ordinary
// stream bind nothing, allocate nothing and use no reflection.
package memory

import "github.com/nocgo/cuda/driver"

// ErrClosed is returned by operations on a freed buffer, a view of a freed
// buffer, or a freed host buffer.
var ErrClosed = driver.ErrClosed

// ErrWrongContext is returned when a buffer, a pointer or a stream belongs to
// another context or device than the operation needs.
var ErrWrongContext = driver.ErrWrongContext
