//go:build linux

package core

import "syscall"

// threadID identifies the calling OS thread.
func threadID() int64 { return int64(syscall.Gettid()) }
