package cstr_test

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/internal/cstr"
)

func TestBytes(t *testing.T) {
	b, err := cstr.Bytes("vec_add")
	require.NoError(t, err)
	assert.Equal(t, []byte("vec_add\x00"), b)

	b, err = cstr.Bytes("")
	require.NoError(t, err)
	assert.Equal(t, []byte{0}, b)

	_, err = cstr.Bytes("a\x00b")
	assert.ErrorIs(t, err, cstr.ErrNUL)
}

func TestGoString(t *testing.T) {
	assert.Equal(t, "", cstr.GoString(nil))
	b := []byte("CUDA_ERROR_NOT_READY\x00junk")
	s := cstr.GoString(unsafe.Pointer(&b[0]))
	assert.Equal(t, "CUDA_ERROR_NOT_READY", s)
	b[0] = 'X' // the result is a copy
	assert.Equal(t, "CUDA_ERROR_NOT_READY", s)
}

func TestFromBytes(t *testing.T) {
	assert.Equal(t, "NVIDIA H200", cstr.FromBytes([]byte("NVIDIA H200\x00\x00\x00garbage")))
	assert.Equal(t, "no terminator", cstr.FromBytes([]byte("no terminator")))
	assert.Equal(t, "", cstr.FromBytes(nil))
}

// readArray reads a char** the way C does.
func readArray(p unsafe.Pointer, n int) []string {
	ptrs := unsafe.Slice((*unsafe.Pointer)(p), n)
	out := make([]string, n)
	for i, q := range ptrs {
		out[i] = cstr.GoString(q)
	}
	return out
}

func TestArray(t *testing.T) {
	in := []string{"--gpu-architecture=sm_90", "-default-device", ""}
	a, err := cstr.NewArray(in)
	require.NoError(t, err)
	assert.Equal(t, 3, a.Len())
	runtime.GC() // pinned memory survives a collection
	assert.Equal(t, in, readArray(a.Ptr(), a.Len()))
	a.Free()
	a.Free() // a second Free does nothing
	assert.Nil(t, a.Ptr())
	assert.Zero(t, a.Len())
}

func TestEmptyArray(t *testing.T) {
	a, err := cstr.NewArray(nil)
	require.NoError(t, err)
	assert.Nil(t, a.Ptr())
	assert.Zero(t, a.Len())
	a.Free()
}

func TestArrayRejectsNUL(t *testing.T) {
	a, err := cstr.NewArray([]string{"ok", "bad\x00"})
	assert.ErrorIs(t, err, cstr.ErrNUL)
	assert.Nil(t, a)
}
