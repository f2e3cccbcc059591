package fpu

import "math"

// NaN16 is the bit pattern of the NaN that conversions to f16 and bf16
// return.
const NaN16 uint16 = 0x7fff

// F64ToF16 rounds x to IEEE binary16 in mode r and returns its bit pattern
// (cvt.r.f16.f64). NaN gives NaN16.
func F64ToF16(x float64, r Rounding) uint16 {
	if x != x {
		return NaN16
	}
	v := binary16.round(x, 0, r)
	var s uint16
	if math.Signbit(v) {
		s = 0x8000
		v = -v
	}
	switch {
	case math.IsInf(v, 0):
		return s | 0x7c00
	case v < 0x1p-14: // subnormal or zero: a multiple of 2^-24
		return s | uint16(v*0x1p24)
	}
	b := math.Float64bits(v)
	e := int(b>>52) - 1023
	return s | uint16(e+15)<<10 | uint16(b>>42&0x3ff)
}

// F32ToF16 rounds x to binary16 in mode r (cvt.r.f16.f32).
func F32ToF16(x float32, r Rounding) uint16 {
	return F64ToF16(float64(x), r)
}

// F16ToF32 converts the binary16 h to float32 exactly (cvt.f32.f16). NaN
// gives the canonical NaN.
func F16ToF32(h uint16) float32 {
	e := int(h >> 10 & 0x1f)
	m := float32(h & 0x3ff)
	var v float32
	switch e {
	case 0x1f:
		if h&0x3ff != 0 {
			return nan32
		}
		v = float32(math.Inf(1))
	case 0:
		v = m * 0x1p-24
	default:
		v = (1 + m*0x1p-10) * float32(math.Ldexp(1, e-15))
	}
	if h&0x8000 != 0 {
		v = -v
	}
	return v
}

// F64ToBF16 rounds x to bfloat16 in mode r and returns its bit pattern
// (cvt.r.bf16.f64). NaN gives NaN16.
func F64ToBF16(x float64, r Rounding) uint16 {
	if x != x {
		return NaN16
	}
	return uint16(math.Float32bits(float32(bfloat16.round(x, 0, r))) >> 16)
}

// F32ToBF16 rounds x to bfloat16 in mode r (cvt.r.bf16.f32).
func F32ToBF16(x float32, r Rounding) uint16 {
	return F64ToBF16(float64(x), r)
}

// BF16ToF32 converts the bfloat16 h to float32 exactly (cvt.f32.bf16). NaN
// gives the canonical NaN.
func BF16ToF32(h uint16) float32 {
	v := math.Float32frombits(uint32(h) << 16)
	return canon32(v)
}
