// Package callback runs Go functions as CUDA host callbacks
// (cuLaunchHostFunc's `void CUDA_CB fn(void *userData)`).
//
// purego can make only about 2000 C callbacks per process and never frees
// them, so there is exactly one: the trampoline. Each host function is kept
// in a registry under a fresh id; the id travels to C as userData, and the
// trampoline looks it up, removes it and runs it. A million callbacks cost a
// million map entries over time, never a million C callbacks.
package callback

import (
	"fmt"
	"os"
	"runtime/debug"
	"sync"
)

var registry = struct {
	mu   sync.Mutex
	next uintptr
	fns  map[uintptr]func()
}{fns: map[uintptr]func(){}}

// Register stores fn and returns its id (never 0), to be passed as userData.
// The entry is removed when Dispatch runs it, or by Unregister when the
// launch that would have run it failed. A nil fn is stored as a no-op. A
// function the driver never runs (its stream's context destroyed, or failed
// with a sticky error, while it was queued) stays registered, with what it
// references, for the life of the process.
func Register(fn func()) uintptr {
	if fn == nil {
		fn = func() {}
	}
	registry.mu.Lock()
	registry.next++
	id := registry.next
	registry.fns[id] = fn
	registry.mu.Unlock()
	return id
}

// Unregister removes the function stored under id without running it, and
// reports whether it was there. Callers use it when the driver refused the
// launch, so the function will never be called.
func Unregister(id uintptr) bool {
	registry.mu.Lock()
	_, ok := registry.fns[id]
	delete(registry.fns, id)
	registry.mu.Unlock()
	return ok
}

// Pending returns the number of registered functions not yet run.
func Pending() int {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	return len(registry.fns)
}

// Dispatch removes the function stored under id and runs it. It reports
// whether there was one. A panic or runtime.Goexit in the function is
// contained and reported on stderr: Dispatch runs on a driver thread, where
// either would take down the process from inside C. Each id runs at most
// once.
func Dispatch(id uintptr) bool {
	registry.mu.Lock()
	fn, ok := registry.fns[id]
	delete(registry.fns, id)
	registry.mu.Unlock()
	if !ok {
		fmt.Fprintf(os.Stderr, "nocgo/cuda: host callback: unknown id %d (already run or unregistered)\n", id)
		return false
	}
	run(id, fn)
	return true
}

// run calls fn on a goroutine of its own and waits for it, so that neither
// a panic nor runtime.Goexit (t.FailNow, testify's require) in fn reaches
// the driver's thread: Goexit on a thread the Go runtime did not create is
// fatal to the process.
func run(id uintptr, fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		returned := false
		defer func() {
			if r := recover(); r != nil {
				fmt.Fprintf(os.Stderr, "nocgo/cuda: host callback %d panicked: %v\n%s", id, r, debug.Stack())
			} else if !returned {
				fmt.Fprintf(os.Stderr, "nocgo/cuda: host callback %d called runtime.Goexit (t.FailNow?)\n", id)
			}
		}()
		fn()
		returned = true
	}()
	<-done
}
