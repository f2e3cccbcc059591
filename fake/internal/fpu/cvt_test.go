package fpu

import (
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRandomConversions checks float->float and int->float conversions in
// every mode against the oracle.
func TestRandomConversions(t *testing.T) {
	for _, r := range modes {
		t.Run(r.String(), func(t *testing.T) {
			g := newGen(uint64(r) + 300)
			for i := 0; i < randomCount(); i++ {
				x := g.f64()
				if i%2 == 0 { // in or near float32's range
					x = math.Float64frombits(g.r.Uint64()&0x800fffffffffffff | uint64(1023-160+g.r.IntN(300))<<52)
				}
				want := func(f testFormat) float64 {
					if isSpecial(x) || x == 0 {
						return x
					}
					return exactRound(bigOf(x), 0, f, r)
				}
				w32 := want(f32Format)
				require.True(t, same32(F64ToF32(x, r), w32), "cvt.%s.f32.f64(%x) = %x, want %g", r, math.Float64bits(x), math.Float32bits(F64ToF32(x, r)), w32)
				w16 := want(f16Format)
				got16 := F64ToF16(x, r)
				if w16 != w16 {
					require.Equal(t, NaN16, got16)
				} else {
					require.Equal(t, w16, float64(F16ToF32(got16)), "cvt.%s.f16.f64(%g) = %#x", r, x, got16)
				}
				wb := want(bf16Form)
				gotb := F64ToBF16(x, r)
				if wb != wb {
					require.Equal(t, NaN16, gotb)
				} else {
					require.Equal(t, wb, float64(BF16ToF32(gotb)), "cvt.%s.bf16.f64(%g) = %#x", r, x, gotb)
				}

				u := g.r.Uint64() >> g.r.IntN(64)
				for _, signed := range []bool{false, true} {
					exact := new(big.Float).SetPrec(64).SetUint64(u)
					if signed {
						exact.SetInt64(int64(u))
					}
					w32, w64 := 0.0, 0.0
					if exact.Sign() != 0 {
						w32 = exactRound(exact, 0, f32Format, r)
						w64 = exactRound(exact, 0, f64Format, r)
					}
					require.Equal(t, w32, float64(IntToF32(u, signed, r)), "cvt.%s.f32 of %#x signed=%v", r, u, signed)
					require.Equal(t, w64, IntToF64(u, signed, r), "cvt.%s.f64 of %#x signed=%v", r, u, signed)
				}
			}
		})
	}
}

func TestFloatToInt(t *testing.T) {
	cases := []struct {
		x      float64
		r      Rounding
		width  int
		signed bool
		want   uint64
	}{
		{2.5, Nearest, 32, true, 2},
		{3.5, Nearest, 32, true, 4},
		{-2.5, Nearest, 32, true, math.MaxUint64 - 1},
		{-2.5, Zero, 32, true, math.MaxUint64 - 1},
		{-2.5, Down, 32, true, math.MaxUint64 - 2},
		{-2.5, Up, 32, true, math.MaxUint64 - 1},
		{2.5, Up, 32, false, 3},
		{-0.5, Down, 32, false, 0}, // negative clamps to 0
		{math.NaN(), Nearest, 32, true, 0},
		{math.NaN(), Nearest, 64, false, 0},
		{math.Inf(1), Zero, 32, true, math.MaxInt32},
		{math.Inf(-1), Zero, 32, true, 0xffffffff80000000},
		{math.Inf(1), Zero, 32, false, math.MaxUint32},
		{1e10, Zero, 32, true, math.MaxInt32},
		{-1e10, Zero, 32, true, 0xffffffff80000000},
		{2147483647.9, Zero, 32, true, math.MaxInt32},
		{2147483647.9, Nearest, 32, true, math.MaxInt32},
		{4294967295.4, Nearest, 32, false, math.MaxUint32},
		{4294967296, Nearest, 32, false, math.MaxUint32},
		{9.3e18, Zero, 64, true, math.MaxInt64},
		{-9.3e18, Zero, 64, true, 1 << 63},
		{0x1p63, Zero, 64, true, math.MaxInt64},
		{-0x1p63, Zero, 64, true, 1 << 63},
		{0x1p64, Zero, 64, false, math.MaxUint64},
		{0x1.fffffffffffffp63, Zero, 64, false, 0xfffffffffffff800},
		{300, Nearest, 8, false, 255},
		{-300, Nearest, 8, true, 0xffffffffffffff80},
		{127.5, Nearest, 8, true, 127},
		{-32768.4, Nearest, 16, true, 0xffffffffffff8000},
		{65535.6, Down, 16, false, 65535},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, F64ToInt(c.x, c.r, c.width, c.signed), "cvt.%si.%v%d(%g)", c.r, c.signed, c.width, c.x)
	}
	assert.Equal(t, uint64(1), F32ToInt(1.4, Nearest, 32, false))
}

