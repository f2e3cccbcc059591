//go:build !amd64 || purego

package lanes

// vector is false: only the Go loops run. The names below stand for the
// vector code of amd64, never called here.
const vector = false

func addAVX2(d, x, y *Reg, mask uint64, _ int, _ uintptr)        { addGo(d, x, y, mask) }
func subAVX2(d, x, y *Reg, mask uint64, _ int, _ uintptr)        { subGo(d, x, y, mask) }
func addImmAVX2(d, x *Reg, imm, mask uint64)                     { addImmGo(d, x, imm, mask) }
func andAVX2(d, x, y *Reg, _ int, _ uintptr)                     { andGo(d, x, y) }
func orAVX2(d, x, y *Reg, _ int, _ uintptr)                      { orGo(d, x, y) }
func xorAVX2(d, x, y *Reg, _ int, _ uintptr)                     { xorGo(d, x, y) }
func mulLo32AVX2(d, x, y *Reg, mask uint64, _ int, _ uintptr)    { mulLo32Go(d, x, y, mask) }
func madLo32AVX2(d, x, y, z *Reg, mask uint64, _ int, _ uintptr) { madLo32Go(d, x, y, z, mask) }
func mulWideS32AVX2(d, x, y *Reg, _ int, _ uintptr)              { mulWideS32Go(d, x, y) }
func madWideS32AVX2(d, x, y, z *Reg, _ int, _ uintptr)           { madWideS32Go(d, x, y, z) }
func ltS32AVX2(d, x, y *Reg, flip uint64, _ int, _ uintptr)      { ltS32Go(d, x, y, flip) }
func ltS64AVX2(d, x, y *Reg, flip uint64, _ int, _ uintptr)      { ltS64Go(d, x, y, flip) }
func ltU64AVX2(d, x, y *Reg, flip uint64, _ int, _ uintptr)      { ltU64Go(d, x, y, flip) }
func eqAVX2(d, x, y *Reg, mask, flip uint64)                     { eqGo(d, x, y, mask, flip) }
func selpAVX2(d, x, y, p *Reg)                                   { selpGo(d, x, y, p) }
func addF32AVX2(d, x, y *Reg, _ int, _ uintptr)                  { addF32Go(d, x, y) }
func mulF32AVX2(d, x, y *Reg, _ int, _ uintptr)                  { mulF32Go(d, x, y) }
func fmaF32AVX2(d, x, y, z *Reg, _ int, _ uintptr)               { fmaF32Go(d, x, y, z) }

func nonzeroAVX2(p *Reg) uint32 { return nonzeroGo(p) }
func checkAVX2(a *Reg, start, lim, amask, imm, step uint64) (bool, bool) {
	return checkGo(a, start, lim, amask, imm, step)
}
func load32AVX2(d *Reg, src *[128]byte, _ int, _ uintptr)  { load32Go(d, src) }
func store32AVX2(dst *[128]byte, v *Reg, _ int, _ uintptr) { store32Go(dst, v) }

func consecutiveAVX2(a *Reg, step uint64, _ int, _ uintptr) bool { return consecutiveGo(a, step) }

func addF32sAVX2(d, x, y *byte, n int)      {}
func subF32sAVX2(d, x, y *byte, n int)      {}
func mulF32sAVX2(d, x, y *byte, n int)      {}
func fmaF32sAVX2(d, x, y, z *byte, n int)   {}
func fillF32sAVX2(d *byte, v uint32, n int) {}
