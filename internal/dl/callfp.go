//go:build linux && (amd64 || arm64) && !nocgo_syscalln

package dl

import "unsafe"

// frameFP is CallFP4's frame: the frame of every CallN (see frame), the four
// integer arguments, then the two floating-point arguments.
type frameFP struct {
	fn, r, moved, top uintptr
	a                 [4]uintptr
	f                 [2]uintptr
}

var (
	_ = [1]struct{}{}[unsafe.Offsetof(frameFP{}.a)-32]
	_ = [1]struct{}{}[unsafe.Offsetof(frameFP{}.f)-64]
)

// fpTrampoline is the address of callfp4 (callfp_GOARCH.s).
var fpTrampoline uintptr

// CallFP4 calls fn(a1, a2, a3, a4, f1, f2) through runtime.cgocall, where
// a1..a4 go in the first four integer argument registers and f1, f2 in the
// first two floating-point argument registers (amd64: X0, X1, with AL=2 for
// variadic callees; arm64: D0, D1). f1 and f2 are the bits of the values:
// math.Float64bits of a double, or math.Float32bits of a float in the low
// 32 bits (the callee reads the low half of the register). Integer
// arguments a C function does not take are ignored by it, so the form
// serves every function of up to four integer and two floating-point
// arguments (curandGenerateNormal(gen, ptr, n, mean, stddev), say). The
// rules of the CallN functions (call.go) hold.
//
//go:nosplit
func CallFP4(fn, a1, a2, a3, a4, f1, f2 uintptr) uintptr {
	if fn == 0 {
		panic(errNilFn)
	}
	var f frameFP
	f.fn = fn
	f.a[0] = a1
	f.a[1] = a2
	f.a[2] = a3
	f.a[3] = a4
	f.f[0] = f1
	f.f[1] = f2
	cgocall(fpTrampoline, unsafe.Pointer(&f))
	if f.moved != 0 {
		stackMoved(uintptr(unsafe.Pointer(&f)), f.moved, f.top, f.a[:])
	}
	return f.r
}
