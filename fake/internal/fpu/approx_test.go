package fpu

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestApproxWithinHalfULP checks on random inputs that the approximate
// instructions are the float64 function rounded to nearest float32 (so
// within 0.5 ulp, well inside the GPU's bounds), NaN where the function is
// undefined.
func TestApproxWithinHalfULP(t *testing.T) {
	ref := map[string]func(float64) float64{
		"ex2": math.Exp2, "lg2": math.Log2, "rcp": func(x float64) float64 { return 1 / x },
		"rsqrt": func(x float64) float64 { return 1 / math.Sqrt(x) }, "sqrt": math.Sqrt, "tanh": math.Tanh,
	}
	g := newGen(11)
	for i := 0; i < randomCount(); i++ {
		x := g.f32()
		for name, f := range ref {
			want := f(float64(x))
			if x == 0 && (name == "lg2" || name == "rsqrt") {
				continue // the special cases below
			}
			got := approxFuncs[name](x)
			if want != want {
				require.Equal(t, NaN32, math.Float32bits(got), "%s(%g)", name, x)
				continue
			}
			require.Equal(t, math.Float32bits(float32(want)), math.Float32bits(got), "%s(%g)", name, x)
		}
		// sin and cos: the exact function at the GPU's reduced argument.
		s, c := SinApproxF32(x), CosApproxF32(x)
		if math.IsInf(float64(x), 0) || x != x {
			require.Equal(t, NaN32, math.Float32bits(s))
			require.Equal(t, NaN32, math.Float32bits(c))
			continue
		}
		if math.Abs(float64(x)) < 100*math.Pi && FlushF32(x) != 0 {
			require.InDelta(t, math.Sin(float64(x)), float64(s), 2e-6+math.Abs(float64(x))*1e-7, "sin(%g)", x)
			require.InDelta(t, math.Cos(float64(x)), float64(c), 2e-6+math.Abs(float64(x))*1e-7, "cos(%g)", x)
		}
		require.LessOrEqual(t, math.Abs(float64(s)), 1.0)
		require.LessOrEqual(t, math.Abs(float64(c)), 1.0)
	}
}

func TestApproxSpecials(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	inf := float32(math.Inf(1))
	assert.Equal(t, inf, RsqrtApproxF32(0))
	assert.Equal(t, -inf, RsqrtApproxF32(negZero))
	assert.Equal(t, -inf, Lg2ApproxF32(negZero))
	assert.Equal(t, NaN32, math.Float32bits(Lg2ApproxF32(-inf)))
	assert.Equal(t, float32(0), Ex2ApproxF32(-inf))
	assert.Equal(t, -inf, RcpApproxF32(negZero))
	assert.Equal(t, float32(1), CosApproxF32(negZero))
	assert.Equal(t, float32(0), SinApproxF32(math.Pi), "the reduced argument is exactly half a turn")
	assert.Equal(t, float32(-1), CosApproxF32(math.Pi))
	assert.Equal(t, uint32(0x80000000), math.Float32bits(SinApproxF32(-1e30)))
	assert.Equal(t, float32(math.Float32frombits(1)), TanhApproxF32(math.Float32frombits(1)), "subnormals pass")
	// div.approx and div.full.
	assert.Equal(t, float32(0), DivApproxF32(1, 0x1p127))
	assert.Equal(t, NaN32, math.Float32bits(DivApproxF32(inf, 0x1p127)))
	assert.InDelta(t, 1.0/3, float64(DivApproxF32(1, 3)), 2*0x1p-24)
	assert.Equal(t, float32(1.0/3), DivFullF32(1, 3))
	assert.Equal(t, NaN32, math.Float32bits(DivFullF32(0, 0)))
	assert.Equal(t, inf, DivApproxF32(1, 0))
}

func TestNegAbs(t *testing.T) {
	assert.Equal(t, float32(-2), NegF32(2))
	assert.Equal(t, uint32(0x80000000), math.Float32bits(NegF32(0)))
	assert.Equal(t, NaN32, math.Float32bits(NegF32(nan32v)))
	assert.Equal(t, float32(2), AbsF32(-2))
	assert.Equal(t, uint32(0), math.Float32bits(AbsF32(negZero2)))
	assert.Equal(t, NaN32, math.Float32bits(AbsF32(math.Float32frombits(0xffc00000))))
	assert.Equal(t, uint64(0xfff8000000000001), math.Float64bits(NegF64(math.Float64frombits(0x7ff8000000000001))))
	assert.Equal(t, uint64(0x7ff8000000000001), math.Float64bits(AbsF64(math.Float64frombits(0xfff8000000000001))))
}

func ExampleAddF32() {
	// 1 + 2^-30 is not a float32: each mode picks its neighbour.
	for _, r := range []Rounding{Nearest, Zero, Down, Up} {
		fmt.Printf("add.%s.f32 1, 2^-30 = %x\n", r, AddF32(1, 0x1p-30, r))
	}
	fmt.Println("1 - 1 in rm:", AddF32(1, -1, Down))
	// Output:
	// add.rn.f32 1, 2^-30 = 0x1p+00
	// add.rz.f32 1, 2^-30 = 0x1p+00
	// add.rm.f32 1, 2^-30 = 0x1p+00
	// add.rp.f32 1, 2^-30 = 0x1.000002p+00
	// 1 - 1 in rm: -0
}

func ExampleMinF32() {
	nan := float32(math.NaN())
	fmt.Println(MinF32(nan, 2), MinNaNF32(nan, 2))
	fmt.Println(MinF32(0, float32(math.Copysign(0, -1))))
	// Output:
	// 2 NaN
	// -0
}

func ExampleDiv() {
	// What the H200 returns where Go would panic.
	fmt.Println(Div[int32](7, 0), Div[uint32](7, 0), Rem[int32](7, 0))
	// Output:
	// -1 4294967295 7
}

func ExampleF64ToInt() {
	// cvt.rzi.s32.f32 saturates; NaN converts to 0.
	fmt.Println(int32(F64ToInt(3e9, Zero, 32, true)), int32(F64ToInt(-2.7, Zero, 32, true)), F64ToInt(math.NaN(), Zero, 32, true))
	// Output:
	// 2147483647 -2 0
}
