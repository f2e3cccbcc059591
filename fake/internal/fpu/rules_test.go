package fpu

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

var (
	nan32v   = math.Float32frombits(0x7fc00001) // a NaN that is not canonical
	negZero2 = float32(math.Copysign(0, -1))
)

func bits32(x float32) uint32 { return math.Float32bits(x) }

func TestMinMax(t *testing.T) {
	cases := []struct {
		a, b, min, max float32
	}{
		{1, 2, 1, 2},
		{-1, 1, -1, 1},
		{0, negZero2, negZero2, 0},
		{negZero2, 0, negZero2, 0},
		{nan32v, 3, 3, 3},
		{3, nan32v, 3, 3},
		{float32(math.Inf(-1)), nan32v, float32(math.Inf(-1)), float32(math.Inf(-1))},
	}
	for _, c := range cases {
		assert.Equal(t, bits32(c.min), bits32(MinF32(c.a, c.b)), "min(%g, %g)", c.a, c.b)
		assert.Equal(t, bits32(c.max), bits32(MaxF32(c.a, c.b)), "max(%g, %g)", c.a, c.b)
		assert.Equal(t, math.Float64bits(float64(c.min)), math.Float64bits(MinF64(float64(c.a), float64(c.b))))
		assert.Equal(t, math.Float64bits(float64(c.max)), math.Float64bits(MaxF64(float64(c.a), float64(c.b))))
		if c.a == c.a && c.b == c.b {
			assert.Equal(t, bits32(c.min), bits32(MinNaNF32(c.a, c.b)))
			assert.Equal(t, bits32(c.max), bits32(MaxNaNF32(c.a, c.b)))
		} else {
			assert.Equal(t, NaN32, bits32(MinNaNF32(c.a, c.b)))
			assert.Equal(t, NaN32, bits32(MaxNaNF32(c.a, c.b)))
		}
	}
	assert.Equal(t, NaN32, bits32(MinF32(nan32v, nan32v)))
	assert.Equal(t, NaN32, bits32(MaxF32(nan32v, nan32v)))
	assert.Equal(t, NaN64, math.Float64bits(MinF64(math.NaN(), math.NaN())))
	assert.Equal(t, NaN64, math.Float64bits(MaxF64(math.NaN(), math.NaN())))
}

func TestCompare(t *testing.T) {
	nan := float32(math.NaN())
	//                          eq     ne     lt     le     gt     ge     equ    neu    ltu    leu    gtu    geu    num    nan
	table := []struct {
		a, b float32
		want [14]bool
	}{
		{1, 2, [14]bool{false, true, true, true, false, false, false, true, true, true, false, false, true, false}},
		{2, 1, [14]bool{false, true, false, false, true, true, false, true, false, false, true, true, true, false}},
		{1, 1, [14]bool{true, false, false, true, false, true, true, false, false, true, false, true, true, false}},
		{0, negZero2, [14]bool{true, false, false, true, false, true, true, false, false, true, false, true, true, false}},
		{nan, 1, [14]bool{false, false, false, false, false, false, true, true, true, true, true, true, false, true}},
		{1, nan, [14]bool{false, false, false, false, false, false, true, true, true, true, true, true, false, true}},
		{nan, nan, [14]bool{false, false, false, false, false, false, true, true, true, true, true, true, false, true}},
	}
	for _, row := range table {
		for c := Eq; c <= NaN; c++ {
			assert.Equal(t, row.want[c], CompareF32(c, row.a, row.b), "setp.%s.f32 %g, %g", c, row.a, row.b)
			assert.Equal(t, row.want[c], CompareF64(c, float64(row.a), float64(row.b)), "setp.%s.f64 %g, %g", c, row.a, row.b)
		}
	}
	for c := Eq; c <= NaN; c++ {
		got, ok := ParseCompare(c.String())
		assert.True(t, ok)
		assert.Equal(t, c, got)
	}
	_, ok := ParseCompare("lo")
	assert.False(t, ok)
	assert.False(t, CompareF32(Compare(200), 1, 1), "an unknown comparison is false")
	assert.Equal(t, "Compare(?)", Compare(200).String())
}

