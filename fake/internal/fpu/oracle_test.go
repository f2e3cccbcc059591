package fpu

import (
	"flag"
	"math"
	"math/big"
	"math/rand/v2"
)

// The oracle: exact arithmetic in math/big, rounded to a format in a mode by
// big.Float itself (with the precision reduced for subnormal results), a
// method independent of the package's error-free transformations.

var (
	randomInputs = flag.Int("fpu.n", 100_000, "random inputs per operation, precision and rounding mode")
	randomSeed   = flag.Uint64("fpu.seed", 0, "added to the random tests' seeds")
)

var modes = []Rounding{Nearest, Zero, Down, Up}

func bigMode(r Rounding) big.RoundingMode {
	return [...]big.RoundingMode{big.ToNearestEven, big.ToZero, big.ToNegativeInf, big.ToPositiveInf}[r]
}

type testFormat struct {
	prec      int
	emin      int
	maxFinite float64
	minSub    float64
}

var (
	f32Format = testFormat{prec: 24, emin: -126, maxFinite: math.MaxFloat32, minSub: math.SmallestNonzeroFloat32}
	f64Format = testFormat{prec: 53, emin: -1022, maxFinite: math.MaxFloat64, minSub: math.SmallestNonzeroFloat64}
	f16Format = testFormat{prec: 11, emin: -14, maxFinite: 65504, minSub: 0x1p-24}
	bf16Form  = testFormat{prec: 8, emin: -126, maxFinite: 0x1.fep127, minSub: 0x1p-133}
)

// exactRound rounds the nonzero finite x to the format in mode r. x is exact
// when inexact is 0; otherwise x is within 2^-190 relative of the true value,
// which is larger in magnitude (inexact = +1) or smaller (-1) and is not a
// rounding boundary of the format (a sticky bit).
func exactRound(x *big.Float, inexact int, f testFormat, r Rounding) float64 {
	v := new(big.Float).SetPrec(x.Prec() + 64).Set(x)
	if inexact != 0 {
		// Nudge by far less than any rounding step, away from zero.
		e := v.MantExp(nil)
		nudge := new(big.Float).SetMantExp(big.NewFloat(1), e-int(v.Prec())-8)
		if v.Sign()*inexact < 0 {
			nudge.Neg(nudge)
		}
		v.SetPrec(v.Prec()+16).Add(v, nudge)
	}
	neg := v.Sign() < 0
	e := v.MantExp(nil) // |v| in [2^(e-1), 2^e)
	p := f.prec
	if e-1 < f.emin {
		p = f.prec - (f.emin - (e - 1))
	}
	var res float64
	if p <= 0 {
		// |v| < the smallest subnormal.
		half := new(big.Float).SetMantExp(new(big.Float).SetFloat64(f.minSub), -1)
		av := new(big.Float).Abs(v)
		away := false
		switch r {
		case Nearest:
			away = av.Cmp(half) > 0
		case Up:
			away = !neg
		case Down:
			away = neg
		}
		if away {
			res = f.minSub
		}
	} else {
		y := new(big.Float).SetMode(bigMode(r)).SetPrec(uint(p)).Set(v)
		res, _ = y.Float64()
		res = math.Abs(res)
		if res > f.maxFinite {
			toInf := r == Nearest || r == Up && !neg || r == Down && neg
			res = f.maxFinite
			if toInf {
				res = math.Inf(1)
			}
		}
	}
	if neg {
		res = -res
	}
	return res
}

func bigOf(x float64) *big.Float { return new(big.Float).SetPrec(53).SetFloat64(x) }

// Exact operations on finite operands, with the sticky sign for div/sqrt.
func exactAdd(a, b float64) (*big.Float, int) {
	return new(big.Float).SetPrec(2200).Add(bigOf(a), bigOf(b)), 0
}
func exactMul(a, b float64) (*big.Float, int) {
	return new(big.Float).SetPrec(106).Mul(bigOf(a), bigOf(b)), 0
}
func exactFma(a, b, c float64) (*big.Float, int) {
	p, _ := exactMul(a, b)
	return new(big.Float).SetPrec(3400).Add(p, bigOf(c)), 0
}
func exactDiv(a, b float64) (*big.Float, int) {
	q := new(big.Float).SetPrec(200).SetMode(big.ToZero).Quo(bigOf(a), bigOf(b))
	if q.Acc() != big.Exact {
		return q, 1
	}
	return q, 0
}
func exactSqrt(a float64) (*big.Float, int) {
	s := new(big.Float).SetPrec(200).Sqrt(bigOf(a))
	// Sqrt reports no accuracy; the exact square says on which side the
	// true root lies.
	sq := new(big.Float).SetPrec(400).Mul(s, s)
	return s, -sq.Cmp(bigOf(a))
}

