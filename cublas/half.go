package cublas

import "math"

// Half is an IEEE 754 binary16 (CUDA's __half, CUDA_R_16F) as its bits.
type Half uint16

// BFloat16 is a bfloat16 (CUDA's __nv_bfloat16, CUDA_R_16BF) as its bits:
// the upper half of a float32.
type BFloat16 uint16

// HalfOf rounds f to the nearest Half (ties to even), as
// __float2half_rn: values beyond the largest Half (65504) round to
// infinity, NaN stays NaN.
func HalfOf(f float32) Half {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	man := b & 0x7fffff
	switch {
	case exp == 0xff: // Inf, NaN
		if man != 0 {
			return Half(sign | 0x7e00)
		}
		return Half(sign | 0x7c00)
	case exp-127 > 15: // overflow
		return Half(sign | 0x7c00)
	case exp-127 >= -14: // normal
		e := uint32(exp-127+15) << 10
		v := e | man>>13
		rest := man & 0x1fff
		if rest > 0x1000 || (rest == 0x1000 && v&1 == 1) {
			v++ // may carry into the exponent, up to infinity: right
		}
		return Half(sign | uint16(v))
	case exp-127 < -25: // below half the smallest subnormal
		return Half(sign)
	}
	// Subnormal: the value is m * 2^-24 with m = full mantissa >> shift.
	full := man | 0x800000
	shift := uint(-14-(exp-127)) + 13
	v := full >> shift
	rest := full & (1<<shift - 1)
	half := uint32(1) << (shift - 1)
	if rest > half || (rest == half && v&1 == 1) {
		v++
	}
	return Half(sign | uint16(v))
}

// Float32 returns h as a float32, exactly.
func (h Half) Float32() float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0:
		v := float32(man) * (1.0 / (1 << 24))
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | man<<13)
}

// BFloat16Of rounds f to the nearest BFloat16 (ties to even), as
// __float2bfloat16_rn; NaN stays NaN.
func BFloat16Of(f float32) BFloat16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return BFloat16(b>>16 | 0x40) // quiet NaN
	}
	b += 0x7fff + (b>>16)&1
	return BFloat16(b >> 16)
}

// Float32 returns v as a float32, exactly.
func (v BFloat16) Float32() float32 { return math.Float32frombits(uint32(v) << 16) }

// Halves returns f as Half values (HalfOf of each, rounded to nearest
// even): the host data of a Half buffer, for memory.FromSliceOn.
func Halves(f []float32) []Half {
	out := make([]Half, len(f))
	for i, v := range f {
		out[i] = HalfOf(v)
	}
	return out
}

// BFloat16s returns f as BFloat16 values (BFloat16Of of each).
func BFloat16s(f []float32) []BFloat16 {
	out := make([]BFloat16, len(f))
	for i, v := range f {
		out[i] = BFloat16Of(v)
	}
	return out
}

// Float32s returns Half or BFloat16 values as float32 (exactly: every
// Half and BFloat16 is a float32), for reading back a buffer of them.
func Float32s[T Half | BFloat16](v []T) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		switch x := any(x).(type) {
		case Half:
			out[i] = x.Float32()
		case BFloat16:
			out[i] = x.Float32()
		}
	}
	return out
}