func TestFlushAndSaturate(t *testing.T) {
	assert.Equal(t, uint32(0), bits32(FlushF32(math.SmallestNonzeroFloat32)))
	assert.Equal(t, uint32(0x80000000), bits32(FlushF32(-0x1p-127)))
	assert.Equal(t, float32(0x1p-126), FlushF32(0x1p-126))
	assert.Equal(t, NaN32|0x80000000, bits32(FlushF32(math.Float32frombits(NaN32|0x80000000))), "NaN passes")
	for x, want := range map[float32]float32{-1: 0, 0.25: 0.25, 1: 1, 7: 1, float32(math.Inf(1)): 1, float32(math.Inf(-1)): 0} {
		assert.Equal(t, want, SaturateF32(x))
		assert.Equal(t, float64(want), SaturateF64(float64(x)))
	}
	assert.Equal(t, uint32(0), bits32(SaturateF32(nan32v)), "NaN saturates to +0")
	assert.Equal(t, uint32(0), bits32(SaturateF32(negZero2)))
	assert.Equal(t, uint64(0), math.Float64bits(SaturateF64(math.NaN())))
}

func TestNaNRules(t *testing.T) {
	// float32: always the canonical NaN.
	for _, r := range modes {
		inf := float32(math.Inf(1))
		assert.Equal(t, NaN32, bits32(AddF32(inf, -inf, r)))
		assert.Equal(t, NaN32, bits32(SubF32(nan32v, 1, r)))
		assert.Equal(t, NaN32, bits32(MulF32(0, inf, r)))
		assert.Equal(t, NaN32, bits32(DivF32(0, 0, r)))
		assert.Equal(t, NaN32, bits32(SqrtF32(-1, r)))
		assert.Equal(t, NaN32, bits32(FmaF32(inf, 0, 1, r)))
		assert.Equal(t, NaN32, bits32(FmaF32(1, 1, nan32v, r)))
	}
	// float64: a NaN operand's payload, quieted; the first one wins.
	snan := math.Float64frombits(0x7ff0000000000123)
	qnan := math.Float64frombits(0xfff8000000000456)
	inf := math.Inf(1)
	for _, r := range modes {
		assert.Equal(t, uint64(0x7ff8000000000123), math.Float64bits(AddF64(snan, 1, r)))
		assert.Equal(t, uint64(0x7ff8000000000123), math.Float64bits(MulF64(2, snan, r)))
		assert.Equal(t, uint64(0xfff8000000000456), math.Float64bits(DivF64(qnan, snan, r)))
		assert.Equal(t, uint64(0x7ff8000000000123), math.Float64bits(SqrtF64(snan, r)))
		assert.Equal(t, uint64(0xfff8000000000456), math.Float64bits(FmaF64(1, 2, qnan, r)))
		assert.Equal(t, uint64(0x7ff8000000000123), math.Float64bits(FmaF64(snan, 2, qnan, r)))
		assert.Equal(t, NaN64, math.Float64bits(AddF64(inf, -inf, r)))
		assert.Equal(t, NaN64, math.Float64bits(MulF64(0, inf, r)))
		assert.Equal(t, NaN64, math.Float64bits(DivF64(inf, inf, r)))
		assert.Equal(t, NaN64, math.Float64bits(SqrtF64(-2, r)))
		assert.Equal(t, NaN64, math.Float64bits(FmaF64(inf, 0, 1, r)))
	}
}

