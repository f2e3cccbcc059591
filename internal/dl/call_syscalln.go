//go:build linux && (amd64 || arm64) && nocgo_syscalln

package dl

import (
	"sync"

	"github.com/ebitengine/purego"
)

// The fallback call path, built with -tags nocgo_syscalln for a Go release
// that no longer links runtime.cgocall or runtime.asmcgocall from outside the
// runtime: Call0 ... Call24 (zcall_syscalln.go) and LeanCall0 ... LeanCall3
// hand purego.SyscallN a pooled argument slice. They keep the old contract:
// marked //go:uintptrescapes, so a local whose address is converted to
// uintptr in the call expression moves to the heap (one allocation) and stays
// alive until the call returns. The rules of call.go still hold for callers
// (they are what the default path needs).

// Trampolines reports whether the CallN functions go through the
// library's own trampolines: not in this build.
const Trampolines = false

// leanBuilt reports whether the LeanCallN functions skip entersyscall.
const leanBuilt = false

type argBuf [24]uintptr

var argPool = sync.Pool{New: func() any { return new(argBuf) }}

func args() *argBuf { return argPool.Get().(*argBuf) }

func call(fn uintptr, b *argBuf, n int) uintptr {
	if fn == 0 {
		panic(errNilFn)
	}
	if b == nil {
		r, _, _ := purego.SyscallN(fn)
		return r
	}
	r, _, _ := purego.SyscallN(fn, b[:n]...)
	argPool.Put(b)
	return r
}

// LeanCall0 calls fn() (Call0 in this build).
func LeanCall0(fn uintptr) uintptr { return Call0(fn) }

// LeanCall1 calls fn(a1) (Call1 in this build).
//
//go:uintptrescapes
func LeanCall1(fn, a1 uintptr) uintptr { return Call1(fn, a1) }

// LeanCall2 calls fn(a1, a2) (Call2 in this build).
//
//go:uintptrescapes
func LeanCall2(fn, a1, a2 uintptr) uintptr { return Call2(fn, a1, a2) }

// LeanCall3 calls fn(a1, a2, a3) (Call3 in this build).
//
//go:uintptrescapes
func LeanCall3(fn, a1, a2, a3 uintptr) uintptr { return Call3(fn, a1, a2, a3) }
