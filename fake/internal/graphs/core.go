package graphs

import (
	"github.com/nocgo/cuda/driver/backend"
)

// Core is what the room needs of the fake's core. Each method but
// NewHandle (which takes no lock) takes the core's lock itself, and the
// room calls none of them holding its own: the room's lock is a leaf of
// the fake's lock rule, as the core calls the room with its own lock held.
// The functions the room passes to WithStream, Launch and Upload are
// called with the core's lock held, and take the room's lock only.
type Core interface {
	// Enter is the prologue of an entry point: the symbol exists in the
	// configured driver version, FailNth, cuInit called, no sticky fault.
	Enter(op string) error
	// EnterTeardown is Enter for the destruction of a graph or an exec,
	// which no context's teardown takes with it: in a process poisoned by
	// a sticky fault the call fails with that fault (err) but the object
	// goes all the same (ok), so that what the user closed is no leak. ok
	// is false when the call must not go on.
	EnterTeardown(op string) (err error, ok bool)
	// NewHandle returns a handle no object of any backend has had.
	NewHandle() uintptr

	// Context resolves the live context h, or for 0 the calling thread's
	// current one, to its handle.
	Context(h uintptr) (uintptr, error)
	// KernelWork checks a kernel node's launch as cuLaunchKernel checks a
	// launch and returns its work, the arguments copied now; the function
	// (p.Func, or p.Kernel's in the node's context) must be of context ctx
	// unless ctx is 0. The work fails with
	// CUDA_ERROR_INVALID_HANDLE, running nothing, once the function's
	// module is unloaded.
	KernelWork(p *backend.KernelNodeParams, ctx uintptr) (func() error, error)
	// MemcpyWork and MemsetWork check a copy or memset node's parameters
	// in the live context ctx and return its work.
	MemcpyWork(p *backend.MemcpyNodeParams, ctx uintptr) (func() error, error)
	MemsetWork(p *backend.MemsetNodeParams, ctx uintptr) (func() error, error)
	// Event resolves the live event h for an event record or wait node.
	Event(h uintptr) (Event, error)
	// GraphMem takes the address space of an allocation node's size bytes
	// on device dev, which must be the current context's.
	GraphMem(dev int32, size uintptr) (Mem, error)

	// WithStream resolves the stream h (0, 1 and 2 through the calling
	// thread's current context) and calls f with it, the core's lock held.
	WithStream(h uintptr, f func(Stream) error) error
	// Launch resolves the stream h and calls plan with it, the core's lock
	// held; a Launch plan returns is queued on the stream (nil: nothing
	// to queue, the launch was captured).
	Launch(h uintptr, plan func(Stream) (*Launch, error)) error
	// Upload queues a no-op on the stream h, which check may refuse (it is
	// called with the core's lock held).
	Upload(h uintptr, check func(Stream) error) error
	// Drain waits for the work queued in context ctx so far (a user
	// object's destructor runs after it).
	Drain(ctx uintptr)
}

// Stream is one of the core's streams as the room sees it.
type Stream struct {
	// Slot is the core's stream's capture slot: its identity to the room,
	// and the room's state of it (the stream's capture).
	Slot *Slot
	// Ctx is the stream's context.
	Ctx uintptr
	// Null is true for the NULL/legacy stream, which cannot capture.
	Null bool
	// Blocking is true for a stream the legacy stream synchronises with (a
	// blocking user stream, the per-thread default stream).
	Blocking bool
}

// Slot is what the core keeps of a stream for the room: a field of the
// core's stream, whose contents the room owns under its own lock. Whether
// the stream captures changes only in the functions the room passes to
// Core.WithStream and in the hooks the core calls holding its lock
// (CaptureWait, CaptureStreamGone), so it stays as Capturing said while
// the core holds its lock.
type Slot struct {
	c    *capture
	info Stream
}

// Event is one of the core's events, opaque to the room: what Core.Event
// returned, handed back to the core in a Launch.
type Event any

// Mem is the memory of an allocation node, kept by the core (Core.GraphMem):
// its address and size are fixed when the node is made; the memory exists
// from a run of the allocation node to a run of a free node (or a
// cuMemFree).
type Mem interface {
	Base() uintptr
	Size() uintptr
	// Alloc is the work of the allocation node: the memory exists from
	// then on. Run again while the last run's memory was not freed, it
	// fails, as a launch does on a GPU.
	Alloc() error
	// Free is the work of a free node: CUDA_ERROR_ILLEGAL_ADDRESS when the
	// memory is not allocated.
	Free() error
}