// TestSignedZeros pins IEEE's signs of zero results in every mode.
func TestSignedZeros(t *testing.T) {
	neg := func(x float64) bool { return math.Signbit(x) }
	for _, r := range modes {
		down := r == Down
		assert.Equal(t, down, neg(float64(AddF32(1, -1, r))), "1 + -1 in %s", r)
		assert.Equal(t, down, neg(AddF64(1, -1, r)), "1 + -1 in %s", r)
		assert.Equal(t, down, neg(float64(AddF32(0, negZero2, r))), "0 + -0 in %s", r)
		assert.True(t, neg(float64(AddF32(negZero2, negZero2, r))), "-0 + -0 in %s", r)
		assert.False(t, neg(float64(AddF32(0, 0, r))), "0 + 0 in %s", r)
		assert.Equal(t, down, neg(float64(SubF32(3, 3, r))), "3 - 3 in %s", r)
		assert.Equal(t, down, neg(float64(FmaF32(2, 3, -6, r))), "2*3 - 6 in %s", r)
		assert.Equal(t, down, neg(FmaF64(2, 3, -6, r)), "2*3 - 6 in %s", r)
		assert.True(t, neg(float64(FmaF32(negZero2, 1, negZero2, r))), "-0*1 + -0 in %s", r)
		assert.Equal(t, down, neg(float64(FmaF32(negZero2, 1, 0, r))), "-0*1 + 0 in %s", r)
		assert.True(t, neg(float64(MulF32(-1e-30, 1e-30, r))) && MulF32(-1e-30, 1e-30, r) > -1e-44, "underflow keeps its sign")
		assert.True(t, neg(float64(SqrtF32(negZero2, r))))
		assert.True(t, neg(SqrtF64(math.Copysign(0, -1), r)))
	}
	// Underflow in the directed modes reaches the smallest subnormal or zero.
	assert.Equal(t, math.SmallestNonzeroFloat64, MulF64(1e-200, 1e-200, Up))
	assert.Equal(t, 0.0, MulF64(1e-200, 1e-200, Down))
	assert.Equal(t, -math.SmallestNonzeroFloat64, MulF64(-1e-200, 1e-200, Down))
	assert.Equal(t, math.SmallestNonzeroFloat64, DivF64(1e-200, 1e200, Up))
	assert.Equal(t, float32(math.SmallestNonzeroFloat32), MulF32(1e-30, 1e-30, Up))
	// Overflow: Inf or the largest finite value, by the mode.
	assert.Equal(t, math.MaxFloat64, AddF64(math.MaxFloat64, math.MaxFloat64, Zero))
	assert.Equal(t, math.Inf(1), AddF64(math.MaxFloat64, math.MaxFloat64, Up))
	assert.Equal(t, -math.MaxFloat64, MulF64(-1e300, 1e300, Up))
	assert.Equal(t, math.Inf(-1), MulF64(-1e300, 1e300, Down))
	assert.Equal(t, float32(math.MaxFloat32), MulF32(1e30, 1e30, Zero))
	assert.Equal(t, float32(math.Inf(1)), MulF32(1e30, 1e30, Nearest))
}

func TestRoundingString(t *testing.T) {
	assert.Equal(t, "rm", Down.String())
	assert.Equal(t, "Rounding(?)", Rounding(9).String())
}

// TestAddNearOverflow pins sums whose error term overflowed in Knuth's
// TwoSum (s - a rounds past the largest float64); found by the random test.
func TestAddNearOverflow(t *testing.T) {
	a := math.Float64frombits(0xffcb176f7e8514f6)
	assert.Equal(t, uint64(0x7fe93a24205ebac1), math.Float64bits(AddF64(a, math.MaxFloat64, Zero)))
	assert.Equal(t, uint64(0x7fe93a24205ebac1), math.Float64bits(AddF64(math.MaxFloat64, a, Down)))
	b := math.Float64frombits(0xff93dfd1f8f900b0)
	assert.Equal(t, uint64(0x7fef6101703837f9), math.Float64bits(AddF64(b, math.MaxFloat64, Down)))
	assert.Equal(t, uint64(0x7fef6101703837fa), math.Float64bits(AddF64(b, math.MaxFloat64, Up)))
}
