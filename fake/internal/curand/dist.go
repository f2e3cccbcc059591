package curand

import "math"

// The conversions of cuRAND's device API (curand_uniform.h,
// curand_normal.h), which its host API applies to the generators' words.
const (
	pow32Inv    = 2.3283064e-10 // CURAND_2POW32_INV, 2^-32 as a float
	pow32Inv2Pi = 2.3283064e-10 * 6.2831855
	pow53InvDbl = 1.1102230246251565e-16 // CURAND_2POW53_INV_DOUBLE, 2^-53
	pow32InvDbl = 2.3283064365386963e-10
	pi2         = 6.283185307179586
)

// uniform32 is _curand_uniform: a word to a float in (0, 1].
func uniform32(x uint32) float32 {
	return float32(x)*float32(pow32Inv) + float32(pow32Inv)/2
}

// uniformDouble32 is _curand_uniform_double of one word: (x+1)·2^-32, in
// (0, 1] (a whole unit added, not half: the H200's libcurand gives 2^-32
// for Sobol's first point, 0).
func uniformDouble32(x uint32) float64 {
	return float64(x)*pow32InvDbl + pow32InvDbl
}

// icdfDouble32 is the double inverse normal CDF of one word (cuRAND's
// _curand_normal_icdf_double): its uniform is half a unit off the word.
func icdfDouble32(x uint32) float64 {
	return normalInv(float64(x)*pow32InvDbl + pow32InvDbl/2)
}

// uniform64 is _curand_uniform of a 64-bit word (Sobol64): its upper 32
// bits as _curand_uniform converts a word (seen on the H200).
func uniform64(x uint64) float32 { return uniform32(uint32(x >> 32)) }

// icdf32 is _curand_normal_icdf of one word, in float32 as the device
// computes it: mirrored about 2^31 so the tail keeps its precision,
// p = x·2^-32 + 2^-33 rounded to a float, then √2·erfcinv(2p) (Go's
// erfcinv in float64, rounded: within an ulp or two of the GPU's erfcinvf).
func icdf32(x uint32) float32 {
	s := float32(-math.Sqrt2)
	if x > 0x80000000 {
		x, s = 0xffffffff-x, -s
	}
	p := float32(x)*float32(pow32Inv) + float32(pow32Inv)/2
	return s * float32(math.Erfcinv(float64(2*p)))
}

// uniformDoubleHQ is _curand_uniform_double_hq: two words to a double with
// 53 random bits.
func uniformDoubleHQ(x, y uint32) float64 {
	z := uint64(x) ^ uint64(y)<<(53-32)
	return float64(z)*pow53InvDbl + pow53InvDbl/2
}

// uniformDouble64 is _curand_uniform_double of a 64-bit word (Sobol64).
func uniformDouble64(x uint64) float64 {
	return float64(x>>11)*pow53InvDbl + pow53InvDbl/2
}

// boxMuller is _curand_box_muller: two words to two normals (the GPU's
// logf, sqrtf and __sincosf round differently from Go's math: the fake's
// values are within a few ulp of cuRAND's, not equal to them).
func boxMuller(x, y uint32) (float32, float32) {
	u := float64(uniform32(x))
	v := float64(float32(y)*float32(pow32Inv2Pi) + float32(pow32Inv2Pi)/2)
	s := math.Sqrt(-2 * math.Log(u))
	sin, cos := math.Sincos(v)
	return float32(s * sin), float32(s * cos)
}

// boxMullerDouble is _curand_box_muller_double: four words to two normals.
func boxMullerDouble(x0, x1, y0, y1 uint32) (float64, float64) {
	u := uniformDoubleHQ(x0, x1)
	zy := uint64(y0) ^ uint64(y1)<<(53-32)
	v := float64(zy)*(pow53InvDbl*2) + pow53InvDbl
	s := math.Sqrt(-2 * math.Log(u))
	sin, cos := math.Sincos(math.Pi * v)
	return s * sin, s * cos
}

// normalInv is the inverse normal CDF, which cuRAND applies to quasi-random
// numbers (normcdfinv).
func normalInv(u float64) float64 { return -math.Sqrt2 * math.Erfcinv(2*u) }

// poisson draws one Poisson variate of mean lambda from uniforms in (0, 1]
// (next): Knuth's product method below 30, Hörmann's PTRS ("The transformed
// rejection method for generating Poisson random variables", 1993) above.
// cuRAND's own method (tables built per lambda) is not documented: the
// fake's variates have the right distribution, not cuRAND's values.
func poisson(lambda float64, next func() float64) uint32 {
	if lambda < 30 {
		l, k, p := math.Exp(-lambda), 0, 1.0
		for {
			p *= next()
			if p <= l {
				return uint32(k)
			}
			k++
		}
	}
	slam := math.Sqrt(lambda)
	loglam := math.Log(lambda)
	b := 0.931 + 2.53*slam
	a := -0.059 + 0.02483*b
	invalpha := 1.1239 + 1.1328/(b-3.4)
	vr := 0.9277 - 3.6224/(b-2)
	for {
		u := next() - 0.5
		v := next()
		us := 0.5 - math.Abs(u)
		k := math.Floor((2*a/us+b)*u + lambda + 0.43)
		if us >= 0.07 && v <= vr {
			return uint32(k)
		}
		if k < 0 || (us < 0.013 && v > us) {
			continue
		}
		lg, _ := math.Lgamma(k + 1)
		if math.Log(v)+math.Log(invalpha)-math.Log(a/(us*us)+b) <= -lambda+k*loglam-lg {
			return uint32(k)
		}
	}
}
