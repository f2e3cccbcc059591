package cstr

import (
	"runtime"
	"unsafe"
)

// Array is a C array of C strings (const char* const*), built from Go
// strings, such as NVRTC's compile options or its headers. Its memory is Go
// memory holding pointers to Go memory, so every string and the array itself
// are pinned (runtime.Pinner) until Free: C may read them during the call
// without the garbage collector freeing or moving anything.
//
// The caller owns the Array and must call Free once the C call has returned
// (defer a.Free()): the runtime treats an Array that becomes unreachable
// still pinned as a leak and panics.
type Array struct {
	ptrs   []*byte
	pinner runtime.Pinner
}

// NewArray copies ss into NUL-terminated strings and builds the pointer
// array. It returns ErrNUL when a string contains a NUL byte. An empty ss
// gives an Array whose Ptr is nil.
func NewArray(ss []string) (*Array, error) {
	a := &Array{}
	if len(ss) == 0 {
		return a, nil
	}
	a.ptrs = make([]*byte, len(ss))
	for i, s := range ss {
		b, err := Bytes(s)
		if err != nil {
			a.Free()
			return nil, err
		}
		a.pinner.Pin(&b[0])
		a.ptrs[i] = &b[0]
	}
	a.pinner.Pin(&a.ptrs[0])
	return a, nil
}

// Ptr returns the address of the first char*, or nil for an empty array.
// Convert it to uintptr inside the purego.SyscallN call expression.
func (a *Array) Ptr() unsafe.Pointer {
	if len(a.ptrs) == 0 {
		return nil
	}
	return unsafe.Pointer(&a.ptrs[0])
}

// Len returns the number of strings.
func (a *Array) Len() int { return len(a.ptrs) }

// Free unpins the strings; the Array must not be passed to C afterwards.
// Calling Free again does nothing.
func (a *Array) Free() {
	a.pinner.Unpin()
	a.ptrs = nil
}
