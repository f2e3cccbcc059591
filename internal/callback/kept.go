package callback

import (
	"fmt"
	"os"
	"sync"
)

// Kept functions run many times: a graph's host node runs its function at
// every launch of every exec of the graph, until the last of them is gone.
// They live in a registry of their own, under ids of their own, and the
// kept trampoline (KeptTrampoline) runs them without removing them; the
// backend that registered one calls Forget once the driver can no longer
// call it (a graph host node: from the destructor of a user object the
// graph owns).

var kept = struct {
	mu   sync.RWMutex
	next uintptr
	fns  map[uintptr]func()
}{fns: map[uintptr]func(){}}

// Keep stores fn until Forget and returns its id (never 0), to be passed
// as userData to the kept trampoline. A nil fn is stored as a no-op.
func Keep(fn func()) uintptr {
	if fn == nil {
		fn = func() {}
	}
	kept.mu.Lock()
	kept.next++
	id := kept.next
	kept.fns[id] = fn
	kept.mu.Unlock()
	return id
}

// Forget removes the kept function stored under id and reports whether it
// was there.
func Forget(id uintptr) bool {
	kept.mu.Lock()
	_, ok := kept.fns[id]
	delete(kept.fns, id)
	kept.mu.Unlock()
	return ok
}

// KeptCount returns the number of kept functions not yet forgotten.
func KeptCount() int {
	kept.mu.RLock()
	defer kept.mu.RUnlock()
	return len(kept.fns)
}

// DispatchKept runs the kept function stored under id, leaving it stored,
// and reports whether there was one. A panic or runtime.Goexit in it is
// contained as in Dispatch.
func DispatchKept(id uintptr) bool {
	kept.mu.RLock()
	fn, ok := kept.fns[id]
	kept.mu.RUnlock()
	if !ok {
		fmt.Fprintf(os.Stderr, "nocgo/cuda: kept host callback: unknown id %d (forgotten)\n", id)
		return false
	}
	run(id, fn)
	return true
}
