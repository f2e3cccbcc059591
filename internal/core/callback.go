package core

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/nocgo/cuda/driver/backend"
)

// The driver forbids CUDA calls from a host function (cuLaunchHostFunc:
// "The host function must not make any CUDA API calls"; such a call may fail
// with CUDA_ERROR_NOT_PERMITTED, or wait for the callback itself). A library
// call from a callback can also deadlock in the library: Buffer.Close holds
// the buffer's lock while cuMemFree waits for the stream's callbacks, so a
// callback that closes the same buffer waits for that lock forever.
//
// So the library refuses such calls itself, before taking any lock: it
// runs each user callback (stream.Stream.Callback) between EnterCallback and
// LeaveCallback, which wire the callback's goroutine to its OS thread and
// mark that thread. A wired goroutine is the only one that runs on its
// thread, so "the calling thread is marked" holds exactly for calls made by
// a callback's own goroutine, never for another goroutine. Goroutines that
// a callback starts are not marked (nor is a callback that unwires itself
// with runtime.UnlockOSThread).

// ErrInCallback is wrapped by the errors of library calls made from inside
// a host callback. It wraps backend.ErrNotPermitted, as the driver answers.
var ErrInCallback = fmt.Errorf("called from inside a host callback (stream.Stream.Callback), which must not call into CUDA: %w", backend.ErrNotPermitted)

var callbacks struct {
	running atomic.Int32 // callbacks between EnterCallback and LeaveCallback

	mu      sync.Mutex
	threads map[int64]int // marked threads, with their nesting depth
}

// EnterCallback marks the calling goroutine as running a host callback,
// until LeaveCallback with the returned token: it wires the goroutine to its
// OS thread and marks the thread. Call LeaveCallback on the same goroutine,
// deferred, so that a panic or runtime.Goexit in the callback unmarks too.
func EnterCallback() int64 {
	runtime.LockOSThread()
	tid := ThreadID()
	callbacks.mu.Lock()
	if callbacks.threads == nil {
		callbacks.threads = map[int64]int{}
	}
	callbacks.threads[tid]++
	callbacks.mu.Unlock()
	callbacks.running.Add(1)
	return tid
}

// LeaveCallback undoes EnterCallback.
func LeaveCallback(tid int64) {
	callbacks.running.Add(-1)
	callbacks.mu.Lock()
	if callbacks.threads[tid]--; callbacks.threads[tid] <= 0 {
		delete(callbacks.threads, tid)
	}
	callbacks.mu.Unlock()
	runtime.UnlockOSThread()
}

// InCallback reports whether the caller is a host callback's goroutine. It
// costs one atomic load while no callback runs anywhere in the process.
func InCallback() bool {
	if callbacks.running.Load() == 0 {
		return false
	}
	return inCallbackSlow()
}

func inCallbackSlow() bool {
	// The goroutine is wired to its thread for the check: a goroutine that
	// is not could move to another thread right after reading its ID, and
	// a callback could then mark the thread it left, a false positive. A
	// marked thread is wired to its callback's goroutine, so while the
	// caller is wired to a marked thread, the caller is that goroutine.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := ThreadID()
	callbacks.mu.Lock()
	n := callbacks.threads[tid]
	callbacks.mu.Unlock()
	return n > 0
}

// NotInCallback returns nil, or an error wrapping ErrInCallback that names
// what when the caller is a host callback.
func NotInCallback(what fmt.Stringer) error {
	if callbacks.running.Load() == 0 || !inCallbackSlow() {
		return nil
	}
	return fmt.Errorf("%s: %w", what, ErrInCallback)
}
