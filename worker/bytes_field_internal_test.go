package worker

import (
	"testing"
	"unsafe"
)

type pair struct {
	S string
	B []byte
}

// A frame whose lengths do not add up is refused, and the value is left as
// it was.
func TestDecodeRefusesBadLengths(t *testing.T) {
	fields := []byteField{{off: unsafe.Offsetof(pair{}.S)}, {off: unsafe.Offsetof(pair{}.B), slice: true}}
	in := pair{"abc", []byte{1, 2}}
	frame := make([]byte, unsafe.Sizeof(in)+5)
	n := encode(frame, unsafe.Pointer(&in), bytesOf(&in), fields)
	if n != len(frame) {
		t.Fatalf("encode wrote %d bytes of %d", n, len(frame))
	}
	var out pair
	if err := decode(unsafe.Pointer(&out), bytesOf(&out), append([]byte(nil), frame...), fields); err != nil || out.S != "abc" || string(out.B) != "\x01\x02" {
		t.Fatalf("decode: %v, %+v", err, out)
	}
	for name, bad := range map[string][]byte{"short": frame[:len(frame)-1], "long": append(append([]byte(nil), frame...), 0), "fixed part cut": frame[:8]} {
		keep := pair{"keep", []byte{9}}
		if err := decode(unsafe.Pointer(&keep), bytesOf(&keep), append([]byte(nil), bad...), fields); err == nil {
			t.Errorf("%s: decode accepted it", name)
		}
		if keep.S != "keep" || len(keep.B) != 1 || keep.B[0] != 9 {
			t.Errorf("%s: decode changed the value: %+v", name, keep)
		}
	}
}
