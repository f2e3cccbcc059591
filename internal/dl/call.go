//go:build linux && (amd64 || arm64)

package dl

import (
	"sync"

	"github.com/ebitengine/purego"
)

// The CallN functions call the C function at fn with N integer or pointer
// arguments (each one register or stack slot: a 32-bit C argument is passed
// as uintptr(v), and the callee reads the low half) and return the integer
// return register. Callers keep only the width they need: a 32-bit C
// result, such as CUresult, is uint32(r), since the upper half of the
// register is not part of the value.
//
// They exist because purego.SyscallN allocates on every call with
// arguments: it is marked //go:uintptrescapes, so its variadic slice
// escapes. The CallN functions carry the same marking on fixed uintptr
// parameters (Go memory whose address is converted to uintptr in the call
// expression is moved to the heap and kept alive until the call returns,
// exactly as with SyscallN) and hand purego a pooled argument slice, so a
// call itself allocates nothing. As with SyscallN, write
// uintptr(unsafe.Pointer(p)) inside the call expression, never earlier.

type argBuf [16]uintptr

var argPool = sync.Pool{New: func() any { return new(argBuf) }}

func call(fn uintptr, b *argBuf, n int) uintptr {
	r, _, _ := purego.SyscallN(fn, b[:n]...)
	argPool.Put(b)
	return r
}

func args() *argBuf { return argPool.Get().(*argBuf) }

// Call0 calls fn().
func Call0(fn uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn)
	return r
}

// Call1 calls fn(a1).
//
//go:uintptrescapes
func Call1(fn, a1 uintptr) uintptr {
	b := args()
	b[0] = a1
	return call(fn, b, 1)
}

// Call2 calls fn(a1, a2).
//
//go:uintptrescapes
func Call2(fn, a1, a2 uintptr) uintptr {
	b := args()
	b[0] = a1
	b[1] = a2
	return call(fn, b, 2)
}

// Call3 calls fn(a1, a2, a3).
//
//go:uintptrescapes
func Call3(fn, a1, a2, a3 uintptr) uintptr {
	b := args()
	b[0] = a1
	b[1] = a2
	b[2] = a3
	return call(fn, b, 3)
}

// Call4 calls fn(a1, a2, a3, a4).
//
//go:uintptrescapes
func Call4(fn, a1, a2, a3, a4 uintptr) uintptr {
	b := args()
	b[0] = a1
	b[1] = a2
	b[2] = a3
	b[3] = a4
	return call(fn, b, 4)
}

// Call5 calls fn(a1, a2, a3, a4, a5).
//
//go:uintptrescapes
func Call5(fn, a1, a2, a3, a4, a5 uintptr) uintptr {
	b := args()
	b[0] = a1
	b[1] = a2
	b[2] = a3
	b[3] = a4
	b[4] = a5
	return call(fn, b, 5)
}

// Call6 calls fn(a1, a2, a3, a4, a5, a6).
//
//go:uintptrescapes
func Call6(fn, a1, a2, a3, a4, a5, a6 uintptr) uintptr {
	b := args()
	b[0] = a1
	b[1] = a2
	b[2] = a3
	b[3] = a4
	b[4] = a5
	b[5] = a6
	return call(fn, b, 6)
}

// Call11 calls fn(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11).
//
//go:uintptrescapes
func Call11(fn, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11 uintptr) uintptr {
	b := args()
	b[0] = a1
	b[1] = a2
	b[2] = a3
	b[3] = a4
	b[4] = a5
	b[5] = a6
	b[6] = a7
	b[7] = a8
	b[8] = a9
	b[9] = a10
	b[10] = a11
	return call(fn, b, 11)
}

// Call14 calls fn(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14).
//
//go:uintptrescapes
func Call14(fn, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14 uintptr) uintptr {
	b := args()
	b[0] = a1
	b[1] = a2
	b[2] = a3
	b[3] = a4
	b[4] = a5
	b[5] = a6
	b[6] = a7
	b[7] = a8
	b[8] = a9
	b[9] = a10
	b[10] = a11
	b[11] = a12
	b[12] = a13
	b[13] = a14
	return call(fn, b, 14)
}