// Random operands that reach the hard cases: any bit pattern, values of
// close exponents (cancellation), subnormals, values near overflow and
// underflow, specials.
type gen struct{ r *rand.Rand }

func newGen(seed uint64) gen { return gen{rand.New(rand.NewPCG(seed+*randomSeed, 0x5eed))} }

var specials32 = []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)),
	float32(math.NaN()), math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
	0x1p-126, -0x1p-126, 0x1.fffffcp-127, 0.5, 3, 0x1p127, 0x1.fffffep0}

func (g gen) f32() float32 {
	switch g.r.IntN(8) {
	case 0:
		return specials32[g.r.IntN(len(specials32))]
	case 1: // subnormal
		return math.Float32frombits(g.r.Uint32() & 0x807fffff)
	case 2, 3: // moderate exponents
		return math.Float32frombits(g.r.Uint32()&0x807fffff | uint32(120+g.r.IntN(16))<<23)
	default:
		return math.Float32frombits(g.r.Uint32())
	}
}

// near returns a value close to x: the same exponent or near it.
func (g gen) near32(x float32) float32 {
	b := math.Float32bits(x)
	switch g.r.IntN(3) {
	case 0:
		return math.Float32frombits(b ^ g.r.Uint32()&0x1f | g.r.Uint32()&0x80000000)
	case 1:
		return math.Float32frombits(b&0xff800000 | g.r.Uint32()&0x7fffff)
	}
	return -math.Float32frombits(b + uint32(g.r.IntN(1<<20)) - 1<<19)
}

var specials64 = []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(),
	math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64,
	0x1p-1022, -0x1p-1022, 0x1.ffffffffffffep-1023, 0.5, 3, 0x1p1023, 0x1.fffffffffffffp0, 0x1p-537, 0x1p-969}

func (g gen) f64() float64 {
	switch g.r.IntN(10) {
	case 0:
		return specials64[g.r.IntN(len(specials64))]
	case 1: // subnormal
		return math.Float64frombits(g.r.Uint64() & 0x800fffffffffffff)
	case 2, 3: // moderate exponents
		return math.Float64frombits(g.r.Uint64()&0x800fffffffffffff | uint64(1000+g.r.IntN(48))<<52)
	case 4: // tiny: products and quotients near the subnormals
		return math.Float64frombits(g.r.Uint64()&0x800fffffffffffff | uint64(1+g.r.IntN(600))<<52)
	case 5: // huge
		return math.Float64frombits(g.r.Uint64()&0x800fffffffffffff | uint64(1500+g.r.IntN(546))<<52)
	default:
		return math.Float64frombits(g.r.Uint64())
	}
}

func (g gen) near64(x float64) float64 {
	b := math.Float64bits(x)
	switch g.r.IntN(3) {
	case 0:
		return math.Float64frombits(b ^ g.r.Uint64()&0x3f | g.r.Uint64()&(1<<63))
	case 1:
		return math.Float64frombits(b&0xfff0000000000000 | g.r.Uint64()&0xfffffffffffff)
	}
	return -math.Float64frombits(b + uint64(g.r.IntN(1<<40)) - 1<<39)
}

// fmaMidpoint32 returns float32 operands whose a*b+c, rounded to float64,
// lands exactly on a float32 midpoint while the exact value does not: the
// case where float32(math.FMA(...)) rounds twice and is wrong.
func (g gen) fmaMidpoint32() (a, b, c float32) {
	// c has an odd last bit; a*b = halfulp(c) * (1 - 2^-46).
	cb := uint32(50+g.r.IntN(200))<<23 | g.r.Uint32()&0x7fffff | 1
	c = math.Float32frombits(cb)
	e := int(cb>>23) - 127 - 24 // exponent of half an ulp of c
	a = float32(math.Ldexp(1+0x1p-23, e))
	b = 1 - 0x1p-23
	if g.r.IntN(2) == 0 {
		a, c = -a, -c
	}
	if g.r.IntN(2) == 0 {
		a, b = b, a
	}
	return a, b, c
}
