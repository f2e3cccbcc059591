//go:build linux && (amd64 || arm64) && !nocgo_syscalln && !race

package dl

import "unsafe"

// LeanCall0 ... LeanCall3 call fn like Call0 ... Call3, but through
// runtime.asmcgocall alone: no entersyscall/exitsyscall, so a call costs
// about what a Go function call through the system stack costs. They are for
// the few C functions that return at once and only touch the calling thread's
// state (cuCtxGetCurrent, cuCtxSetCurrent, cuCtxPushCurrent, cuCtxPopCurrent,
// cuGetErrorName). The rules of Call0 ... Call3 apply, and more, because the
// runtime does not know that the goroutine is in C:
//
//   - The goroutine keeps its P, and stop-the-world (garbage collection
//     phases, stack scans of this goroutine) waits until the call returns: a
//     function that blocks, waits on a lock or runs long stalls every
//     goroutine. Never use them for anything that can block.
//   - Signals (preemption, profiling, a user's SIGINT) land while the thread
//     runs C code on the system stack; the runtime handles them there, but a
//     profile attributes the time to no Go frame.
//   - fn must not call back into Go: a callback from inside a lean call finds
//     no cgocall state (no entersyscall) and crashes the process.
//   - The race detector sees no happens-before edge through the call. Under
//     -race (lean_race.go) the LeanCallN functions are Call0 ... Call3.
//
// runtime.asmcgocall is an assembly function; the Go 1.23+ linker treats
// assembly definitions as pushed linknames, so this pull is accepted without
// -checklinkname=0 (Go 1.26: it binds to the runtime's ABI wrapper,
// runtime.asmcgocall -> runtime.asmcgocall.abi0, which is nosplit). With
// -tags nocgo_syscalln they are Call0 ... Call3 over purego.SyscallN.

// asmcgocall is runtime.asmcgocall: it switches to the system stack and
// calls fn(arg) with the C ABI.
//
//go:linkname asmcgocall runtime.asmcgocall
//go:noescape
func asmcgocall(fn uintptr, arg unsafe.Pointer) int32

// leanTrampolines[n] is the address of the n-argument lean trampoline
// (leanN in zcall_GOARCH.s, which defines it with its contents).
var leanTrampolines [4]uintptr

// leanBuilt reports whether the LeanCallN functions skip entersyscall.
const leanBuilt = true

// LeanCall0 calls fn() without entersyscall; see above.
//
//go:nosplit
func LeanCall0(fn uintptr) uintptr {
	if fn == 0 {
		panic(errNilFn)
	}
	var f frame0
	f.fn = fn
	asmcgocall(leanTrampolines[0], unsafe.Pointer(&f))
	return f.r
}

// LeanCall1 calls fn(a1) without entersyscall; see above.
//
//go:nosplit
func LeanCall1(fn, a1 uintptr) uintptr {
	if fn == 0 {
		panic(errNilFn)
	}
	var f frame1
	f.fn = fn
	f.a[0] = a1
	asmcgocall(leanTrampolines[1], unsafe.Pointer(&f))
	return f.r
}

// LeanCall2 calls fn(a1, a2) without entersyscall; see above.
//
//go:nosplit
func LeanCall2(fn, a1, a2 uintptr) uintptr {
	if fn == 0 {
		panic(errNilFn)
	}
	var f frame2
	f.fn = fn
	f.a[0] = a1
	f.a[1] = a2
	asmcgocall(leanTrampolines[2], unsafe.Pointer(&f))
	return f.r
}

// LeanCall3 calls fn(a1, a2, a3) without entersyscall; see above.
//
//go:nosplit
func LeanCall3(fn, a1, a2, a3 uintptr) uintptr {
	if fn == 0 {
		panic(errNilFn)
	}
	var f frame3
	f.fn = fn
	f.a[0] = a1
	f.a[1] = a2
	f.a[2] = a3
	asmcgocall(leanTrampolines[3], unsafe.Pointer(&f))
	return f.r
}
