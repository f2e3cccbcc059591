package lanes

import (
	"encoding/binary"
	"math"

	"github.com/nocgo/cuda/fake/internal/fpu"
)

// The plain Go loops: what each exported function means, and what runs
// where no vector code does.

func addGo(d, x, y *Reg, mask uint64) {
	for j := range d {
		d[j] = (x[j] + y[j]) & mask
	}
}

func subGo(d, x, y *Reg, mask uint64) {
	for j := range d {
		d[j] = (x[j] - y[j]) & mask
	}
}

func addImmGo(d, x *Reg, imm, mask uint64) {
	for j := range d {
		d[j] = (x[j] + imm) & mask
	}
}

func andGo(d, x, y *Reg) {
	for j := range d {
		d[j] = x[j] & y[j]
	}
}

func orGo(d, x, y *Reg) {
	for j := range d {
		d[j] = x[j] | y[j]
	}
}

func xorGo(d, x, y *Reg) {
	for j := range d {
		d[j] = x[j] ^ y[j]
	}
}

func mulLo32Go(d, x, y *Reg, mask uint64) {
	for j := range d {
		d[j] = uint64(uint32(x[j])) * uint64(uint32(y[j])) & mask
	}
}

func madLo32Go(d, x, y, z *Reg, mask uint64) {
	for j := range d {
		d[j] = (uint64(uint32(x[j]))*uint64(uint32(y[j])) + z[j]) & mask
	}
}

func mulWideS32Go(d, x, y *Reg) {
	for j := range d {
		d[j] = uint64(int64(int32(x[j])) * int64(int32(y[j])))
	}
}

func madWideS32Go(d, x, y, z *Reg) {
	for j := range d {
		d[j] = uint64(int64(int32(x[j]))*int64(int32(y[j]))) + z[j]
	}
}

func ltS32Go(d, x, y *Reg, flip uint64) {
	for j := range d {
		d[j] = b2u(int32(x[j]) < int32(y[j])) ^ flip
	}
}

func ltS64Go(d, x, y *Reg, flip uint64) {
	for j := range d {
		d[j] = b2u(int64(x[j]) < int64(y[j])) ^ flip
	}
}

func ltU64Go(d, x, y *Reg, flip uint64) {
	for j := range d {
		d[j] = b2u(x[j] < y[j]) ^ flip
	}
}

func eqGo(d, x, y *Reg, mask, flip uint64) {
	for j := range d {
		d[j] = b2u((x[j]^y[j])&mask == 0) ^ flip
	}
}

func selpGo(d, x, y, p *Reg) {
	for j := range d {
		v := y[j]
		if p[j] != 0 {
			v = x[j]
		}
		d[j] = v
	}
}

func addF32Go(d, x, y *Reg) {
	for j := range d {
		d[j] = u32f(fpu.AddF32(f32(x[j]), f32(y[j]), fpu.Nearest))
	}
}

func mulF32Go(d, x, y *Reg) {
	for j := range d {
		d[j] = u32f(fpu.MulF32(f32(x[j]), f32(y[j]), fpu.Nearest))
	}
}

func fmaF32Go(d, x, y, z *Reg) {
	for j := range d {
		d[j] = u32f(fmaF32One(f32(x[j]), f32(y[j]), f32(z[j])))
	}
}

// fmaF32One returns a*b + c rounded once to float32 (fma.rn.f32).
func fmaF32One(a, b, c float32) float32 {
	s := float64(a)*float64(b) + float64(c) // the product is exact
	bits := math.Float64bits(s)
	// float32(s) rounds once when s is in float32's normal range
	// and off a float32 midpoint, or on one that is exact. The
	// tests are combined without branches: whether s is on a
	// midpoint depends on the data, and a branch on it would be
	// mispredicted for some lanes of most warps.
	normal := b2u(bits&(0x7ff<<52)-0x381<<52 < (0x7ff-0x381)<<52)
	offMid := b2u(bits&(1<<29-1) != 1<<28)
	exact := b2u(sumExact(float64(a)*float64(b), float64(c)))
	if normal&(offMid|exact) != 0 {
		return float32(s)
	}
	return fpu.FmaF32(a, b, c, fpu.Nearest)
}

// sumExact reports whether float64 p + z is exact (Knuth's TwoSum error
// is zero).
func sumExact(p, z float64) bool {
	s := float64(p + z)
	bb := float64(s - p)
	return float64(p-float64(s-bb))+float64(z-bb) == 0
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func f32(v uint64) float32  { return math.Float32frombits(uint32(v)) }
func u32f(f float32) uint64 { return uint64(math.Float32bits(f)) }

func nonzeroGo(p *Reg) uint32 {
	var m uint32
	for j := range p {
		m |= uint32(b2u(p[j] != 0)) << j
	}
	return m
}

func checkGo(a *Reg, start, lim, amask, imm, step uint64) (inSpan, consecutive bool) {
	var over, addrs, diff uint64
	for j := range a {
		over |= b2u(a[j]-start > lim)
		addrs |= a[j] + imm
		diff |= a[j] ^ (a[0] + uint64(j)*step)
	}
	return over == 0 && addrs&amask == 0, diff == 0
}

func load32Go(d *Reg, src *[128]byte) {
	for j := range d {
		d[j] = uint64(binary.LittleEndian.Uint32(src[4*j:]))
	}
}

func store32Go(dst *[128]byte, v *Reg) {
	for j := range v {
		binary.LittleEndian.PutUint32(dst[4*j:], uint32(v[j]))
	}
}

func consecutiveGo(a *Reg, step uint64) bool {
	var diff uint64
	for j := range a {
		diff |= a[j] ^ (a[0] + uint64(j)*step)
	}
	return diff == 0
}
