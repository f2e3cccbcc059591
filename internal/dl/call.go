//go:build linux && (amd64 || arm64) && !nocgo_syscalln

package dl

//go:generate go run gen_calls.go

import (
	"fmt"
	"unsafe"

	// purego's fakecgo (imported by purego under CGO_ENABLED=0) sets up the
	// cgo runtime hooks (iscgo, _cgo_init, thread start) that runtime.cgocall
	// needs; without it cgocall throws "cgocall unavailable".
	_ "github.com/ebitengine/purego"
)

// The call path: Call0 ... Call14 (zcall.go, written by gen_calls.go) build
// a frame on the goroutine stack (fn, the result, two words for stackMoved,
// the arguments; see frame below) and hand its
// address to runtime.cgocall with the trampoline of their arity (callN in
// zcall_GOARCH.s). cgocall does what a cgo call does (entersyscall, so the
// scheduler hands the P to another M while C runs; asmcgocall, which switches
// to the system stack and calls the trampoline with the C ABI; exitsyscall).
// The trampoline loads the argument registers its arity needs (amd64: DI SI
// DX CX R8 R9, then the stack; arm64: R0-R7, then the stack), calls fn and
// stores the integer return register in the frame. Nothing is allocated,
// pooled or deferred.
//
// Why the CallN functions are //go:nosplit and not //go:uintptrescapes: a
// caller writes uintptr(unsafe.Pointer(&x)) in the call expression, with x a
// local. //go:uintptrescapes would move every such x to the heap (one
// allocation per out-parameter). Without it, x stays on the goroutine stack,
// and the uintptr is only right while that stack does not move. A stack moves
// when it grows, and it grows only in a function prologue: the CallN
// functions have none (nosplit), nor do runtime.cgocall and entersyscall, and
// a stack is never moved or shrunk while its goroutine is in a system call.
// So the address stays valid from the conversion to the C call's return,
// provided the caller evaluates no function call between the two: write
// every argument as a plain value or a conversion, computed before the call
// statement if it needs a call. The linker checks that a nosplit function and
// the nosplit functions it calls fit in a fixed stack budget (800 bytes less
// a margin): the CallN functions fill their frame field by field, which keeps
// even Call24 built with -gcflags=all='-N -l' (debuggers) within it on amd64
// and arm64; a composite literal doubled the frame and overflowed it.
//
// Callbacks. If fn calls back into Go on the same thread (a purego callback,
// such as a qsort comparator), that Go code runs on the calling goroutine's
// stack and may grow it, which moves the stack to new memory and frees the
// old. The trampolines handle their own frame as cgo's wrappers do (they read
// the stack top before and after the call and store the result where the
// frame is now), but an address of Go stack memory that C uses after such a
// callback is stale: C reads or writes freed stack memory. So a call that may
// run Go callbacks must be given heap (or C) memory only. Note that the
// compiler keeps a make or new of constant size on the stack when it does
// not escape: memory meant for such a call must escape (be returned from a
// //go:noinline function, or stored somewhere reachable). When the stack did
// move during a call and an argument pointed into the old stack, the CallN
// function panics (stackMoved): the damage is done, but it is not silent.
//
// Heap memory. A uintptr does not keep what it points to alive, and the
// garbage collector runs while the goroutine is in C. A caller that passes
// the address of a heap object (a slice's backing array, a field of a heap
// struct, a Go string's bytes) must keep the object reachable until the call
// returns: runtime.KeepAlive(obj) after the call (or a runtime.Pinner, when
// C keeps the address after returning).
//
// Lean calls (LeanCall0..3, lean.go) skip entersyscall and call
// runtime.asmcgocall directly; see there for when that is allowed.
//
// Linknames. runtime.cgocall is marked //go:linkname in the runtime (for
// purego, go.dev/issue/67401), and runtime.asmcgocall and _cgo_topofstack
// are assembly symbols, which the Go 1.23+ linker treats as pushed; the
// linker accepts all three without -checklinkname=0 (checked with Go 1.26).
// Should a Go release break that, build with -tags nocgo_syscalln: the same
// API over purego.SyscallN (zcall_syscalln.go), which allocates.

// cgocall is runtime.cgocall: entersyscall, asmcgocall(fn, arg),
// exitsyscall. It does not keep arg beyond the call.
//
//go:linkname cgocall runtime.cgocall
//go:noescape
func cgocall(fn uintptr, arg unsafe.Pointer) int32

// trampolines[n] is the address of the n-argument trampoline (callN in
// zcall_GOARCH.s, which defines it with its contents; leanTrampolines, in
// lean.go, is its lean counterpart).
var trampolines [25]uintptr

// Trampolines reports whether the CallN functions go through the
// library's own trampolines: false when built with -tags nocgo_syscalln,
// where they are purego.SyscallN and each pointer argument moves to the
// heap (one allocation).
const Trampolines = true

// frame is the layout of every frameN (zcall.go): the trampolines read and
// write it at fixed offsets (gen_calls.go's offFn ... offArgs). moved and top
// are written only when the goroutine stack moved during the call (a Go
// callback grew it): how far, and where its top was before.
type frame struct {
	fn, r, moved, top uintptr
	a                 [0]uintptr
}

// An index out of range here is a compile error when the layouts disagree.
var (
	_ = [1]struct{}{}[unsafe.Offsetof(frame{}.fn)]
	_ = [1]struct{}{}[unsafe.Offsetof(frame{}.r)-8]
	_ = [1]struct{}{}[unsafe.Offsetof(frame{}.moved)-16]
	_ = [1]struct{}{}[unsafe.Offsetof(frame{}.top)-24]
	_ = [1]struct{}{}[unsafe.Offsetof(frame{}.a)-32]
	_ = [1]struct{}{}[unsafe.Offsetof(frame0{}.a)-32]
	_ = [1]struct{}{}[unsafe.Offsetof(frame14{}.top)-24]
	_ = [1]struct{}{}[unsafe.Offsetof(frame14{}.a)-32]
	_ = [1]struct{}{}[unsafe.Sizeof(frame14{})-32-14*8]
)

// stackMoved runs after a call during which a Go callback moved the
// goroutine stack (moved bytes; its top was at top). The caller's frames
// were between the call's old frame (at frameNow-moved) and top: an
// argument in that range was the address of Go stack memory, which C used
// after it was freed. That is a bug in the caller (see above); it panics.
func stackMoved(frameNow, moved, top uintptr, a []uintptr) {
	old := frameNow - moved
	for i, x := range a {
		if x >= old && x < top {
			panic(fmt.Sprintf("dl: argument %d (%#x) is the address of Go stack memory, and a Go callback "+
				"moved the goroutine stack during the call: C used freed memory; give calls that run "+
				"Go callbacks heap or C memory only", i+1, x))
		}
	}
}
