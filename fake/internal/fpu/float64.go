package fpu

import (
	"math"
	"math/big"
)

// nan2 returns the NaN result of a float64 operation on a and b: the first
// NaN operand, quieted, or NaN64 when neither is NaN.
func nan2(a, b float64) float64 {
	if a != a {
		return math.Float64frombits(math.Float64bits(a) | 1<<51)
	}
	if b != b {
		return math.Float64frombits(math.Float64bits(b) | 1<<51)
	}
	return nan64
}

// overflowed returns the sign of ε for step64 when a rounded-to-nearest
// result v is infinite: the exact value is finite (no operand infinite), so
// it lies below the infinity.
func overflowed(v float64) int {
	if v > 0 {
		return -1
	}
	return 1
}

// AddF64 returns a+b rounded in mode r (add.r.f64).
func AddF64(a, b float64, r Rounding) float64 {
	s := a + b
	if s != s {
		return nan2(a, b)
	}
	if r == Nearest {
		return s
	}
	if math.IsInf(s, 0) {
		if math.IsInf(a, 0) || math.IsInf(b, 0) {
			return s
		}
		return step64(s, overflowed(s), r)
	}
	if s == 0 {
		// Sums of float64 are multiples of the smallest subnormal: exact.
		if a == 0 && b == 0 {
			return zeroSum(math.Signbit(a), math.Signbit(b), r)
		}
		return cancelled(r)
	}
	_, e := twoSum(a, b)
	return step64(s, sign(e), r)
}

// SubF64 returns a-b rounded in mode r (sub.r.f64).
func SubF64(a, b float64, r Rounding) float64 {
	return AddF64(a, -b, r)
}

// MulF64 returns a*b rounded in mode r (mul.r.f64).
func MulF64(a, b float64, r Rounding) float64 {
	p := a * b
	if p != p {
		return nan2(a, b)
	}
	if r == Nearest {
		return p
	}
	switch {
	case math.IsInf(p, 0):
		if math.IsInf(a, 0) || math.IsInf(b, 0) {
			return p
		}
		return step64(p, overflowed(p), r)
	case a == 0 || b == 0:
		return p
	}
	x, y := a, b
	scale := 0
	if math.Abs(p) < 0x1p-900 {
		// The error term could fall below the subnormals: scale the
		// smaller operand (and p) up by 2^1100, which is exact.
		if math.Abs(x) > math.Abs(y) {
			x, y = y, x
		}
		x = math.Ldexp(x, 1100)
		scale = 1100
	}
	e := math.FMA(x, y, -math.Ldexp(p, scale))
	if p == 0 {
		return step64(p, sign(x)*sign(y), r) // underflow to zero
	}
	return step64(p, sign(e), r)
}

// DivF64 returns a/b rounded in mode r (div.r.f64).
func DivF64(a, b float64, r Rounding) float64 {
	q := a / b
	if q != q {
		return nan2(a, b)
	}
	if r == Nearest {
		return q
	}
	switch {
	case math.IsInf(q, 0):
		if math.IsInf(a, 0) || b == 0 {
			return q
		}
		return step64(q, overflowed(q), r)
	case a == 0 || math.IsInf(b, 0):
		return q
	case q == 0:
		return step64(q, sign(a)*sign(b), r) // underflow to zero
	}
	// sign(a/b - q) = sign(a - q*b) * sign(b). The remainder is exact when
	// |a| is well above the subnormals; otherwise scale a and the smaller
	// of q and b up by 2^1100 (exact) so that it is.
	x, qq, y := a, q, b
	if math.Abs(a) < 0x1p-900 {
		x = math.Ldexp(a, 1100)
		if math.Abs(qq) < math.Abs(y) {
			qq = math.Ldexp(qq, 1100)
		} else {
			y = math.Ldexp(y, 1100)
		}
	}
	rem := math.FMA(-qq, y, x)
	return step64(q, sign(rem)*sign(b), r)
}

// SqrtF64 returns the square root of x rounded in mode r (sqrt.r.f64).
func SqrtF64(x float64, r Rounding) float64 {
	s := math.Sqrt(x)
	if s != s {
		return nan2(x, 0)
	}
	if r == Nearest || s == 0 || math.IsInf(s, 0) {
		return s
	}
	v, t := x, s
	if x < 0x1p-900 {
		v = math.Ldexp(x, 1100) // sqrt scales by 2^550, exactly
		t = math.Ldexp(s, 550)
	}
	rem := math.FMA(-t, t, v)
	return step64(s, sign(rem), r)
}

// FmaF64 returns a*b+c with one rounding in mode r (fma.r.f64). Nearest is
// math.FMA; the directed modes compare with the exact value in math/big,
// which allocates (PTX compiled from CUDA C uses them rarely).
func FmaF64(a, b, c float64, r Rounding) float64 {
	v := math.FMA(a, b, c)
	if v != v {
		return nanFma(a, b, c)
	}
	if r == Nearest || math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsInf(c, 0) {
		return v
	}
	if a == 0 || b == 0 {
		return AddF64(a*b, c, r) // the product is an exact zero
	}
	if c == 0 {
		return MulF64(a, b, r)
	}
	var exact, prod, got big.Float
	prod.SetPrec(106).SetFloat64(a)
	prod.Mul(&prod, new(big.Float).SetFloat64(b))
	exact.SetPrec(3400).Add(&prod, new(big.Float).SetFloat64(c))
	if exact.Sign() == 0 {
		return cancelled(r)
	}
	if math.IsInf(v, 0) {
		return step64(v, overflowed(v), r)
	}
	got.SetFloat64(v)
	return step64(v, exact.Cmp(&got), r)
}

// nanFma is the NaN result of fma: the first NaN operand quieted, or NaN64.
func nanFma(a, b, c float64) float64 {
	if a != a || b != b {
		return nan2(a, b)
	}
	return nan2(c, 0)
}

// SaturateF64 clamps x to [0, 1] (.sat): NaN and -0 become +0.
func SaturateF64(x float64) float64 {
	switch {
	case x > 1:
		return 1
	case x > 0:
		return x
	}
	return 0
}

// NegF64 returns -x (neg.f64), a NaN with its sign flipped and its payload
// kept.
func NegF64(x float64) float64 { return -x }

// AbsF64 returns |x| (abs.f64), a NaN with its sign cleared and its payload
// kept.
func AbsF64(x float64) float64 { return math.Abs(x) }
