package fpu

import (
	"math"
	"math/bits"
)

// Rounding is a PTX rounding modifier of a floating-point result.
type Rounding uint8

// The rounding modes.
const (
	Nearest Rounding = iota // .rn: to nearest, ties to even (the default)
	Zero                    // .rz: toward zero
	Down                    // .rm: toward -Inf
	Up                      // .rp: toward +Inf
)

// String returns the PTX modifier: "rn", "rz", "rm" or "rp".
func (r Rounding) String() string {
	switch r {
	case Nearest:
		return "rn"
	case Zero:
		return "rz"
	case Down:
		return "rm"
	case Up:
		return "rp"
	}
	return "Rounding(?)"
}

// The canonical NaNs.
const (
	// NaN32 is the bit pattern of the NaN every float32 instruction returns.
	NaN32 uint32 = 0x7fffffff
	// NaN64 is the bit pattern of a float64 NaN created from non-NaN operands.
	NaN64 uint64 = 0x7fffffffffffffff
)

var (
	nan32 = math.Float32frombits(NaN32)
	nan64 = math.Float64frombits(NaN64)
)

// sign returns -1, 0 or +1 as x is negative, zero or positive.
func sign(x float64) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

// twoSum returns s = a+b rounded to nearest and the exact error a+b-s,
// valid when s is finite. It is Fast2Sum (Dekker) on the operands ordered by
// magnitude: unlike Knuth's branch-free TwoSum, none of its steps can
// overflow when s does not (s - a is exact).
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	if math.Abs(a) < math.Abs(b) {
		a, b = b, a
	}
	e = b - float64(s-a)
	return s, e
}

// step64 rounds the exact value hi+ε to float64, where hi is the exact value
// rounded to nearest (±Inf on overflow) and ε is an amount smaller than half
// an ulp of hi with the sign lo (-1, 0 or +1). With lo = 0, hi is exact.
func step64(hi float64, lo int, r Rounding) float64 {
	if lo == 0 || r == Nearest {
		return hi
	}
	switch r {
	case Zero:
		if lo < 0 && hi > 0 || lo > 0 && hi < 0 {
			return math.Nextafter(hi, 0) // from ±Inf: the largest finite value
		}
	case Down:
		if lo < 0 {
			return math.Nextafter(hi, math.Inf(-1))
		}
	case Up:
		if lo > 0 {
			return math.Nextafter(hi, math.Inf(1))
		}
	}
	return hi
}

// roundMag rounds the magnitude m·2^e (m < 2^56) to prec significant bits
// with no bit below 2^lsbMin, in direction mode, and returns it as q·2^qe
// (q may reach 2^prec, one binade up). Callers pass m with two bits more than
// float64 holds, the lowest a sticky bit, so that rounding it is rounding the
// exact value.
func roundMag(m uint64, e int, prec uint, lsbMin int, mode magMode) (q uint64, qe int) {
	if m == 0 {
		return 0, lsbMin
	}
	n := bits.Len64(m)
	lsb := e + n - int(prec) // exponent of the lowest kept bit
	if lsb < lsbMin {
		lsb = lsbMin
	}
	shift := lsb - e
	if shift <= 0 {
		return m, e
	}
	if shift >= 64 {
		// Everything is below the lowest kept bit, and below half of it.
		if mode == magUp {
			return 1, lsb
		}
		return 0, lsb
	}
	q = m >> uint(shift)
	rem := m & (1<<uint(shift) - 1)
	half := uint64(1) << uint(shift-1)
	switch mode {
	case magUp:
		if rem != 0 {
			q++
		}
	case magNearest:
		if rem > half || rem == half && q&1 == 1 {
			q++
		}
	}
	return q, lsb
}

// magMode is a rounding direction on magnitudes.
type magMode uint8

const (
	magDown    magMode = iota // truncate
	magUp                     // away from zero
	magNearest                // to nearest, ties to even
)

// magModeFor maps a Rounding of a value of the given sign to a direction on
// its magnitude.
func magModeFor(r Rounding, neg bool) magMode {
	switch r {
	case Zero:
		return magDown
	case Down:
		if neg {
			return magUp
		}
		return magDown
	case Up:
		if neg {
			return magDown
		}
		return magUp
	}
	return magNearest
}

// overflowsToInf reports whether a finite value whose rounded magnitude
// exceeds the largest finite value of a format becomes Inf (rounding to
// nearest or away from zero) rather than the largest finite value.
func overflowsToInf(r Rounding, neg bool) bool {
	return magModeFor(r, neg) != magDown
}

// A format is a binary floating-point format narrower than or equal to
// float64: prec significant bits (with the implicit one), exponents emin to
// emax of normal numbers.
type format struct {
	prec       uint
	emin, emax int
	max        float64 // largest finite value
}

var (
	binary32 = format{24, -126, 127, math.MaxFloat32}
	binary64 = format{53, -1022, 1023, math.MaxFloat64}
	binary16 = format{11, -14, 15, 65504}
	bfloat16 = format{8, -126, 127, 0x1.fep127}
)

// round rounds the exact value hi+ε to the format f in mode r and returns it
// as a float64 (±Inf on overflow). hi is a float64 (±Inf only for an
// overflow of a finite exact value) and ε, smaller than half an ulp of hi,
// has the sign lo (-1, 0 or +1). hi must not be NaN. A zero hi with lo = 0
// is returned as it is.
func (f format) round(hi float64, lo int, r Rounding) float64 {
	neg := math.Signbit(hi)
	if lo == 0 && hi == 0 {
		return hi
	}
	if math.IsInf(hi, 0) {
		if lo == 0 {
			return hi
		}
		return f.overflow(neg, r)
	}
	b := math.Float64bits(hi)
	m := b & (1<<52 - 1)
	e := int(b>>52&0x7ff) - 1075
	if e == -1075 { // zero or subnormal
		e = -1074
	} else {
		m |= 1 << 52
	}
	m <<= 2
	e -= 2
	if neg {
		lo = -lo
	}
	switch {
	case lo > 0:
		m |= 1
	case lo < 0:
		m--
	}
	q, qe := roundMag(m, e, f.prec, f.emin-int(f.prec-1), magModeFor(r, neg))
	v := math.Ldexp(float64(q), qe)
	if v > f.max {
		return f.overflow(neg, r)
	}
	if neg {
		v = -v
	}
	return v
}

// overflow returns the result of a finite value beyond the largest finite
// value of f: Inf or the largest finite value, by the rounding direction.
func (f format) overflow(neg bool, r Rounding) float64 {
	v := f.max
	if overflowsToInf(r, neg) {
		v = math.Inf(1)
	}
	if neg {
		v = -v
	}
	return v
}

// roundF32 rounds hi+ε (see format.round) to float32.
func roundF32(hi float64, lo int, r Rounding) float32 {
	return float32(binary32.round(hi, lo, r))
}
