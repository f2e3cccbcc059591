//go:build !purego

package lanes

import "golang.org/x/sys/cpu"

// vector is whether the AVX2 code of lanes_amd64.s runs (it needs AVX2
// and FMA, and the OS saving the vector registers, which cpu checks).
var vector = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// The vector code, in lanes_amd64.s; each is its exported name's
// function. Those with n and stride run over n warps' registers, stride
// bytes apart (n >= 1; Warps' methods), the exported functions with n 1.

//go:noescape
func addAVX2(d, x, y *Reg, mask uint64, n int, stride uintptr)

//go:noescape
func subAVX2(d, x, y *Reg, mask uint64, n int, stride uintptr)

//go:noescape
func addImmAVX2(d, x *Reg, imm, mask uint64)

//go:noescape
func andAVX2(d, x, y *Reg, n int, stride uintptr)

//go:noescape
func orAVX2(d, x, y *Reg, n int, stride uintptr)

//go:noescape
func xorAVX2(d, x, y *Reg, n int, stride uintptr)

//go:noescape
func mulLo32AVX2(d, x, y *Reg, mask uint64, n int, stride uintptr)

//go:noescape
func madLo32AVX2(d, x, y, z *Reg, mask uint64, n int, stride uintptr)

//go:noescape
func mulWideS32AVX2(d, x, y *Reg, n int, stride uintptr)

//go:noescape
func madWideS32AVX2(d, x, y, z *Reg, n int, stride uintptr)

//go:noescape
func ltS32AVX2(d, x, y *Reg, flip uint64, n int, stride uintptr)

//go:noescape
func ltS64AVX2(d, x, y *Reg, flip uint64, n int, stride uintptr)

//go:noescape
func ltU64AVX2(d, x, y *Reg, flip uint64, n int, stride uintptr)

//go:noescape
func eqAVX2(d, x, y *Reg, mask, flip uint64)

//go:noescape
func selpAVX2(d, x, y, p *Reg)

//go:noescape
func addF32AVX2(d, x, y *Reg, n int, stride uintptr)

//go:noescape
func mulF32AVX2(d, x, y *Reg, n int, stride uintptr)

//go:noescape
func fmaF32AVX2(d, x, y, z *Reg, n int, stride uintptr)

//go:noescape
func nonzeroAVX2(p *Reg) uint32

//go:noescape
func checkAVX2(a *Reg, start, lim, amask, imm, step uint64) (inSpan, consecutive bool)

//go:noescape
func load32AVX2(d *Reg, src *[128]byte, n int, stride uintptr)

//go:noescape
func store32AVX2(dst *[128]byte, v *Reg, n int, stride uintptr)

//go:noescape
func consecutiveAVX2(a *Reg, step uint64, n int, stride uintptr) bool

//go:noescape
func addF32sAVX2(d, x, y *byte, n int)

//go:noescape
func subF32sAVX2(d, x, y *byte, n int)

//go:noescape
func mulF32sAVX2(d, x, y *byte, n int)

//go:noescape
func fmaF32sAVX2(d, x, y, z *byte, n int)

//go:noescape
func fillF32sAVX2(d *byte, v uint32, n int)
