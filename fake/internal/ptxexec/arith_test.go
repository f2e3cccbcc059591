package ptxexec

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var bigModes = map[int]big.RoundingMode{rn: big.ToNearestEven, rz: big.ToZero, rm: big.ToNegativeInf, rp: big.ToPositiveInf}

// exactRound rounds the exact, finite, nonzero x to a binary format of
// prec bits whose smallest subnormal is 2^minExp, in mode. (big.Float's
// own Float32 and Float64 always round to nearest.)
func exactRound(x *big.Float, mode, prec, minExp int) *big.Float {
	e := x.MantExp(nil) // x = m × 2^e, 0.5 <= |m| < 1
	p := min(prec, e-minExp)
	if p <= 0 {
		tiny := new(big.Float).SetMantExp(big.NewFloat(1), minExp)
		half := new(big.Float).SetMantExp(big.NewFloat(1), minExp-1)
		abs := new(big.Float).Abs(x)
		up := false
		switch mode {
		case rn:
			up = abs.Cmp(half) > 0
		case rm:
			up = x.Sign() < 0
		case rp:
			up = x.Sign() > 0
		}
		if !up {
			return new(big.Float).SetFloat64(math.Copysign(0, float64(x.Sign())))
		}
		if x.Sign() < 0 {
			tiny.Neg(tiny)
		}
		return tiny
	}
	return new(big.Float).SetPrec(uint(p)).SetMode(bigModes[mode]).Set(x)
}

func exact32(x *big.Float, mode int) float32 {
	r := exactRound(x, mode, 24, -149)
	f, _ := r.Float32()
	if math.IsInf(float64(f), 0) && overflowsToMax(r, mode) {
		return float32(math.Copysign(math.MaxFloat32, float64(r.Sign())))
	}
	return f
}

func exact64(x *big.Float, mode int) float64 {
	r := exactRound(x, mode, 53, -1074)
	f, _ := r.Float64()
	if math.IsInf(f, 0) && overflowsToMax(r, mode) {
		return math.Copysign(math.MaxFloat64, float64(r.Sign()))
	}
	return f
}

// overflowsToMax reports the modes that round an overflow to the largest
// finite value instead of infinity.
func overflowsToMax(r *big.Float, mode int) bool {
	return mode == rz || mode == rm && r.Sign() > 0 || mode == rp && r.Sign() < 0
}

func bf(f float64) *big.Float { return new(big.Float).SetPrec(2000).SetFloat64(f) }

// randF32 returns finite float32 values with every exponent, subnormals
// and zeros of both signs included.
func randF32(r *rand.Rand) float32 {
	for {
		var f float32
		switch r.IntN(8) {
		case 0:
			f = math.Float32frombits(r.Uint32() & 0x807fffff) // subnormal or zero
		case 1:
			f = float32(r.IntN(9) - 4)
		default:
			f = math.Float32frombits(r.Uint32())
		}
		if !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) {
			return f
		}
	}
}

func randF64(r *rand.Rand) float64 {
	for {
		var f float64
		switch r.IntN(6) {
		case 0:
			f = math.Float64frombits(r.Uint64() & 0x800fffffffffffff)
		case 1:
			f = float64(r.IntN(9) - 4)
		default:
			f = math.Float64frombits(r.Uint64())
		}
		if !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f
		}
	}
}

func same32(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b
}

func same64(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || a != a && b != b
}

// TestRoundedF32 checks add, mul and fma of float32 in every rounding mode
// against exact arithmetic (math/big), over random operands of every
// magnitude and near-cancelling sums.
func TestRoundedF32(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200000; i++ {
		a, b, c := randF32(r), randF32(r), randF32(r)
		if i%4 == 0 { // near cancellation: c close to -a*b
			c = -float32(float64(a) * float64(b))
		}
		mode := i % 4
		sum := new(big.Float).SetPrec(2000).Add(bf(float64(a)), bf(float64(b)))
		prod := new(big.Float).SetPrec(2000).Mul(bf(float64(a)), bf(float64(b)))
		fma := new(big.Float).SetPrec(2000).Add(new(big.Float).SetPrec(2000).Set(prod), bf(float64(c)))
		checks := []struct {
			name      string
			got, want float32
			exact     *big.Float
		}{
			{"add", add32(a, b, mode), 0, sum},
			{"mul", mul32(a, b, mode), 0, prod},
			{"fma", fma32(a, b, c, mode), 0, fma},
		}
		for _, ch := range checks {
			if ch.exact.IsInf() {
				continue
			}
			want := exact32(ch.exact, mode)
			if ch.exact.Sign() == 0 {
				// An exact zero sum is +0 except in rm (-0), or when both
				// addends are -0; the sign rules are checked separately.
				if ch.got != 0 {
					t.Fatalf("%s(%v, %v, %v) mode %d = %v, want 0", ch.name, a, b, c, mode, ch.got)
				}
				continue
			}
			if !same32(ch.got, want) {
				t.Fatalf("%s(%g, %g, %g) mode %d = %g (%#x), want %g (%#x)", ch.name, a, b, c, mode,
					ch.got, math.Float32bits(ch.got), want, math.Float32bits(want))
			}
		}
	}
}

