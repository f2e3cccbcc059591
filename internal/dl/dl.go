// Package dl is the thin layer over the system's dynamic loader (dlopen,
// dlsym, dlinfo) that package loader builds on, and the call path into
// the loaded C functions (Call0 ... Call14: purego.SyscallN without its
// per-call allocation).
//
// dlerror keeps its message per OS thread, so every open and lookup runs
// with the goroutine locked to its thread: the message read is the one the
// failing call left, even when many goroutines resolve symbols at once.
package dl

import "errors"

// ErrEmptyName is returned for an empty library or symbol name: dlopen("")
// would return the main program, which is never what a caller means.
var ErrEmptyName = errors.New("dl: empty name")
