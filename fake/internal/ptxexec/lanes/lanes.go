package lanes

import "encoding/binary"

// Reg is one register slot of the 32 lanes of a warp, lane j at index j.
// Values narrower than 64 bits are kept zero-extended to 64 (the
// interpreter masks every result to its width); the functions below
// assume it where they say so.
type Reg = [32]uint64

// Add sets d[j] = (x[j] + y[j]) & mask.
func Add(d, x, y *Reg, mask uint64) {
	if vector {
		addAVX2(d, x, y, mask, 1, 0)
		return
	}
	addGo(d, x, y, mask)
}

// Sub sets d[j] = (x[j] - y[j]) & mask.
func Sub(d, x, y *Reg, mask uint64) {
	if vector {
		subAVX2(d, x, y, mask, 1, 0)
		return
	}
	subGo(d, x, y, mask)
}

// AddImm sets d[j] = (x[j] + imm) & mask (with imm 0, a masked move).
func AddImm(d, x *Reg, imm, mask uint64) {
	if vector {
		addImmAVX2(d, x, imm, mask)
		return
	}
	addImmGo(d, x, imm, mask)
}

// And sets d[j] = x[j] & y[j].
func And(d, x, y *Reg) {
	if vector {
		andAVX2(d, x, y, 1, 0)
		return
	}
	andGo(d, x, y)
}

// Or sets d[j] = x[j] | y[j].
func Or(d, x, y *Reg) {
	if vector {
		orAVX2(d, x, y, 1, 0)
		return
	}
	orGo(d, x, y)
}

// Xor sets d[j] = x[j] ^ y[j].
func Xor(d, x, y *Reg) {
	if vector {
		xorAVX2(d, x, y, 1, 0)
		return
	}
	xorGo(d, x, y)
}

// MulLo32 sets d[j] to the product of x[j]'s and y[j]'s low 32 bits, as
// 64 bits, & mask: mul.lo of widths up to 32 (mask their width), and
// mul.wide.u32 (mask all ones; its operands are 32-bit values).
func MulLo32(d, x, y *Reg, mask uint64) {
	if vector {
		mulLo32AVX2(d, x, y, mask, 1, 0)
		return
	}
	mulLo32Go(d, x, y, mask)
}

// MadLo32 sets d[j] = (MulLo32's product + z[j]) & mask: mad.lo of
// widths up to 32 and mad.wide.u32.
func MadLo32(d, x, y, z *Reg, mask uint64) {
	if vector {
		madLo32AVX2(d, x, y, z, mask, 1, 0)
		return
	}
	madLo32Go(d, x, y, z, mask)
}

// MulWideS32 sets d[j] to the 64-bit product of x[j]'s and y[j]'s low 32
// bits as signed integers: mul.wide.s32.
func MulWideS32(d, x, y *Reg) {
	if vector {
		mulWideS32AVX2(d, x, y, 1, 0)
		return
	}
	mulWideS32Go(d, x, y)
}

// MadWideS32 sets d[j] = MulWideS32's product + z[j]: mad.wide.s32.
func MadWideS32(d, x, y, z *Reg) {
	if vector {
		madWideS32AVX2(d, x, y, z, 1, 0)
		return
	}
	madWideS32Go(d, x, y, z)
}

// LessS32 sets d[j] to 1 when int32(x[j]) < int32(y[j]), else 0, each
// then xor flip (1 for the negated comparison, >=).
func LessS32(d, x, y *Reg, flip uint64) {
	if vector {
		ltS32AVX2(d, x, y, flip, 1, 0)
		return
	}
	ltS32Go(d, x, y, flip)
}

// LessS64 is LessS32 of int64(x[j]) and int64(y[j]).
func LessS64(d, x, y *Reg, flip uint64) {
	if vector {
		ltS64AVX2(d, x, y, flip, 1, 0)
		return
	}
	ltS64Go(d, x, y, flip)
}

