//go:build !linux

package fake

import (
	"bytes"
	"runtime"
	"strconv"
)

// gettid identifies the caller. Without a thread id on this system the fake
// keys the context stack by goroutine, which is the same for callers that
// lock their OS thread (as the library does).
func gettid() int64 {
	var buf [64]byte
	s := buf[:runtime.Stack(buf[:], false)]
	s = bytes.TrimPrefix(s, []byte("goroutine "))
	if i := bytes.IndexByte(s, ' '); i > 0 {
		s = s[:i]
	}
	id, _ := strconv.ParseInt(string(s), 10, 64)
	return id
}