func TestRoundToInteger(t *testing.T) {
	negZero := math.Copysign(0, -1)
	assert.Equal(t, 2.0, RoundToIntegerF64(2.5, Nearest))
	assert.Equal(t, -2.0, RoundToIntegerF64(-2.5, Zero))
	assert.Equal(t, -3.0, RoundToIntegerF64(-2.5, Down))
	assert.Equal(t, 3.0, RoundToIntegerF64(2.1, Up))
	assert.True(t, math.Signbit(RoundToIntegerF64(-0.4, Nearest)), "-0.4 rounds to -0")
	assert.True(t, math.Signbit(RoundToIntegerF64(-0.4, Up)), "-0.4 rounds up to -0")
	assert.True(t, math.Signbit(RoundToIntegerF64(negZero, Down)))
	assert.Equal(t, float32(4), RoundToIntegerF32(3.5, Nearest))
	assert.Equal(t, NaN32, math.Float32bits(RoundToIntegerF32(float32(math.NaN()), Up)))
	assert.True(t, math.IsNaN(RoundToIntegerF64(math.NaN(), Up)))
	assert.Equal(t, float32(math.Inf(-1)), RoundToIntegerF32(float32(math.Inf(-1)), Zero))
}

func TestF32ToF64(t *testing.T) {
	assert.Equal(t, 1.5, F32ToF64(1.5))
	assert.Equal(t, float64(math.SmallestNonzeroFloat32), F32ToF64(math.SmallestNonzeroFloat32))
	// A signalling NaN with payload 1 becomes the quiet NaN with the payload
	// moved to the top of the float64 fraction; the sign is kept.
	assert.Equal(t, uint64(0xfff8000020000000), math.Float64bits(F32ToF64(math.Float32frombits(0xff800001))))
	assert.Equal(t, NaN32, math.Float32bits(F64ToF32(math.NaN(), Zero)))
}

// TestHalfExhaustive converts every f16 and bf16 pattern to float32 and
// back: exact in every mode, NaNs to the canonical ones.
func TestHalfExhaustive(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		x := F16ToF32(uint16(h))
		xb := BF16ToF32(uint16(h))
		for _, r := range modes {
			if h&0x7c00 == 0x7c00 && h&0x3ff != 0 {
				require.Equal(t, NaN32, math.Float32bits(x))
				require.Equal(t, NaN16, F32ToF16(x, r))
			} else {
				require.Equal(t, uint16(h), F32ToF16(x, r), "f16 %#x -> %g", h, x)
			}
			if h&0x7f80 == 0x7f80 && h&0x7f != 0 {
				require.Equal(t, NaN32, math.Float32bits(xb))
				require.Equal(t, NaN16, F32ToBF16(xb, r))
			} else {
				require.Equal(t, uint16(h), F32ToBF16(xb, r), "bf16 %#x -> %g", h, xb)
			}
		}
	}
	assert.Equal(t, uint16(0x3c00), F32ToF16(1, Nearest))
	assert.Equal(t, uint16(0x7c00), F32ToF16(65520, Nearest)) // half an ulp above the maximum
	assert.Equal(t, uint16(0x7bff), F32ToF16(65520, Zero))
	assert.Equal(t, uint16(0x7bff), F32ToF16(1e9, Down))
	assert.Equal(t, uint16(0xfc00), F32ToF16(-1e9, Down))
	assert.Equal(t, uint16(0x0001), F32ToF16(0x1p-25+0x1p-40, Nearest))
	assert.Equal(t, uint16(0x0000), F32ToF16(0x1p-25, Nearest)) // a tie to even: zero
	assert.Equal(t, uint16(0x8001), F32ToF16(-0x1p-40, Down))
	assert.Equal(t, uint16(0x3f80), F32ToBF16(1, Nearest))
	assert.Equal(t, uint16(0x3f81), F32ToBF16(math.Float32frombits(0x3f808001), Nearest))
	assert.Equal(t, uint16(0x3f80), F32ToBF16(math.Float32frombits(0x3f808000), Nearest)) // tie to even
	assert.Equal(t, uint16(0x7f7f), F32ToBF16(math.MaxFloat32, Zero))
	assert.Equal(t, uint16(0x7f80), F32ToBF16(math.MaxFloat32, Nearest))
}
