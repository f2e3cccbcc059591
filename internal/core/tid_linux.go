//go:build linux

package core

import "syscall"

// ThreadID identifies the calling OS thread.
func ThreadID() int64 { return int64(syscall.Gettid()) }
