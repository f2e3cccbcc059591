package fpu

import "math"

// canon32 returns x, or the canonical NaN when x is a NaN.
func canon32(x float32) float32 {
	if x != x {
		return nan32
	}
	return x
}

// zeroSum is the sign rule of an exact zero sum a+b (IEEE 754 6.3), given
// the signs of a and b: zeros of the same sign keep it; otherwise (opposite
// signs, or nonzero operands that cancel) -0 in Down and +0 elsewhere.
func zeroSum(aNeg, bNeg bool, r Rounding) float64 {
	if aNeg == bNeg && !aNeg || aNeg != bNeg && r != Down {
		return 0
	}
	return math.Copysign(0, -1)
}

// cancelled is the zero of a nonzero sum that cancels exactly.
func cancelled(r Rounding) float64 { return zeroSum(false, true, r) }

// AddF32 returns a+b rounded in mode r (add.r.f32).
func AddF32(a, b float32, r Rounding) float32 {
	if r == Nearest {
		return canon32(a + b)
	}
	x, y := float64(a), float64(b)
	s, e := twoSum(x, y)
	if s != s {
		return nan32
	}
	if s == 0 { // float32 sums are exact in float64 when they are zero
		if a == 0 && b == 0 {
			return float32(zeroSum(math.Signbit(x), math.Signbit(y), r))
		}
		return float32(cancelled(r))
	}
	return roundF32(s, sign(e), r)
}

// SubF32 returns a-b rounded in mode r (sub.r.f32).
func SubF32(a, b float32, r Rounding) float32 {
	return AddF32(a, -b, r)
}

// MulF32 returns a*b rounded in mode r (mul.r.f32).
func MulF32(a, b float32, r Rounding) float32 {
	if r == Nearest {
		return canon32(a * b)
	}
	p := float64(float64(a) * float64(b)) // exact: 24+24 bits, in range
	if p != p {
		return nan32
	}
	return roundF32(p, 0, r)
}

// DivF32 returns a/b rounded in mode r (div.r.f32, the IEEE division; for
// div.approx and div.full see DivApproxF32 and DivFullF32).
func DivF32(a, b float32, r Rounding) float32 {
	if r == Nearest {
		return canon32(a / b)
	}
	x, y := float64(a), float64(b)
	q := x / y
	if q != q {
		return nan32
	}
	if math.IsInf(q, 0) || q == 0 {
		return float32(q) // exact: an infinite or zero operand, or a zero divisor
	}
	// The remainder of float32 operands is exact in float64; the exact
	// quotient lies on its side of q, times the divisor's sign.
	rem := math.FMA(-q, y, x)
	return roundF32(q, sign(rem)*sign(y), r)
}

// SqrtF32 returns the square root of x rounded in mode r (sqrt.r.f32).
// sqrt(-0) = -0; negative x gives the canonical NaN.
func SqrtF32(x float32, r Rounding) float32 {
	v := float64(x)
	s := math.Sqrt(v)
	if s != s {
		return nan32
	}
	if r == Nearest || s == 0 || math.IsInf(s, 0) {
		return float32(s)
	}
	rem := math.FMA(-s, s, v) // exact for float32 operands
	return roundF32(s, sign(rem), r)
}

// FmaF32 returns a*b+c with one rounding in mode r (fma.r.f32, and
// mad.r.f32, which is the same instruction).
func FmaF32(a, b, c float32, r Rounding) float32 {
	x, y, z := float64(a), float64(b), float64(c)
	if r == Nearest {
		// The product is exact in float64, so math.FMA rounds once, to
		// float64; rounding that to float32 is right unless it landed on a
		// float32 midpoint (the low 29 bits 1000...0) that the exact value
		// is not on, or the result is subnormal in float32 (coarser
		// midpoints). Those few go the exact way below.
		s := math.FMA(x, y, z)
		bits := math.Float64bits(s)
		if bits&(1<<29-1) != 1<<28 && bits&(0x7ff<<52) >= 0x381<<52 {
			return canon32(float32(s))
		}
		// A zero is exact (the exact value of a float32 fma is a multiple
		// of 2^-298, far above float64's underflow), its sign IEEE's; a
		// float32 midpoint that float64 holds exactly rounds to even in
		// one step.
		if s == 0 {
			return float32(s)
		}
		if bits&(0x7ff<<52) >= 0x381<<52 && bits&(0x7ff<<52) != 0x7ff<<52 {
			if _, e := twoSum(x*y, z); e == 0 {
				return float32(s)
			}
		}
	}
	p := float64(x * y) // exact
	s, e := twoSum(p, z)
	if s != s {
		return nan32
	}
	if math.IsInf(s, 0) {
		return float32(s) // an infinite operand; float32 products cannot overflow float64
	}
	if s == 0 && e == 0 {
		if p == 0 && z == 0 {
			return float32(zeroSum(math.Signbit(p), math.Signbit(z), r))
		}
		return float32(cancelled(r))
	}
	return roundF32(s, sign(e), r)
}

// FlushF32 returns x, or a zero of its sign when x is subnormal (.ftz).
func FlushF32(x float32) float32 {
	if b := math.Float32bits(x); b&0x7f800000 == 0 {
		return math.Float32frombits(b & 0x80000000)
	}
	return x
}

// SaturateF32 clamps x to [0, 1] (.sat): NaN and -0 become +0.
func SaturateF32(x float32) float32 {
	switch {
	case x > 1:
		return 1
	case x > 0:
		return x
	}
	return 0
}

// NegF32 returns -x (neg.f32); NaN gives the canonical NaN.
func NegF32(x float32) float32 { return canon32(-x) }

// AbsF32 returns |x| (abs.f32); NaN gives the canonical NaN.
func AbsF32(x float32) float32 {
	return canon32(math.Float32frombits(math.Float32bits(x) &^ (1 << 31)))
}

// FmaRoundsOnce reports whether float32(s) is fma.rn.f32 of float32
// operands a, b, c when s is math.FMA of them as float64: s is a normal
// float32 after rounding and not on a float32 midpoint, so the second
// rounding cannot differ from one. It is small enough to be inlined in an
// interpreter's loop; FmaF32 handles the rest.
func FmaRoundsOnce(s float64) bool {
	bits := math.Float64bits(s)
	return bits&(1<<29-1) != 1<<28 && bits&(0x7ff<<52)-0x381<<52 < (0x7ff-0x381)<<52
}
