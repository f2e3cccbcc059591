package lanes

import "math/bits"

// Warps is the registers of N warps side by side, Slots registers of 32
// lanes each: warp w's register s is S[(w*Slots+s)*32:][:32]. Its methods
// run one operation for every warp's lanes in one call (the vector code
// loops over the warps itself): the same results as the function of the
// same name called for each warp in turn, d, x, y and z naming registers
// (0 <= s < Slots). A method panics when a register or N is out of
// range; the caller (package ptxexec) makes Warps over its own
// registers.
type Warps struct {
	S     []uint64
	Slots int
	N     int
}

// regs returns warp 0's registers d, x, y, z and the distance in bytes
// between two warps' registers, after the bounds checks.
func (f Warps) regs(d, x, y, z int32) (rd, rx, ry, rz *Reg, stride uintptr) {
	// (No division by Slots nor loop: this runs at every call.)
	hi, lo := bits.Mul64(uint64(f.N), uint64(f.Slots))
	if f.N < 1 || f.Slots < 1 || hi != 0 || lo > uint64(len(f.S))/32 {
		panic("lanes: Warps: fewer registers than N warps of Slots")
	}
	if min(d, x, y, z) < 0 || int(max(d, x, y, z)) >= f.Slots {
		panic("lanes: Warps: register out of range")
	}
	r := func(s int32) *Reg { return (*Reg)(f.S[int(s)*32:]) }
	return r(d), r(x), r(y), r(z), uintptr(f.Slots) * 32 * 8
}

// at returns warp w's register s (the Go loops' way).
func (f Warps) at(w int, s int32) *Reg { return (*Reg)(f.S[(w*f.Slots+int(s))*32:]) }

// each runs op for every warp's registers d, x, y, z.
func (f Warps) each(d, x, y, z int32, op func(d, x, y, z *Reg)) {
	for w := range f.N {
		op(f.at(w, d), f.at(w, x), f.at(w, y), f.at(w, z))
	}
}

// Add is [Add] for every warp.
func (f Warps) Add(d, x, y int32, mask uint64) {
	rd, rx, ry, _, st := f.regs(d, x, y, 0)
	if vector {
		addAVX2(rd, rx, ry, mask, f.N, st)
		return
	}
	f.each(d, x, y, 0, func(d, x, y, _ *Reg) { addGo(d, x, y, mask) })
}

// Sub is [Sub] for every warp.
func (f Warps) Sub(d, x, y int32, mask uint64) {
	rd, rx, ry, _, st := f.regs(d, x, y, 0)
	if vector {
		subAVX2(rd, rx, ry, mask, f.N, st)
		return
	}
	f.each(d, x, y, 0, func(d, x, y, _ *Reg) { subGo(d, x, y, mask) })
}

// And is [And] for every warp.
func (f Warps) And(d, x, y int32) {
	rd, rx, ry, _, st := f.regs(d, x, y, 0)
	if vector {
		andAVX2(rd, rx, ry, f.N, st)
		return
	}
	f.each(d, x, y, 0, func(d, x, y, _ *Reg) { andGo(d, x, y) })
}

// Or is [Or] for every warp.
func (f Warps) Or(d, x, y int32) {
	rd, rx, ry, _, st := f.regs(d, x, y, 0)
	if vector {
		orAVX2(rd, rx, ry, f.N, st)
		return
	}
	f.each(d, x, y, 0, func(d, x, y, _ *Reg) { orGo(d, x, y) })
}

// Xor is [Xor] for every warp.
func (f Warps) Xor(d, x, y int32) {
	rd, rx, ry, _, st := f.regs(d, x, y, 0)
	if vector {
		xorAVX2(rd, rx, ry, f.N, st)
		return
	}
	f.each(d, x, y, 0, func(d, x, y, _ *Reg) { xorGo(d, x, y) })
}

// MulLo32 is [MulLo32] for every warp.
func (f Warps) MulLo32(d, x, y int32, mask uint64) {
	rd, rx, ry, _, st := f.regs(d, x, y, 0)
	if vector {
		mulLo32AVX2(rd, rx, ry, mask, f.N, st)
		return
	}
	f.each(d, x, y, 0, func(d, x, y, _ *Reg) { mulLo32Go(d, x, y, mask) })
}

// MadLo32 is [MadLo32] for every warp.
func (f Warps) MadLo32(d, x, y, z int32, mask uint64) {
	rd, rx, ry, rz, st := f.regs(d, x, y, z)
	if vector {
		madLo32AVX2(rd, rx, ry, rz, mask, f.N, st)
		return
	}
	f.each(d, x, y, z, func(d, x, y, z *Reg) { madLo32Go(d, x, y, z, mask) })
}

// MulWideS32 is [MulWideS32] for every warp.
func (f Warps) MulWideS32(d, x, y int32) {
	rd, rx, ry, _, st := f.regs(d, x, y, 0)
	if vector {
		mulWideS32AVX2(rd, rx, ry, f.N, st)
		return
	}
	f.each(d, x, y, 0, func(d, x, y, _ *Reg) { mulWideS32Go(d, x, y) })
}

