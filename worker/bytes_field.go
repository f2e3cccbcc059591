package worker

import (
	"fmt"
	"unsafe"

	"github.com/nocgo/cuda/driver"
)

// byteField is a string or []byte in an argument or result type, at off:
// its bytes travel in the call's frame after the fixed part of the value
// (whose header words travel with the pointer cleared), in the order of
// the fields.
type byteField struct {
	off   uintptr
	slice bool // a []byte (else a string)
}

// fieldLen returns the length of the string or []byte at f in v.
func fieldLen(v unsafe.Pointer, f byteField) int {
	if f.slice {
		return len(*(*[]byte)(unsafe.Add(v, f.off)))
	}
	return len(*(*string)(unsafe.Add(v, f.off)))
}

// fieldBytes returns the bytes of the string or []byte at f in v.
func fieldBytes(v unsafe.Pointer, f byteField) []byte {
	if f.slice {
		return *(*[]byte)(unsafe.Add(v, f.off))
	}
	s := *(*string)(unsafe.Add(v, f.off))
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// varSize returns the bytes of v's byte fields together.
func varSize(v unsafe.Pointer, fields []byteField) int {
	n := 0
	for _, f := range fields {
		n += fieldLen(v, f)
	}
	return n
}

// encode writes the value v (fixed bytes fixed) to dst: its fixed bytes,
// with the pointers of its byte fields cleared, then the fields' bytes. dst
// holds them all (see varSize); it returns the bytes written.
func encode(dst []byte, v unsafe.Pointer, fixed []byte, fields []byteField) int {
	n := copy(dst, fixed)
	for _, f := range fields {
		clear(dst[f.off : f.off+unsafe.Sizeof(uintptr(0))])
		n += copy(dst[n:], fieldBytes(v, f))
	}
	return n
}

// decode sets v (whose memory is fixed) from src, written by encode: the
// fixed bytes, then each byte field made anew from its bytes (an empty
// []byte arrives as nil). It fails, changing nothing, when src does not
// hold the lengths its fixed part claims.
func decode(v unsafe.Pointer, fixed []byte, src []byte, fields []byteField) error {
	const word = unsafe.Sizeof(uintptr(0))
	if len(src) < len(fixed) {
		return fmt.Errorf("a value of %d bytes in a frame of %d", len(fixed), len(src))
	}
	head, tail := src[:len(fixed)], src[len(fixed):]
	lens := make([]int, len(fields))
	total := 0
	for i, f := range fields {
		// A string's (and a slice's) length is the word after its pointer.
		l := *(*uintptr)(unsafe.Pointer(&head[f.off+word]))
		if l > uintptr(len(tail)-total) {
			return fmt.Errorf("a byte field of %d bytes in a frame with %d left", l, len(tail)-total)
		}
		lens[i] = int(l)
		total += int(l)
	}
	if total != len(tail) {
		return fmt.Errorf("%d bytes after the value's fields in the frame", len(tail)-total)
	}
	for _, f := range fields { // no foreign pointer or length ever lands in v
		n := 2 * word
		if f.slice {
			n = 3 * word
		}
		clear(head[f.off : f.off+n])
	}
	copy(fixed, head) // every byte field now reads empty
	pos := 0
	for i, f := range fields {
		b := tail[pos : pos+lens[i]]
		pos += lens[i]
		if len(b) == 0 {
			continue
		}
		if f.slice {
			*(*[]byte)(unsafe.Add(v, f.off)) = append([]byte(nil), b...)
		} else {
			*(*string)(unsafe.Add(v, f.off)) = string(b)
		}
	}
	return nil
}

// tooLarge is the error of a value whose byte fields do not fit in a frame.
func tooLarge(what string, fixed, vars int) error {
	return fmt.Errorf("the %s's strings and byte slices hold %d bytes, with its %d fixed bytes more than worker.MaxValueSize (%d): pass large data in a worker.Buffer: %w",
		what, vars, fixed, MaxValueSize, driver.ErrInvalidInput)
}
