//go:build !linux

package core

import (
	"bytes"
	"runtime"
	"strconv"
)

// ThreadID identifies the caller: without a thread id on this system, the
// goroutine's id, which is as good for a goroutine wired to its thread.
func ThreadID() int64 {
	var buf [64]byte
	s := buf[:runtime.Stack(buf[:], false)]
	s = bytes.TrimPrefix(s, []byte("goroutine "))
	if i := bytes.IndexByte(s, ' '); i > 0 {
		s = s[:i]
	}
	id, _ := strconv.ParseInt(string(s), 10, 64)
	return id
}