// LessU64 is LessS32 of x[j] and y[j] as unsigned 64-bit values (for
// narrower unsigned types too: they are zero-extended).
func LessU64(d, x, y *Reg, flip uint64) {
	if vector {
		ltU64AVX2(d, x, y, flip, 1, 0)
		return
	}
	ltU64Go(d, x, y, flip)
}

// Equal sets d[j] to 1 when x[j] and y[j] agree in the bits of mask,
// else 0, each then xor flip (1 for !=).
func Equal(d, x, y *Reg, mask, flip uint64) {
	if vector {
		eqAVX2(d, x, y, mask, flip)
		return
	}
	eqGo(d, x, y, mask, flip)
}

// Select sets d[j] = x[j] where p[j] != 0, else y[j]: selp.
func Select(d, x, y, p *Reg) {
	if vector {
		selpAVX2(d, x, y, p)
		return
	}
	selpGo(d, x, y, p)
}

// AddF32 sets d[j] to the float32 sum of x[j]'s and y[j]'s low 32 bits
// (add.rn.f32), zero-extended.
func AddF32(d, x, y *Reg) {
	if vector {
		addF32AVX2(d, x, y, 1, 0)
		return
	}
	addF32Go(d, x, y)
}

// MulF32 is AddF32's product: mul.rn.f32.
func MulF32(d, x, y *Reg) {
	if vector {
		mulF32AVX2(d, x, y, 1, 0)
		return
	}
	mulF32Go(d, x, y)
}

// FmaF32 sets d[j] to x[j]*y[j] + z[j] of their low 32 bits as float32,
// rounded once (fma.rn.f32), zero-extended.
func FmaF32(d, x, y, z *Reg) {
	if vector {
		fmaF32AVX2(d, x, y, z, 1, 0)
		return
	}
	fmaF32Go(d, x, y, z)
}

// Nonzero returns the lanes whose p is not 0, lane j at bit j: the lanes
// a guard predicate lets run.
func Nonzero(p *Reg) uint32 {
	if vector {
		return nonzeroAVX2(p)
	}
	return nonzeroGo(p)
}

// Check reports whether every lane's address a[j] lies in a span and is
// aligned: a[j]-start (unsigned, so an address below start fails) is at
// most lim, and a[j]+imm has no bit of amask set; and whether the
// addresses are consecutive: a[j] = a[0] + j*step.
func Check(a *Reg, start, lim, amask, imm, step uint64) (inSpan, consecutive bool) {
	if vector {
		return checkAVX2(a, start, lim, amask, imm, step)
	}
	return checkGo(a, start, lim, amask, imm, step)
}

// Consecutive reports whether a[j] = a[0] + j*step for every lane: the
// addresses of a coalesced access of step bytes a lane.
func Consecutive(a *Reg, step uint64) bool {
	if vector {
		return consecutiveAVX2(a, step, 1, 0)
	}
	return consecutiveGo(a, step)
}

// Load32 sets d[j] to the little-endian uint32 at src[4j:]: 32
// consecutive 4-byte loads.
func Load32(d *Reg, src *[128]byte) {
	if vector {
		load32AVX2(d, src, 1, 0)
		return
	}
	load32Go(d, src)
}

// Store32 writes the low 32 bits of v[j] little-endian at dst[4j:]: 32
// consecutive 4-byte stores.
func Store32(dst *[128]byte, v *Reg) {
	if vector {
		store32AVX2(dst, v, 1, 0)
		return
	}
	store32Go(dst, v)
}

// Load64 sets d[j] to the little-endian uint64 at src[8j:].
func Load64(d *Reg, src *[256]byte) {
	for j := range d {
		d[j] = binary.LittleEndian.Uint64(src[8*j:])
	}
}

// Store64 writes v[j] little-endian at dst[8j:].
func Store64(dst *[256]byte, v *Reg) {
	for j := range v {
		binary.LittleEndian.PutUint64(dst[8*j:], v[j])
	}
}