func TestRoundedF32DivSqrt(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 100000; i++ {
		a, b := randF32(r), randF32(r)
		mode := i % 4
		if b != 0 {
			q := new(big.Float).SetPrec(24).SetMode(bigModes[mode]).Quo(bf(float64(a)), bf(float64(b)))
			if f, _ := q.Float64(); a != 0 && math.Abs(f) >= 0x1p-126 && math.Abs(f) <= math.MaxFloat32 {
				want := exact32(q, mode)
				got := div32(a, b, mode)
				require.True(t, same32(got, want), "div(%g, %g) mode %d = %g, want %g", a, b, mode, got, want)
			}
		}
		if a > 0 {
			// big.Float.Sqrt does not honour directed rounding: take 300
			// bits and round them.
			s := new(big.Float).SetPrec(300).Sqrt(bf(float64(a)))
			want := exact32(s, mode)
			got := sqrt32(a, mode)
			require.True(t, same32(got, want), "sqrt(%g) mode %d = %g, want %g", a, mode, got, want)
		}
	}
}

func TestRoundedF64(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 100000; i++ {
		a, b := randF64(r), randF64(r)
		mode := i % 4
		sum := new(big.Float).SetPrec(2200).Add(bf(a), bf(b))
		prod := new(big.Float).SetPrec(2200).Mul(bf(a), bf(b))
		if !sum.IsInf() && sum.Sign() != 0 {
			if f, _ := sum.Float64(); !math.IsInf(f, 0) {
				want := exact64(sum, mode)
				require.True(t, same64(add64(a, b, mode), want), "add(%g, %g) mode %d", a, b, mode)
			}
		}
		if f, _ := prod.Float64(); prod.Sign() != 0 && math.Abs(f) >= 0x1p-1300 && !math.IsInf(f, 0) {
			want := exact64(prod, mode)
			require.True(t, same64(mul64(a, b, mode), want), "mul(%g, %g) mode %d = %g want %g", a, b, mode, mul64(a, b, mode), want)
		}
		if b != 0 && a != 0 {
			q := new(big.Float).SetPrec(400).Quo(bf(a), bf(b))
			if f, _ := q.Float64(); math.Abs(f) >= 0x1p-1300 && !math.IsInf(f, 0) {
				want := exact64(q, mode)
				require.True(t, same64(div64(a, b, mode), want), "div(%g, %g) mode %d = %g want %g", a, b, mode, div64(a, b, mode), want)
			}
		}
		if a > 0 {
			s := new(big.Float).SetPrec(400).Sqrt(bf(a))
			want := exact64(s, mode)
			require.True(t, same64(sqrt64(a, mode), want), "sqrt(%g) mode %d = %g want %g", a, mode, sqrt64(a, mode), want)
		}
	}
}

func TestMinMaxAndCompare(t *testing.T) {
	nan := float32(math.NaN())
	negz := float32(math.Copysign(0, -1))
	for _, c := range []struct{ a, b, min, max float32 }{
		{1, 2, 1, 2},
		{nan, 2, 2, 2},
		{2, nan, 2, 2},
		{negz, 0, negz, 0},
		{0, negz, negz, 0},
		{float32(math.Inf(-1)), 0, float32(math.Inf(-1)), 0},
	} {
		assert.True(t, same32(min32(c.a, c.b), c.min), "min(%v, %v)", c.a, c.b)
		assert.True(t, same32(max32(c.a, c.b), c.max), "max(%v, %v)", c.a, c.b)
	}
	assert.Equal(t, uint32(nan32), math.Float32bits(min32(nan, nan)), "two NaNs: the canonical NaN")
	n := math.NaN()
	assert.False(t, cmpFloat(cmpLT, n, 1))
	assert.True(t, cmpFloat(cmpLTU, n, 1))
	assert.False(t, cmpFloat(cmpNE, n, n), "ordered ne is false on NaN")
	assert.True(t, cmpFloat(cmpNEU, n, n))
	assert.True(t, cmpFloat(cmpNAN, n, 1))
	assert.False(t, cmpFloat(cmpNUM, n, 1))
	assert.True(t, cmpFloat(cmpEQ, 0, math.Copysign(0, -1)), "-0 == +0")
}

func TestConversions(t *testing.T) {
	for _, c := range []struct {
		x    float64
		mode int
		bits uint
		s    int64
		u    uint64
	}{
		{2.5, rn, 32, 2, 2},
		{3.5, rn, 32, 4, 4},
		{-2.5, rn, 32, -2, 0},
		{-2.7, rz, 32, -2, 0},
		{-2.2, rm, 32, -3, 0},
		{2.2, rp, 32, 3, 3},
		{1e20, rz, 32, math.MaxInt32, math.MaxUint32},
		{-1e20, rz, 32, math.MinInt32, 0},
		{math.NaN(), rz, 32, 0, 0},
		{math.Inf(1), rz, 64, math.MaxInt64, math.MaxUint64},
		{300, rz, 8, 127, 255},
		{-300, rz, 16, -300, 0},
		{-40000, rz, 16, math.MinInt16, 0},
		{70000, rz, 16, math.MaxInt16, math.MaxUint16},
	} {
		assert.Equal(t, c.s, f2s(c.x, c.mode, c.bits), "f2s(%v, %d, %d)", c.x, c.mode, c.bits)
		assert.Equal(t, c.u, f2u(c.x, c.mode, c.bits), "f2u(%v, %d, %d)", c.x, c.mode, c.bits)
	}
	assert.Equal(t, float32(0), sat32(float32(math.NaN())))
	assert.Equal(t, float32(1), sat32(2))
	assert.Equal(t, float32(0), sat32(-1))
	assert.Equal(t, float32(0.5), sat32(0.5))
	sub := math.Float32frombits(1)
	assert.Equal(t, uint32(0), math.Float32bits(ftz32(sub)))
	assert.Equal(t, uint32(0x80000000), math.Float32bits(ftz32(-sub)))
	assert.Equal(t, float32(1e-30), ftz32(1e-30))
}
