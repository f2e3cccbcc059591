package fpu

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The H200's results for the approximate instructions on special and
// sample inputs (docs/h200-facts.md: inline PTX on one H200, driver 580,
// CUDA 13.0). NaN entries mean "a NaN".
var (
	nan     = math.NaN()
	negZero = math.Copysign(0, -1)
	inf     = math.Inf(1)

	h200Inputs = []float32{0.0, float32(math.Copysign(0, -1)), float32(inf), float32(-inf), float32(nan),
		9.99994610111476e-41, -9.99994610111476e-41, 1.0, -1.0, 0.5, 126.9000015258789, -126.9000015258789, 128.0,
		-150.0, 3.1415927410125732, 1.0000000150474662e+30, -1.0000000150474662e+30, 2.0, 9.999999350456404e-39}

	h200Results = map[string][]float64{
		"ex2": {1.0, 1.0, inf, 0.0, nan, 1.0, 1.0, 2.0, 0.5, 1.4142135381698608, 1.587475094420035e+38,
			6.299311637319459e-39, inf, 0.0, 8.824978828430176, inf, 0.0, 4.0, 1.0},
		"lg2": {-inf, -inf, inf, nan, nan, -132.87713623046875, nan, 0.0, nan, -0.9999998807907104, 6.987547874450684,
			nan, 7.0, nan, 1.651496171951294, 99.6578369140625, nan, 1.0, -126.23326110839844},
		"sin": {0.0, negZero, nan, nan, nan, 0.0, negZero, 0.8414708971977234, -0.8414708971977234, 0.47942543029785156,
			0.94456946849823, -0.94456946849823, 0.7210410833358765, 0.714884877204895, 0.0, 0.0, negZero,
			0.9092973470687866, 0.0},
		"cos": {1.0, 1.0, nan, nan, nan, 1.0, 1.0, 0.5403023362159729, 0.5403023362159729, 0.8775825500488281,
			0.3283114433288574, 0.3283114433288574, -0.6928920745849609, 0.6992419362068176, -1.0, 1.0, 1.0,
			-0.41614675521850586, 1.0},
		"rcp": {inf, -inf, 0.0, negZero, nan, inf, -inf, 1.0, -1.0, 2.0, 0.00788022018969059, -0.00788022018969059,
			0.0078125, -0.006666666362434626, 0.31830987334251404, 1.0000000031710769e-30, -1.0000000031710769e-30,
			0.5, 1.0000000694406173e+38},
		"rsqrt": {inf, -inf, 0.0, nan, nan, 1.000002658868784e+20, nan, 1.0, nan, 1.4142134189605713,
			0.08877060562372208, nan, 0.0883883386850357, nan, 0.5641895532608032, 1.0000000036274937e-15, nan,
			0.7071067094802856, 9.999999980506448e+18},
		"sqrt": {0.0, negZero, inf, nan, nan, 9.999973025467516e-21, nan, 1.0, nan, 0.7071067690849304,
			11.264989852905273, nan, 11.313708305358887, nan, 1.7724539041519165, 999999986991104.0, nan,
			1.4142135381698608, 9.999999682655225e-20},
		"tanh": {0.0, negZero, 1.0, -1.0, nan, 9.99994610111476e-41, -9.99994610111476e-41, 0.7616009712219238,
			-0.7616009712219238, 0.4621148109436035, 1.0, -1.0, 1.0, -1.0, 0.9962718486785889, 1.0, -1.0,
			0.9640293121337891, 9.999999350456404e-39},
		"ex2.ftz": {1.0, 1.0, inf, 0.0, nan, 1.0, 1.0, 2.0, 0.5, 1.4142135381698608, 1.587475094420035e+38, 0.0,
			inf, 0.0, 8.824978828430176, inf, 0.0, 4.0, 1.0},
	}

	approxFuncs = map[string]func(float32) float32{
		"ex2": Ex2ApproxF32, "lg2": Lg2ApproxF32, "sin": SinApproxF32, "cos": CosApproxF32, "rcp": RcpApproxF32,
		"rsqrt": RsqrtApproxF32, "sqrt": SqrtApproxF32, "tanh": TanhApproxF32,
		"ex2.ftz": func(x float32) float32 { return FlushF32(Ex2ApproxF32(FlushF32(x))) },
	}
)

// ulp32 returns the distance from got to want in float32 ulps of want.
func ulp32(got float32, want float64) float64 {
	w := float32(want)
	u := math.Abs(float64(math.Nextafter32(w, float32(math.Inf(1)))) - float64(w))
	if math.IsInf(float64(w), 0) || u == 0 {
		u = math.Abs(float64(w) - float64(math.Nextafter32(w, 0)))
	}
	return math.Abs(float64(got)-want) / u
}

// TestApproxMatchesH200 checks the approximate instructions against the
// H200's results: specials (NaN, Inf, zeros and their signs, flushed
// subnormals) bit for bit, the rest within the H200's own error bounds.
func TestApproxMatchesH200(t *testing.T) {
	for name, want := range h200Results {
		f := approxFuncs[name]
		for i, x := range h200Inputs {
			got := f(x)
			w := want[i]
			switch {
			case w != w:
				assert.Equal(t, NaN32, math.Float32bits(got), "%s(%g) = %g, want NaN", name, x, got)
			case w == 0 || math.IsInf(w, 0) || w == math.Trunc(w) && math.Abs(w) <= 8:
				assert.Equal(t, math.Float32bits(float32(w)), math.Float32bits(got), "%s(%g) = %g, want %g", name, x, got, w)
			case name == "sin" || name == "cos":
				// An absolute error that grows with the argument (the GPU
				// reduces it with few bits).
				bound := 1e-6 + math.Abs(float64(x))*1e-7
				assert.InDelta(t, w, float64(got), bound, "%s(%g) = %g, H200 %g", name, x, got, w)
			default:
				assert.LessOrEqual(t, ulp32(got, w), approxBoundULP[name], "%s(%g) = %g, H200 %g", name, x, got, w)
			}
		}
	}
}

// approxBoundULP is how far (in ulps of the H200's result) this package
// may be from the H200 on the sample inputs: the H200's own error bound
// plus this package's half ulp (lg2: its absolute bound near 1 is tens of
// ulps; none of these samples is near 1).
var approxBoundULP = map[string]float64{
	"ex2": 2.5, "ex2.ftz": 2.5, "lg2": 60, "rcp": 1.5, "rsqrt": 2, "sqrt": 1.5, "tanh": 130,
}
