//go:build linux && (amd64 || arm64)

package dl_test

import (
	"math"
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"

	"github.com/nocgo/cuda/internal/cstr"
	"github.com/nocgo/cuda/internal/dl"
)

// CallFP4 puts its floating-point arguments in the vector registers:
// frexp(x, &e) takes a double in the first vector register and a pointer in
// the first integer one, and snprintf (variadic) formats two doubles from there.
func TestCallFP4(t *testing.T) {
	h := libc(t)
	frexp := sym(t, h, "frexp") // double frexp(double, int*): the result in X0/D0, not read here
	var e int32
	dl.CallFP4(frexp, uintptr(unsafe.Pointer(&e)), 0, 0, 0, uintptr(math.Float64bits(48)), 0)
	assert.Equal(t, int32(6), e, "48 = 0.75 * 2^6")
	if !dl.Trampolines {
		t.Skip("variadic calls through purego.RegisterFunc do not set AL")
	}
	buf := make([]byte, 64)
	format := cbytes(t, "%d %g %g")
	n := dl.CallFP4(sym(t, h, "snprintf"), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)),
		uintptr(unsafe.Pointer(&format[0])), garbage(7), uintptr(math.Float64bits(1.5)), uintptr(math.Float64bits(-2.25)))
	runtime.KeepAlive(format)
	assert.Equal(t, "7 1.5 -2.25", cstr.GoString(unsafe.Pointer(&buf[0])))
	assert.Equal(t, uintptr(11), n)
}
