//go:build linux

package fake

import "syscall"

// gettid identifies the calling OS thread: the driver keeps the current
// context per thread, and so does the fake.
func gettid() int64 { return int64(syscall.Gettid()) }
