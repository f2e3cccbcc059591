//go:build linux && (amd64 || arm64)

package dl_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"

	"github.com/nocgo/cuda/internal/cstr"
	"github.com/nocgo/cuda/internal/dl"
)

// The arities beyond 14 (cuBLAS's GemmEx takes 19 arguments,
// GemmStridedBatchedEx 23, cublasLtMatmul 16): snprintf formats n-3 C
// ints, each with garbage in its upper half, so every stack slot is checked.
func TestCallWideArities(t *testing.T) {
	snprintf := sym(t, libc(t), "snprintf")
	buf := cbytes(t, strings.Repeat(" ", 511)) // heap memory: the arguments below make calls (g)
	n := uintptr(len(buf))
	g := func(i int) uintptr { return garbage(int32(-(i + 1) * 7)) }
	check := func(arity int, r uintptr, f []byte) {
		t.Helper()
		runtime.KeepAlive(f)
		var want []string
		for i := range arity - 3 {
			want = append(want, fmt.Sprint(-(i+1)*7))
		}
		got := cstr.FromBytes(buf)
		assert.Equal(t, strings.Join(want, " "), got, "Call%d", arity)
		assert.Equal(t, uintptr(len(got)), r, "Call%d: snprintf returns the length", arity)
		clear(buf)
	}
	format := func(k int) []byte { return cbytes(t, strings.TrimSpace(strings.Repeat("%d ", k))) }
	f15 := format(12)
	check(15, dl.Call15(snprintf, uintptr(unsafe.Pointer(&buf[0])), n, uintptr(unsafe.Pointer(&f15[0])), g(0), g(1), g(2), g(3), g(4), g(5), g(6), g(7), g(8), g(9), g(10), g(11)), f15)
	f16 := format(13)
	check(16, dl.Call16(snprintf, uintptr(unsafe.Pointer(&buf[0])), n, uintptr(unsafe.Pointer(&f16[0])), g(0), g(1), g(2), g(3), g(4), g(5), g(6), g(7), g(8), g(9), g(10), g(11), g(12)), f16)
	f17 := format(14)
	check(17, dl.Call17(snprintf, uintptr(unsafe.Pointer(&buf[0])), n, uintptr(unsafe.Pointer(&f17[0])), g(0), g(1), g(2), g(3), g(4), g(5), g(6), g(7), g(8), g(9), g(10), g(11), g(12), g(13)), f17)
	f18 := format(15)
	check(18, dl.Call18(snprintf, uintptr(unsafe.Pointer(&buf[0])), n, uintptr(unsafe.Pointer(&f18[0])), g(0), g(1), g(2), g(3), g(4), g(5), g(6), g(7), g(8), g(9), g(10), g(11), g(12), g(13), g(14)), f18)
	f19 := format(16)
	check(19, dl.Call19(snprintf, uintptr(unsafe.Pointer(&buf[0])), n, uintptr(unsafe.Pointer(&f19[0])), g(0), g(1), g(2), g(3), g(4), g(5), g(6), g(7), g(8), g(9), g(10), g(11), g(12), g(13), g(14), g(15)), f19)
	f20 := format(17)
	check(20, dl.Call20(snprintf, uintptr(unsafe.Pointer(&buf[0])), n, uintptr(unsafe.Pointer(&f20[0])), g(0), g(1), g(2), g(3), g(4), g(5), g(6), g(7), g(8), g(9), g(10), g(11), g(12), g(13), g(14), g(15), g(16)), f20)
	f21 := format(18)
	check(21, dl.Call21(snprintf, uintptr(unsafe.Pointer(&buf[0])), n, uintptr(unsafe.Pointer(&f21[0])), g(0), g(1), g(2), g(3), g(4), g(5), g(6), g(7), g(8), g(9), g(10), g(11), g(12), g(13), g(14), g(15), g(16), g(17)), f21)
	f22 := format(19)
	check(22, dl.Call22(snprintf, uintptr(unsafe.Pointer(&buf[0])), n, uintptr(unsafe.Pointer(&f22[0])), g(0), g(1), g(2), g(3), g(4), g(5), g(6), g(7), g(8), g(9), g(10), g(11), g(12), g(13), g(14), g(15), g(16), g(17), g(18)), f22)
	f23 := format(20)
	check(23, dl.Call23(snprintf, uintptr(unsafe.Pointer(&buf[0])), n, uintptr(unsafe.Pointer(&f23[0])), g(0), g(1), g(2), g(3), g(4), g(5), g(6), g(7), g(8), g(9), g(10), g(11), g(12), g(13), g(14), g(15), g(16), g(17), g(18), g(19)), f23)
	f24 := format(21)
	check(24, dl.Call24(snprintf, uintptr(unsafe.Pointer(&buf[0])), n, uintptr(unsafe.Pointer(&f24[0])), g(0), g(1), g(2), g(3), g(4), g(5), g(6), g(7), g(8), g(9), g(10), g(11), g(12), g(13), g(14), g(15), g(16), g(17), g(18), g(19), g(20)), f24)
	runtime.KeepAlive(buf)
}
