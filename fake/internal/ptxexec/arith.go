package ptxexec

import "math"

// Rounding modes of float instructions (.rn, .rz, .rm, .rp).
const (
	rn = iota
	rz
	rm
	rp
)

// twoSum returns s = fl(a+b) and the sign of the exact error (a+b)-s.
func twoSum(a, b float64) (float64, float64) {
	s := a + b
	bb := s - a
	e := (a - (s - bb)) + (b - bb)
	return s, e
}

func sign(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// round32 rounds the exact value h+e (h a float64, e the sign of the rest,
// far below h's last bit) to float32 in mode.
func round32(h float64, es int, mode int) float32 {
	f := float32(h)
	if math.IsNaN(h) || math.IsInf(h, 0) {
		return f
	}
	var s int
	if d := h - float64(f); d != 0 {
		s = sign(d)
	} else {
		s = es
	}
	if s == 0 {
		return f
	}
	switch mode {
	case rn:
		if es == 0 || float64(f) == h {
			return f
		}
		// h is exactly halfway between f and its neighbour g: the rest
		// decides, not the tie rule.
		g := math.Nextafter32(f, float32(math.Inf(s)))
		if (float64(f)+float64(g))/2 == h && es == s {
			return g
		}
		return f
	case rz:
		if f > 0 && s < 0 || math.IsInf(float64(f), 1) {
			return math.Nextafter32(f, 0)
		}
		if f < 0 && s > 0 || math.IsInf(float64(f), -1) {
			return math.Nextafter32(f, 0)
		}
	case rm:
		if s < 0 {
			return math.Nextafter32(f, float32(math.Inf(-1)))
		}
	case rp:
		if s > 0 {
			return math.Nextafter32(f, float32(math.Inf(1)))
		}
	}
	return f
}

// round64 rounds h+e (e the sign of the exact rest) to float64 in mode; h is
// the round-to-nearest result.
func round64(h float64, es int, mode int) float64 {
	if es == 0 || mode == rn || math.IsNaN(h) {
		return h
	}
	switch mode {
	case rz:
		if h > 0 && es < 0 || h < 0 && es > 0 {
			return math.Nextafter(h, 0)
		}
	case rm:
		if es < 0 {
			return math.Nextafter(h, math.Inf(-1))
		}
	case rp:
		if es > 0 {
			return math.Nextafter(h, math.Inf(1))
		}
	}
	return h
}

func add32(a, b float32, mode int) float32 {
	if mode == rn {
		return a + b
	}
	h, e := twoSum(float64(a), float64(b))
	return round32(h, sign(e), mode)
}

func mul32(a, b float32, mode int) float32 {
	if mode == rn {
		return a * b
	}
	return round32(float64(a)*float64(b), 0, mode) // the product is exact
}

// fma32 is a*b+c rounded once, as the GPU's fma.f32.
func fma32(a, b, c float32, mode int) float32 {
	p := float64(a) * float64(b) // exact: 24+24 bits
	if math.IsInf(p, 0) || math.IsNaN(p) || math.IsInf(float64(c), 0) || math.IsNaN(float64(c)) {
		return float32(p + float64(c))
	}
	h, e := twoSum(p, float64(c))
	return round32(h, sign(e), mode)
}

func div32(a, b float32, mode int) float32 {
	h := float64(a) / float64(b)
	if mode == rn || math.IsNaN(h) || math.IsInf(h, 0) || h == 0 {
		return float32(h)
	}
	r := math.FMA(-h, float64(b), float64(a)) // a - h*b, exact
	return round32(h, sign(r)*sign(float64(b)), mode)
}

func sqrt32(a float32, mode int) float32 {
	h := math.Sqrt(float64(a))
	if mode == rn || math.IsNaN(h) || math.IsInf(h, 0) || h == 0 {
		return float32(h)
	}
	return round32(h, sign(math.FMA(-h, h, float64(a))), mode)
}

func add64(a, b float64, mode int) float64 {
	h, e := twoSum(a, b)
	if math.IsInf(h, 0) {
		return h
	}
	return round64(h, sign(e), mode)
}

// Near the bottom of the float64 range the residual of a product,
// quotient or square root is below the smallest subnormal: the operands
// are scaled by a power of two (exactly) before the residual is taken.
const (
	tiny64  = 0x1p-900
	scale64 = 0x1p300
)

func mul64(a, b float64, mode int) float64 {
	h := a * b
	if mode == rn || math.IsInf(h, 0) || math.IsNaN(h) || a == 0 || b == 0 {
		return h
	}
	if math.Abs(h) >= tiny64 {
		return round64(h, sign(math.FMA(a, b, -h)), mode)
	}
	if h == 0 { // the whole product is the residual
		return round64(h, sign(a)*sign(b), mode)
	}
	if math.Abs(a) < math.Abs(b) {
		a, b = b, a
	}
	return round64(h, sign(math.FMA(a, b*scale64, -h*scale64)), mode)
}

func div64(a, b float64, mode int) float64 {
	h := a / b
	if mode == rn || math.IsInf(h, 0) || math.IsNaN(h) || a == 0 || math.IsInf(b, 0) {
		return h
	}
	if math.Abs(h) >= tiny64 && math.Abs(a) >= tiny64 {
		return round64(h, sign(math.FMA(-h, b, a))*sign(b), mode)
	}
	if h == 0 {
		return round64(h, sign(a)*sign(b), mode)
	}
	return round64(h, sign(math.FMA(-h*scale64, b, a*scale64))*sign(b), mode)
}

func sqrt64(a float64, mode int) float64 {
	h := math.Sqrt(a)
	if mode == rn || math.IsInf(h, 0) || math.IsNaN(h) || h == 0 {
		return h
	}
	if a >= tiny64 {
		return round64(h, sign(math.FMA(-h, h, a)), mode)
	}
	return round64(h, sign(math.FMA(-h*scale64, h*scale64, a*scale64*scale64)), mode)
}

// ftz32 flushes a subnormal to zero of the same sign.
func ftz32(x float32) float32 {
	if b := math.Float32bits(x); b&0x7f800000 == 0 && b&0x007fffff != 0 {
		return math.Float32frombits(b & 0x80000000)
	}
	return x
}

// sat32 clamps to [0, 1]; NaN becomes 0.
func sat32(x float32) float32 {
	switch {
	case !(x > 0):
		return 0
	case x > 1:
		return 1
	}
	return x
}

func sat64(x float64) float64 {
	switch {
	case !(x > 0):
		return 0
	case x > 1:
		return 1
	}
	return x
}

// canonical NaNs the GPU produces.
const (
	nan32 = 0x7fffffff
	nan64 = 0x7fffffffffffffff
)

// min32 and max32 follow PTX: a NaN operand yields the other operand, two
// NaNs the canonical NaN, and -0 is less than +0.
func min32(a, b float32) float32 {
	switch {
	case a != a && b != b:
		return math.Float32frombits(nan32)
	case a != a:
		return b
	case b != b:
		return a
	case a == 0 && b == 0:
		if math.Signbit(float64(a)) {
			return a
		}
		return b
	case a < b:
		return a
	}
	return b
}

func max32(a, b float32) float32 {
	switch {
	case a != a && b != b:
		return math.Float32frombits(nan32)
	case a != a:
		return b
	case b != b:
		return a
	case a == 0 && b == 0:
		if math.Signbit(float64(a)) {
			return b
		}
		return a
	case a > b:
		return a
	}
	return b
}

func min64(a, b float64) float64 {
	switch {
	case a != a && b != b:
		return math.Float64frombits(nan64)
	case a != a:
		return b
	case b != b:
		return a
	case a == 0 && b == 0:
		if math.Signbit(a) {
			return a
		}
		return b
	case a < b:
		return a
	}
	return b
}

func max64(a, b float64) float64 {
	switch {
	case a != a && b != b:
		return math.Float64frombits(nan64)
	case a != a:
		return b
	case b != b:
		return a
	case a == 0 && b == 0:
		if math.Signbit(a) {
			return b
		}
		return a
	case a > b:
		return a
	}
	return b
}

// Comparison operators of setp.
const (
	cmpEQ = iota
	cmpNE
	cmpLT
	cmpLE
	cmpGT
	cmpGE
	cmpEQU
	cmpNEU
	cmpLTU
	cmpLEU
	cmpGTU
	cmpGEU
	cmpNUM
	cmpNAN
	cmpLO // unsigned aliases, decoded to LT/LE/GT/GE on unsigned types
	cmpLS
	cmpHI
	cmpHS
)

var cmpNames = map[string]int{
	"eq": cmpEQ, "ne": cmpNE, "lt": cmpLT, "le": cmpLE, "gt": cmpGT, "ge": cmpGE,
	"equ": cmpEQU, "neu": cmpNEU, "ltu": cmpLTU, "leu": cmpLEU, "gtu": cmpGTU, "geu": cmpGEU,
	"num": cmpNUM, "nan": cmpNAN, "lo": cmpLT, "ls": cmpLE, "hi": cmpGT, "hs": cmpGE,
}

// cmpFloat compares with PTX's ordered (false on NaN) and unordered (true
// on NaN) operators.
func cmpFloat(op int, a, b float64) bool {
	nan := a != a || b != b
	switch op {
	case cmpEQ:
		return !nan && a == b
	case cmpNE:
		return !nan && a != b
	case cmpLT:
		return !nan && a < b
	case cmpLE:
		return !nan && a <= b
	case cmpGT:
		return !nan && a > b
	case cmpGE:
		return !nan && a >= b
	case cmpEQU:
		return nan || a == b
	case cmpNEU:
		return nan || a != b
	case cmpLTU:
		return nan || a < b
	case cmpLEU:
		return nan || a <= b
	case cmpGTU:
		return nan || a > b
	case cmpGEU:
		return nan || a >= b
	case cmpNUM:
		return !nan
	case cmpNAN:
		return nan
	}
	return false
}

func cmpSigned(op int, a, b int64) bool {
	switch op {
	case cmpEQ:
		return a == b
	case cmpNE:
		return a != b
	case cmpLT:
		return a < b
	case cmpLE:
		return a <= b
	case cmpGT:
		return a > b
	case cmpGE:
		return a >= b
	}
	return false
}

func cmpUnsigned(op int, a, b uint64) bool {
	switch op {
	case cmpEQ:
		return a == b
	case cmpNE:
		return a != b
	case cmpLT:
		return a < b
	case cmpLE:
		return a <= b
	case cmpGT:
		return a > b
	case cmpGE:
		return a >= b
	}
	return false
}

// float to integer conversion, PTX style: rounded in mode (rni, rzi, rmi,
// rpi), NaN to 0, clamped to the destination's range.
func roundInt(x float64, mode int) float64 {
	switch mode {
	case rn:
		return math.RoundToEven(x)
	case rm:
		return math.Floor(x)
	case rp:
		return math.Ceil(x)
	}
	return math.Trunc(x)
}

func f2s(x float64, mode int, bits uint) int64 {
	if x != x {
		return 0
	}
	x = roundInt(x, mode)
	lo, hi := -math.Ldexp(1, int(bits-1)), math.Ldexp(1, int(bits-1))
	switch {
	case x < lo:
		return int64(lo)
	case x >= hi:
		return int64(uint64(1)<<(bits-1) - 1)
	}
	return int64(x)
}

func f2u(x float64, mode int, bits uint) uint64 {
	if x != x {
		return 0
	}
	x = roundInt(x, mode)
	hi := math.Ldexp(1, int(bits))
	switch {
	case x <= 0:
		return 0
	case x >= hi:
		if bits == 64 {
			return math.MaxUint64
		}
		return uint64(1)<<bits - 1
	}
	return uint64(x)
}
