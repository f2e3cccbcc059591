package fpu

import "math"

// The approximate float32 instructions. Each is computed in float64 and
// rounded to nearest float32, so it is within 0.5 ulp of the true value
// (sin and cos: of the true value at the GPU's reduced argument); the GPU is
// within the bounds written beside each, which tests comparing with a GPU
// must allow. For the .ftz forms flush the input and the result with
// FlushF32. NaN inputs give the canonical NaN.

// Ex2ApproxF32 returns 2^x (ex2.approx.f32). PTX ISA: maximum relative error
// 2 ulp across the full range; H200: 1.97 ulp. ex2(-Inf) = +0, ex2(±0) = 1;
// subnormal results are kept.
func Ex2ApproxF32(x float32) float32 {
	return canon32(float32(math.Exp2(float64(x))))
}

// Lg2ApproxF32 returns log2(x) (lg2.approx.f32). PTX ISA: maximum absolute
// error 2^-22.6 for x in [0.5, 2] and 4 ulp elsewhere (an absolute error
// near x = 1); H200: 6.6e-6 absolute. lg2(±0) = -Inf, lg2(x < 0) = NaN,
// lg2(+Inf) = +Inf; subnormal inputs are kept.
func Lg2ApproxF32(x float32) float32 {
	switch {
	case x == 0:
		return float32(math.Inf(-1))
	case x < 0 || x != x:
		return nan32
	}
	return float32(math.Log2(float64(x)))
}

// reduce returns |x|/(2π) as the GPU reduces it (rounded once to float32),
// minus its nearest integer: u in [-0.5, 0.5] turns.
func reduce(x float32) float64 {
	t := float64(float32(math.Abs(float64(x)) * (1 / (2 * math.Pi))))
	return t - math.RoundToEven(t)
}

// sinTurns returns sin(2πu) for u in [-0.5, 0.5], exactly 0 and ±1 at the
// multiples of a quarter turn.
func sinTurns(u float64) float64 {
	switch math.Abs(u) {
	case 0, 0.5:
		return 0
	case 0.25:
		return math.Copysign(1, u)
	}
	return math.Sin(2 * math.Pi * u)
}

// cosTurns returns cos(2πu) for u in [-0.5, 0.5], exactly 0 and ±1 at the
// multiples of a quarter turn.
func cosTurns(u float64) float64 {
	switch math.Abs(u) {
	case 0:
		return 1
	case 0.25:
		return 0
	case 0.5:
		return -1
	}
	return math.Cos(2 * math.Pi * u)
}

// SinApproxF32 returns sin(x) (sin.approx.f32). The argument is reduced as
// on the GPU (x/(2π) rounded to float32), so the error is absolute and grows with |x|: PTX
// ISA: 2^-20.5 absolute in [-100π, 100π]; H200: 0.79 at x = 455,590.
// sin(±Inf) = NaN; subnormal inputs give a zero of their sign (as the H200
// does, also without .ftz).
func SinApproxF32(x float32) float32 {
	switch {
	case x != x || math.IsInf(float64(x), 0):
		return nan32
	case FlushF32(x) == 0:
		return FlushF32(x)
	}
	v := float32(sinTurns(reduce(x)))
	if x < 0 {
		v = -v
	}
	return v
}

// CosApproxF32 returns cos(x) (cos.approx.f32), with the argument reduced as
// SinApproxF32 does: PTX ISA: 2^-20.5 absolute in [-100π, 100π]; H200: 1.61
// at x = 527,396. cos(±Inf) = NaN; cos of a subnormal is 1.
func CosApproxF32(x float32) float32 {
	switch {
	case x != x || math.IsInf(float64(x), 0):
		return nan32
	case FlushF32(x) == 0:
		return 1
	}
	return float32(cosTurns(reduce(x)))
}

// RcpApproxF32 returns 1/x (rcp.approx.f32). PTX ISA: maximum 1 ulp; H200:
// 0.95 ulp. rcp(±0) = ±Inf, rcp(±Inf) = ±0.
func RcpApproxF32(x float32) float32 {
	return canon32(float32(1 / float64(x)))
}

// RsqrtApproxF32 returns 1/sqrt(x) (rsqrt.approx.f32). PTX ISA: maximum
// relative error 2^-22.9 (about 1 ulp); H200: 1.45 ulp. rsqrt(+0) = +Inf,
// rsqrt(-0) = -Inf, rsqrt(x < 0) = NaN, rsqrt(+Inf) = +0.
func RsqrtApproxF32(x float32) float32 {
	switch {
	case x == 0:
		return float32(math.Copysign(math.Inf(1), float64(x)))
	case x < 0 || x != x:
		return nan32
	}
	return float32(1 / math.Sqrt(float64(x)))
}

// SqrtApproxF32 returns sqrt(x) (sqrt.approx.f32). PTX ISA: maximum relative
// error 2^-23 (about 1 ulp); H200: 0.94 ulp. sqrt(-0) = -0, sqrt(x < 0) =
// NaN.
func SqrtApproxF32(x float32) float32 {
	return canon32(float32(math.Sqrt(float64(x))))
}

// TanhApproxF32 returns tanh(x) (tanh.approx.f32, sm_75+). PTX ISA: maximum
// relative error 2^-11 (about 2^12 ulp); H200: 128.8 ulp, mean 7.3.
// tanh(±Inf) = ±1; subnormal inputs are returned unchanged.
func TanhApproxF32(x float32) float32 {
	return canon32(float32(math.Tanh(float64(x))))
}

// DivApproxF32 returns a/b as div.approx.f32 computes it, a * (1/b) with
// both steps rounded to nearest. PTX ISA: maximum 2 ulp for |b| in
// [2^-126, 2^126]; for 2^126 < |b| < 2^128 the result is 0, or NaN when a is
// infinite.
func DivApproxF32(a, b float32) float32 {
	if ab := math.Abs(float64(b)); ab > 0x1p126 && ab < 0x1p128 {
		if math.IsInf(float64(a), 0) {
			return nan32
		}
		return 0
	}
	return canon32(a * float32(1/float64(b)))
}

// DivFullF32 returns a/b (div.full.f32). PTX ISA: maximum 2 ulp across the
// full range; this one is correctly rounded.
func DivFullF32(a, b float32) float32 {
	return canon32(a / b)
}
