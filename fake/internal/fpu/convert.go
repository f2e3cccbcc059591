package fpu

import "math"

// RoundToIntegerF64 rounds x to an integral float64 in mode r (cvt.rni,
// .rzi, .rmi, .rpi .f64.f64). The sign of zero is kept; NaN stays NaN
// (quieted).
func RoundToIntegerF64(x float64, r Rounding) float64 {
	if x != x {
		return nan2(x, 0)
	}
	switch r {
	case Zero:
		return math.Trunc(x)
	case Down:
		return math.Floor(x)
	case Up:
		return math.Ceil(x)
	}
	return math.RoundToEven(x)
}

// RoundToIntegerF32 rounds x to an integral float32 in mode r (cvt.rni,
// .rzi, .rmi, .rpi .f32.f32). NaN gives the canonical NaN.
func RoundToIntegerF32(x float32, r Rounding) float32 {
	if x != x {
		return nan32
	}
	return float32(RoundToIntegerF64(float64(x), r))
}

// F64ToInt converts x to an integer of the given width (8, 16, 32 or 64
// bits; other widths are taken as 64), signed or not, rounding in mode r
// (cvt.rni/.rzi/.rmi/.rpi.{s,u}N.f64; pass float64(x) for f32 sources, which
// is exact). It saturates: NaN gives 0, and values beyond the range give its
// ends. A signed result is returned sign-extended to 64 bits; the low bits
// are the destination's bit pattern.
func F64ToInt(x float64, r Rounding, width int, signed bool) uint64 {
	if x != x {
		return 0
	}
	if width <= 0 || width > 64 {
		width = 64
	}
	t := RoundToIntegerF64(x, r)
	limit := math.Ldexp(1, width) // 2^width, exact
	if signed {
		half := limit / 2
		switch {
		case t >= half:
			return uint64(1)<<(width-1) - 1
		case t <= -half:
			return math.MaxUint64 << (width - 1)
		}
		return uint64(int64(t))
	}
	switch {
	case t <= 0:
		return 0
	case t >= limit:
		return math.MaxUint64 >> (64 - width)
	}
	return uint64(t)
}

// F32ToInt is F64ToInt for a float32 source.
func F32ToInt(x float32, r Rounding, width int, signed bool) uint64 {
	return F64ToInt(float64(x), r, width, signed)
}

// intToFloat rounds the integer x (a bit pattern, signed or not) to the
// format f in mode r.
func intToFloat(f format, x uint64, signed bool, r Rounding) float64 {
	neg := signed && int64(x) < 0
	mag := x
	if neg {
		mag = -x // two's complement magnitude; right for MinInt64 as well
	}
	hi := float64(mag) // rounded to nearest
	lo := 0
	if mag >= 1<<53 {
		if hi == 0x1p64 {
			lo = -1 // mag < 2^64
		} else if h := uint64(hi); h != mag {
			lo = 1
			if h > mag {
				lo = -1
			}
		}
	}
	if neg {
		hi, lo = -hi, -lo
	}
	return f.round(hi, lo, r)
}

// IntToF32 converts the integer x (a 64-bit pattern; sign-extend narrower
// signed sources first) to float32 in mode r (cvt.r.f32.{s,u}N).
func IntToF32(x uint64, signed bool, r Rounding) float32 {
	return float32(intToFloat(binary32, x, signed, r))
}

// IntToF64 converts the integer x (a 64-bit pattern; sign-extend narrower
// signed sources first) to float64 in mode r (cvt.r.f64.{s,u}N).
func IntToF64(x uint64, signed bool, r Rounding) float64 {
	return intToFloat(binary64, x, signed, r)
}

// F64ToF32 rounds x to float32 in mode r (cvt.r.f32.f64). NaN gives the
// canonical NaN; results beyond the range are Inf or the largest float32 by
// the mode.
func F64ToF32(x float64, r Rounding) float32 {
	if x != x {
		return nan32
	}
	return roundF32(x, 0, r)
}

// F32ToF64 converts x to float64 exactly (cvt.f64.f32). A NaN keeps its sign
// and payload and is quieted.
func F32ToF64(x float32) float64 {
	if x != x {
		b := math.Float32bits(x)
		return math.Float64frombits(uint64(b>>31)<<63 | 0x7ff8<<48 | uint64(b&0x7fffff)<<29)
	}
	return float64(x)
}
