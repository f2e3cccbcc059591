package nccl

// Core is what the room needs of the fake's core. Its methods take the
// core's locks themselves; the room may call them holding its own lock,
// except Backpressure, which it calls holding none (see the fake's lock
// rule).
type Core interface {
	// Fault applies the FailNth rules to the entry point op: the rule's
	// driver.Result, or nil.
	Fault(op string) error
	// Ready is what NCCL's own CUDA calls find: nil when cuInit was called
	// and no sticky fault poisoned the process, else that error.
	Ready() error
	// CurrentDevice is the device ordinal of the calling thread's current
	// context, or why there is none.
	CurrentDevice() (int, error)
	// Devices is how many devices the backend has.
	Devices() int
	// Stream finds the live stream h as the calling thread names it (the
	// NULL and per-thread streams of its current context among them), and
	// the ordinal of its device.
	Stream(h uintptr) (s Stream, dev int, err error)
	// OnDevice reports whether the n bytes at p lie in one device
	// allocation of device dev.
	OnDevice(p, n uintptr, dev int) bool
	// Enqueue puts run[i] on ss[i] as one item of work each, all of them
	// or, when a stream was destroyed meanwhile, none (an error). An item
	// runs when its stream reaches it, under the execution lock, its
	// stream held for it (no one else runs that stream) until it returns.
	Enqueue(ss []Stream, run []func(Exec) error) ([]Item, error)
	// Rendezvous tells the race detector that the items met, items[i] on
	// ss[i]: the work enqueued on those streams after them follows the
	// work before each.
	Rendezvous(ss []Stream, items []Item)
	// Backpressure runs the oldest items of s when it holds too many, as
	// a full launch queue blocks. It may wait for queued work: the room
	// calls it holding none of its locks.
	Backpressure(s Stream)
	// Span is the n bytes of device memory at p, for the running item to
	// read and write.
	Span(p, n uintptr) ([]byte, error)
	// Accessed tells the race detector what the running item it read and
	// wrote, named what.
	Accessed(it Item, what string, acc []Access)
}

// Exec is what an item the room queued may do while it runs.
type Exec interface {
	// Unlocked runs fn with the execution lock let go (the item's stream
	// still held), and takes the lock back before it returns.
	Unlocked(fn func())
	// RunBefore runs the work queued on s before the item it, as far as it
	// can with no wait for another stream's host callback; where it
	// cannot, it lets the execution lock go until some item finishes. It
	// reports whether s had such work (so that the caller looks again).
	RunBefore(s Stream, it Item) bool
}

// Stream is a stream of the core (Core.Stream): the room only compares it
// and hands it back.
type Stream any

// Item is an item of work the room queued (Core.Enqueue): the room only
// compares it and hands it back.
type Item any

// Access is a range of device bytes a collective reads or writes.
type Access struct {
	Lo, Hi uintptr
	Write  bool
}
