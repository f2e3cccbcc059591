// Package dl is the thin layer over the system's dynamic loader (dlopen,
// dlsym, dlinfo) that package loader builds on, and the call path into the
// loaded C functions: Call0 ... Call24, the library's own trampolines into
// runtime.cgocall (no allocation), and LeanCall0 ... LeanCall3, which skip
// entersyscall for the few calls that never block. Building with
// -tags nocgo_syscalln puts the same functions over purego.SyscallN.
//
// Rules for callers (call.go says why):
//   - Convert a pointer to uintptr in the call expression itself, and make
//     no other function call in that expression (compute such arguments
//     first): the address of a Go stack variable is valid only until the
//     goroutine's stack can next grow.
//   - A uintptr keeps nothing alive: after a call given the address of heap
//     memory, runtime.KeepAlive what it points into.
//   - A call whose C function may call back into Go on the same thread must
//     be given heap or C memory only, never Go stack addresses (the callback
//     may move the stack; the call then panics).
//   - LeanCallN: only for functions that return at once, never block and
//     never call back into Go (lean.go).
//
// dlerror keeps its message per OS thread, so every open and lookup runs
// with the goroutine locked to its thread: the message read is the one the
// failing call left, even when many goroutines resolve symbols at once.
package dl

import "errors"

// ErrEmptyName is returned for an empty library or symbol name: dlopen("")
// would return the main program, which is never what a caller means.
var ErrEmptyName = errors.New("dl: empty name")
