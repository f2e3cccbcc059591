package fpu

import "math"

// Arithmetic on f16 and bf16 (add, sub, mul, fma .f16/.bf16, one lane of
// the x2 forms), on bit patterns. PTX allows only .rn on most of them; every
// mode is exact here. NaN results are NaN16.

// f16Value and bf16Value decode bit patterns to exact float64 values.
func f16Value(h uint16) float64  { return float64(F16ToF32(h)) }
func bf16Value(h uint16) float64 { return float64(math.Float32frombits(uint32(h) << 16)) }

// encode16 rounds the exact value hi+ε (see format.round) to f16 or bf16.
func encode16(f format, hi float64, lo int, r Rounding) uint16 {
	if hi != hi {
		return NaN16
	}
	v := f.round(hi, lo, r)
	if f == bfloat16 {
		return uint16(math.Float32bits(float32(v)) >> 16)
	}
	return F64ToF16(v, Nearest) // exact: v is an f16 value
}

// sum16 returns a+b (with zero signs by IEEE's rule) rounded to f.
func sum16(f format, a, b float64, r Rounding) uint16 {
	s, e := twoSum(a, b)
	if s == 0 && e == 0 && !(math.IsInf(a, 0) || math.IsInf(b, 0)) {
		if a == 0 && b == 0 {
			return encode16(f, zeroSum(math.Signbit(a), math.Signbit(b), r), 0, r)
		}
		return encode16(f, cancelled(r), 0, r)
	}
	if math.IsInf(s, 0) {
		e = 0
	}
	return encode16(f, s, sign(e), r)
}

// AddF16 returns a+b in f16 rounded in mode r (add.rn.f16).
func AddF16(a, b uint16, r Rounding) uint16 {
	return sum16(binary16, f16Value(a), f16Value(b), r)
}

// SubF16 returns a-b in f16 rounded in mode r (sub.rn.f16).
func SubF16(a, b uint16, r Rounding) uint16 {
	return sum16(binary16, f16Value(a), -f16Value(b), r)
}

// MulF16 returns a*b in f16 rounded in mode r (mul.rn.f16).
func MulF16(a, b uint16, r Rounding) uint16 {
	return encode16(binary16, float64(f16Value(a)*f16Value(b)), 0, r) // the product is exact
}

// FmaF16 returns a*b+c in f16 with one rounding in mode r (fma.rn.f16).
func FmaF16(a, b, c uint16, r Rounding) uint16 {
	return sum16(binary16, float64(f16Value(a)*f16Value(b)), f16Value(c), r)
}

// AddBF16 returns a+b in bf16 rounded in mode r (add.rn.bf16).
func AddBF16(a, b uint16, r Rounding) uint16 {
	return sum16(bfloat16, bf16Value(a), bf16Value(b), r)
}

// SubBF16 returns a-b in bf16 rounded in mode r (sub.rn.bf16).
func SubBF16(a, b uint16, r Rounding) uint16 {
	return sum16(bfloat16, bf16Value(a), -bf16Value(b), r)
}

// MulBF16 returns a*b in bf16 rounded in mode r (mul.rn.bf16).
func MulBF16(a, b uint16, r Rounding) uint16 {
	return encode16(bfloat16, float64(bf16Value(a)*bf16Value(b)), 0, r) // the product is exact
}

// FmaBF16 returns a*b+c in bf16 with one rounding in mode r (fma.rn.bf16).
func FmaBF16(a, b, c uint16, r Rounding) uint16 {
	return sum16(bfloat16, float64(bf16Value(a)*bf16Value(b)), bf16Value(c), r)
}
