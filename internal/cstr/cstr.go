// Package cstr converts between Go strings and the NUL-terminated C strings
// that libcuda and libnvrtc take and return.
//
// Go memory handed to C through these helpers stays owned by Go: the caller
// keeps it alive for the duration of the call (by converting its address to
// uintptr inside the purego.SyscallN call expression, or by pinning it; see
// Array).
package cstr

import (
	"bytes"
	"errors"
	"strings"
	"unsafe"
)

// ErrNUL reports a Go string that cannot become a C string because it
// contains a NUL byte, which C would read as the end of the string.
var ErrNUL = errors.New("cstr: string contains a NUL byte")

// Bytes returns s as a new NUL-terminated byte slice, ready to be passed to C
// as a const char*. It returns ErrNUL when s itself contains a NUL byte.
func Bytes(s string) ([]byte, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return nil, ErrNUL
	}
	b := make([]byte, len(s)+1)
	copy(b, s)
	return b, nil
}

// GoString returns a Go copy of the NUL-terminated C string at p, which is
// memory owned by C (a driver's static message, a string in a loaded
// library). A nil p gives "".
func GoString(p unsafe.Pointer) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(p, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(p), n))
}

// FromBytes returns the string in b up to its first NUL byte (all of b when
// there is none): the text a C function wrote into a Go buffer.
func FromBytes(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return string(b[:i])
	}
	return string(b)
}
