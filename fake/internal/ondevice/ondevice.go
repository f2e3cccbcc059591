// Package ondevice is the narrow view of the fake driver through which the
// fake math libraries (cuBLAS, cuRAND, cuFFT) compute: work queued on a
// stream in stream order, as a kernel of the real library would run, with
// the fake's device memory read and written by byte range.
//
// The fake (package fake) implements Queue; each fake library
// (fake/internal/<library>) takes one and knows nothing else of the fake.
// Work queued through a Queue is captured into a graph when its stream is
// capturing, and replayed with the graph, as the real libraries' kernels are.
package ondevice

// Queue queues the fake libraries' work on the fake driver's streams.
type Queue interface {
	// Enqueue queues work on stream s (a CUstream handle; 0, 1 and 2 are the
	// calling thread's NULL, legacy and per-thread streams) under the
	// library entry point op (for error texts and fault injection). It
	// returns at once: work runs when the stream reaches it, as the fake
	// runs kernels. An error from Enqueue (a destroyed stream, a poisoned
	// process) means nothing was queued. An error from work fails the stream
	// as a faulting kernel does: a backend.Result that is sticky
	// (CUDA_ERROR_ILLEGAL_ADDRESS for memory outside any allocation)
	// poisons the process.
	Enqueue(op string, s uintptr, work func(m Memory) error) error

	// StreamDevice returns the ordinal of the device of stream s's context,
	// for checks that depend on the device (its compute capability, say).
	StreamDevice(s uintptr) (int, error)
}

// Memory is the fake's device memory, seen from queued work. Every range
// must lie inside one allocation; a range that does not is
// CUDA_ERROR_ILLEGAL_ADDRESS, as a kernel of the real library would fault.
// The slices alias the device memory and are valid only while the work
// runs.
type Memory interface {
	// Read returns the n bytes at device address p, to be read.
	Read(p, n uintptr) ([]byte, error)
	// Write returns the n bytes at device address p, to be written (and
	// read: an in-place update is a Write).
	Write(p, n uintptr) ([]byte, error)
}
