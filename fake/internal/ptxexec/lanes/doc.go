// Package lanes runs one instruction for the 32 lanes of a full warp: the
// arithmetic of the PTX interpreter's hot loops (ptxexec's fullwarp.go),
// over registers laid out lane by lane (a [Reg] holds one register slot of
// every lane). [Warps] runs it for several warps whose registers lie side
// by side, in one call (ptxexec's block programs).
//
// Each function has the meaning of its plain Go loop (generic.go), which
// is what runs on every machine; on amd64 with AVX2 and FMA the same
// function runs as vector code (lanes_amd64.s), four lanes at a time.
// lanes_test.go checks the two against each other on random and special
// values (NaN, infinities, subnormals, signed zeros, every width's
// extremes), so that the interpreter's results never depend on the
// machine.
//
// # Hazard
//
// The vector code is assembly: the Go compiler checks neither its bounds
// nor its types. Every function reads and writes exactly the 32 uint64 of
// each *Reg it is given (so a *Reg is always a whole array, never a
// slice's shorter tail), touches no other memory, holds no pointer past
// its return and calls nothing: that is all its callers rely on, and the
// tests run each function with registers placed between guard words that
// must not change. Over several warps ([Warps]) the code reads and writes
// the same registers of each warp in turn, stride bytes apart, after the
// Go method has checked that all of them lie in Warps.S. The packed
// float32 functions (AddF32s, ...: runs of memory, not registers) read
// and write exactly the bytes of the slices they are given, whole steps
// of 32 bytes in the vector code and the rest in Go, after the Go
// function has checked that the slices have one length, a multiple of 4.
// Build with -tags purego to run the Go loops only.
//
// # Floating point
//
// AddF32, MulF32 and FmaF32 are IEEE 754 single-precision, rounded to
// nearest even, with subnormals kept (no flush to zero): PTX's
// add.rn.f32, mul.rn.f32 and fma.rn.f32 without .ftz. The x86 vector
// instructions compute exactly that under Go's floating-point environment
// (MXCSR at its default: round to nearest, no FTZ or DAZ); a NaN result is
// the GPU's canonical NaN 0x7fffffff, whatever the operands' payloads.
package lanes
