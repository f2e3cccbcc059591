//go:build linux && (amd64 || arm64) && nocgo_syscalln

package dl

import (
	"math"
	"sync"

	"github.com/ebitengine/purego"
)

// fpFuncs caches one purego function per C function called through CallFP4
// in this build (purego.SyscallN passes no floating-point registers apart
// from the integer ones).
var fpFuncs sync.Map // uintptr -> func(a1, a2, a3, a4 uintptr, f1, f2 float64) uintptr

// CallFP4 calls fn(a1, a2, a3, a4, f1, f2) with f1 and f2 in the first two
// floating-point argument registers (see the trampoline build); in this
// build through purego.RegisterFunc, which allocates.
func CallFP4(fn, a1, a2, a3, a4, f1, f2 uintptr) uintptr {
	if fn == 0 {
		panic(errNilFn)
	}
	v, ok := fpFuncs.Load(fn)
	if !ok {
		var f func(a1, a2, a3, a4 uintptr, f1, f2 float64) uintptr
		purego.RegisterFunc(&f, fn)
		v, _ = fpFuncs.LoadOrStore(fn, f)
	}
	return v.(func(a1, a2, a3, a4 uintptr, f1, f2 float64) uintptr)(a1, a2, a3, a4,
		math.Float64frombits(uint64(f1)), math.Float64frombits(uint64(f2)))
}