// MadWideS32 is [MadWideS32] for every warp.
func (f Warps) MadWideS32(d, x, y, z int32) {
	rd, rx, ry, rz, st := f.regs(d, x, y, z)
	if vector {
		madWideS32AVX2(rd, rx, ry, rz, f.N, st)
		return
	}
	f.each(d, x, y, z, func(d, x, y, z *Reg) { madWideS32Go(d, x, y, z) })
}

// LessS32 is [LessS32] for every warp.
func (f Warps) LessS32(d, x, y int32, flip uint64) {
	rd, rx, ry, _, st := f.regs(d, x, y, 0)
	if vector {
		ltS32AVX2(rd, rx, ry, flip, f.N, st)
		return
	}
	f.each(d, x, y, 0, func(d, x, y, _ *Reg) { ltS32Go(d, x, y, flip) })
}

// LessS64 is [LessS64] for every warp.
func (f Warps) LessS64(d, x, y int32, flip uint64) {
	rd, rx, ry, _, st := f.regs(d, x, y, 0)
	if vector {
		ltS64AVX2(rd, rx, ry, flip, f.N, st)
		return
	}
	f.each(d, x, y, 0, func(d, x, y, _ *Reg) { ltS64Go(d, x, y, flip) })
}

// LessU64 is [LessU64] for every warp.
func (f Warps) LessU64(d, x, y int32, flip uint64) {
	rd, rx, ry, _, st := f.regs(d, x, y, 0)
	if vector {
		ltU64AVX2(rd, rx, ry, flip, f.N, st)
		return
	}
	f.each(d, x, y, 0, func(d, x, y, _ *Reg) { ltU64Go(d, x, y, flip) })
}

// AddF32 is [AddF32] for every warp.
func (f Warps) AddF32(d, x, y int32) {
	rd, rx, ry, _, st := f.regs(d, x, y, 0)
	if vector {
		addF32AVX2(rd, rx, ry, f.N, st)
		return
	}
	f.each(d, x, y, 0, func(d, x, y, _ *Reg) { addF32Go(d, x, y) })
}

// MulF32 is [MulF32] for every warp.
func (f Warps) MulF32(d, x, y int32) {
	rd, rx, ry, _, st := f.regs(d, x, y, 0)
	if vector {
		mulF32AVX2(rd, rx, ry, f.N, st)
		return
	}
	f.each(d, x, y, 0, func(d, x, y, _ *Reg) { mulF32Go(d, x, y) })
}

// FmaF32 is [FmaF32] for every warp.
func (f Warps) FmaF32(d, x, y, z int32) {
	rd, rx, ry, rz, st := f.regs(d, x, y, z)
	if vector {
		fmaF32AVX2(rd, rx, ry, rz, f.N, st)
		return
	}
	f.each(d, x, y, z, func(d, x, y, z *Reg) { fmaF32Go(d, x, y, z) })
}

// Consecutive reports whether register a of the warps holds consecutive
// addresses across all of them: warp w's lane j is warp 0's lane 0 plus
// (32*w+j)*step (a coalesced access of the whole file's lanes).
func (f Warps) Consecutive(a int32, step uint64) bool {
	ra, _, _, _, st := f.regs(a, a, a, a)
	if vector {
		return consecutiveAVX2(ra, step, f.N, st)
	}
	base := ra[0]
	for w := range f.N {
		if !consecutiveGo(f.at(w, a), step) || f.at(w, a)[0] != base+uint64(32*w)*step {
			return false
		}
	}
	return true
}

// Load32 is [Load32] for every warp, warp w's lanes from src[128*w:].
func (f Warps) Load32(d int32, src []byte) {
	rd, _, _, _, st := f.regs(d, d, d, d)
	src = src[:128*f.N]
	if vector {
		load32AVX2(rd, (*[128]byte)(src), f.N, st)
		return
	}
	for w := range f.N {
		load32Go(f.at(w, d), (*[128]byte)(src[128*w:]))
	}
}

// Store32 is [Store32] for every warp, warp w's lanes at dst[128*w:].
func (f Warps) Store32(dst []byte, v int32) {
	rv, _, _, _, st := f.regs(v, v, v, v)
	dst = dst[:128*f.N]
	if vector {
		store32AVX2((*[128]byte)(dst), rv, f.N, st)
		return
	}
	for w := range f.N {
		store32Go((*[128]byte)(dst[128*w:]), f.at(w, v))
	}
}

// Load64 is [Load64] for every warp, warp w's lanes from src[256*w:].
func (f Warps) Load64(d int32, src []byte) {
	f.regs(d, d, d, d)
	src = src[:256*f.N]
	for w := range f.N {
		Load64(f.at(w, d), (*[256]byte)(src[256*w:]))
	}
}

// Store64 is [Store64] for every warp, warp w's lanes at dst[256*w:].
func (f Warps) Store64(dst []byte, v int32) {
	f.regs(v, v, v, v)
	dst = dst[:256*f.N]
	for w := range f.N {
		Store64((*[256]byte)(dst[256*w:]), f.at(w, v))
	}
}
