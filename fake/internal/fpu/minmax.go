package fpu

import "math"

// MinF32 returns the smaller of a and b (min.f32): a NaN operand is ignored,
// two NaNs give the canonical NaN, and -0 is smaller than +0.
func MinF32(a, b float32) float32 {
	switch {
	case a != a:
		return canon32(b)
	case b != b:
		return a
	case a < b || a == b && math.Signbit(float64(a)):
		return a
	}
	return b
}

// MaxF32 returns the larger of a and b (max.f32): a NaN operand is ignored,
// two NaNs give the canonical NaN, and +0 is larger than -0.
func MaxF32(a, b float32) float32 {
	switch {
	case a != a:
		return canon32(b)
	case b != b:
		return a
	case a > b || a == b && !math.Signbit(float64(a)):
		return a
	}
	return b
}

// MinNaNF32 is min.NaN.f32: the canonical NaN when either operand is NaN,
// else MinF32.
func MinNaNF32(a, b float32) float32 {
	if a != a || b != b {
		return nan32
	}
	return MinF32(a, b)
}

// MaxNaNF32 is max.NaN.f32: the canonical NaN when either operand is NaN,
// else MaxF32.
func MaxNaNF32(a, b float32) float32 {
	if a != a || b != b {
		return nan32
	}
	return MaxF32(a, b)
}

// MinF64 returns the smaller of a and b (min.f64): a NaN operand is ignored,
// two NaNs give NaN64, and -0 is smaller than +0.
func MinF64(a, b float64) float64 {
	switch {
	case a != a && b != b:
		return nan64
	case a != a:
		return b
	case b != b:
		return a
	case a < b || a == b && math.Signbit(a):
		return a
	}
	return b
}

// MaxF64 returns the larger of a and b (max.f64): a NaN operand is ignored,
// two NaNs give NaN64, and +0 is larger than -0.
func MaxF64(a, b float64) float64 {
	switch {
	case a != a && b != b:
		return nan64
	case a != a:
		return b
	case b != b:
		return a
	case a > b || a == b && !math.Signbit(a):
		return a
	}
	return b
}
