package fpu

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

// zeroSumWant is IEEE's sign of an exact zero sum of operands with the signs
// aNeg and bNeg, both zero or not.
func zeroSumWant(aNeg, bNeg, bothZero bool, r Rounding) float64 {
	if bothZero && aNeg == bNeg {
		return math.Copysign(0, map[bool]float64{true: -1, false: 1}[aNeg])
	}
	if r == Down {
		return math.Copysign(0, -1)
	}
	return 0
}

func isSpecial(xs ...float64) bool {
	for _, x := range xs {
		if x != x || math.IsInf(x, 0) {
			return true
		}
	}
	return false
}

// want* compute the expected result with the oracle. NaN means "a NaN".
func wantAdd(a, b float64, f testFormat, r Rounding) float64 {
	if isSpecial(a, b) {
		return a + b
	}
	x, _ := exactAdd(a, b)
	if x.Sign() == 0 {
		return zeroSumWant(math.Signbit(a), math.Signbit(b), a == 0 && b == 0, r)
	}
	return exactRound(x, 0, f, r)
}

func wantMul(a, b float64, f testFormat, r Rounding) float64 {
	if isSpecial(a, b) || a == 0 || b == 0 {
		return a * b
	}
	x, _ := exactMul(a, b)
	return exactRound(x, 0, f, r)
}

func wantDiv(a, b float64, f testFormat, r Rounding) float64 {
	if isSpecial(a, b) || a == 0 || b == 0 {
		return a / b
	}
	x, in := exactDiv(a, b)
	return exactRound(x, in, f, r)
}

func wantSqrt(a float64, f testFormat, r Rounding) float64 {
	if isSpecial(a) || a <= 0 {
		return math.Sqrt(a)
	}
	x, in := exactSqrt(a)
	return exactRound(x, in, f, r)
}

func wantFma(a, b, c float64, f testFormat, r Rounding) float64 {
	if isSpecial(a, b, c) {
		return math.FMA(a, b, c)
	}
	x, _ := exactFma(a, b, c)
	if x.Sign() == 0 {
		pNeg := math.Signbit(a) != math.Signbit(b)
		pZero := a == 0 || b == 0
		return zeroSumWant(pNeg, math.Signbit(c), pZero && c == 0, r)
	}
	return exactRound(x, 0, f, r)
}

func same32(got float32, want float64) bool {
	if want != want {
		return math.Float32bits(got) == NaN32
	}
	return math.Float32bits(got) == math.Float32bits(float32(want))
}

func same64(got, want float64) bool {
	if want != want {
		return got != got
	}
	return math.Float64bits(got) == math.Float64bits(want)
}

// randomCount is the number of random inputs per operation and mode:
// -fpu.n, a tenth of it with -short or under the race detector.
func randomCount() int {
	if testing.Short() || raceEnabled {
		return *randomInputs / 10
	}
	return *randomInputs
}

// TestRandomF32 checks every float32 operation in every mode against the
// oracle on random operands.
func TestRandomF32(t *testing.T) {
	for _, r := range modes {
		t.Run(r.String(), func(t *testing.T) {
			g := newGen(uint64(r) + 1)
			count := randomCount()
			for i := 0; i < count; i++ {
				a := g.f32()
				b := g.f32()
				if i%2 == 0 {
					b = g.near32(a)
				}
				c := g.f32()
				switch i % 4 {
				case 1:
					c = g.near32(float32(float64(a) * float64(b)))
				case 3:
					a, b, c = g.fmaMidpoint32()
				}
				x, y, z := float64(a), float64(b), float64(c)
				check := func(op string, got float32, want float64) {
					if !same32(got, want) {
						t.Fatalf("%s.%s.f32(%x, %x, %x) = %x (%g), want %x (%g)", op, r, math.Float32bits(a),
							math.Float32bits(b), math.Float32bits(c), math.Float32bits(got), got,
							math.Float32bits(float32(want)), float32(want))
					}
				}
				check("add", AddF32(a, b, r), wantAdd(x, y, f32Format, r))
				check("sub", SubF32(a, c, r), wantAdd(x, -z, f32Format, r))
				check("mul", MulF32(a, b, r), wantMul(x, y, f32Format, r))
				check("div", DivF32(a, b, r), wantDiv(x, y, f32Format, r))
				check("sqrt", SqrtF32(a, r), wantSqrt(x, f32Format, r))
				check("fma", FmaF32(a, b, c, r), wantFma(x, y, z, f32Format, r))
			}
		})
	}
}

// TestRandomF64 checks every float64 operation in every mode against the
// oracle on random operands.
func TestRandomF64(t *testing.T) {
	for _, r := range modes {
		t.Run(r.String(), func(t *testing.T) {
			g := newGen(uint64(r) + 100)
			count := randomCount()
			for i := 0; i < count; i++ {
				a, b, c := g.f64(), g.f64(), g.f64()
				if i%2 == 0 {
					b = g.near64(a)
				}
				if i%4 == 1 {
					c = g.near64(a * b)
				}
				check := func(op string, got, want float64) {
					if !same64(got, want) {
						t.Fatalf("%s.%s.f64(%x, %x, %x) = %x (%g), want %x (%g)", op, r, math.Float64bits(a),
							math.Float64bits(b), math.Float64bits(c), math.Float64bits(got), got,
							math.Float64bits(want), want)
					}
				}
				check("add", AddF64(a, b, r), wantAdd(a, b, f64Format, r))
				check("sub", SubF64(a, c, r), wantAdd(a, -c, f64Format, r))
				check("mul", MulF64(a, b, r), wantMul(a, b, f64Format, r))
				check("div", DivF64(a, b, r), wantDiv(a, b, f64Format, r))
				check("sqrt", SqrtF64(a, r), wantSqrt(a, f64Format, r))
				if i%8 == 0 || r == Nearest { // directed fma is the slow path
					check("fma", FmaF64(a, b, c, r), wantFma(a, b, c, f64Format, r))
				}
			}
		})
	}
}

// TestOracle checks the oracle itself on values whose rounding is known.
func TestOracle(t *testing.T) {
	third, in := exactDiv(1, 3)
	require.Equal(t, 1, in)
	require.Equal(t, float64(float32(1.0/3)), exactRound(third, in, f32Format, Nearest))
	require.Equal(t, float64(math.Nextafter32(float32(1.0/3), 0)), exactRound(third, in, f32Format, Zero))
	half := new(big.Float).SetFloat64(math.SmallestNonzeroFloat32 / 2)
	require.Equal(t, 0.0, exactRound(half, 0, f32Format, Nearest))
	require.Equal(t, float64(math.SmallestNonzeroFloat32), exactRound(half, 1, f32Format, Nearest))
	require.Equal(t, float64(math.SmallestNonzeroFloat32), exactRound(half, 0, f32Format, Up))
	require.Equal(t, math.Inf(1), exactRound(bigOf(math.MaxFloat64), 1, f32Format, Nearest))
	require.Equal(t, float64(math.MaxFloat32), exactRound(bigOf(math.MaxFloat64), 1, f32Format, Down))
	two, in := exactSqrt(2)
	require.Equal(t, math.Sqrt2, exactRound(two, in, f64Format, Nearest))
	// math.Sqrt2 is above the true root.
	require.Equal(t, math.Nextafter(math.Sqrt2, 0), exactRound(two, in, f64Format, Down))
	require.Equal(t, math.Sqrt2, exactRound(two, in, f64Format, Up))
}

// TestFmaF32DoubleRounding pins the cases that float32(math.FMA(...)) gets
// wrong.
func TestFmaF32DoubleRounding(t *testing.T) {
	g := newGen(7)
	wrong := 0
	for i := 0; i < 1000; i++ {
		a, b, c := g.fmaMidpoint32()
		naive := float32(math.FMA(float64(a), float64(b), float64(c)))
		got := FmaF32(a, b, c, Nearest)
		require.True(t, same32(got, wantFma(float64(a), float64(b), float64(c), f32Format, Nearest)))
		if naive != got {
			wrong++
		}
	}
	require.Equal(t, 1000, wrong, "every generated case must defeat the naive double rounding")
}

func ExampleFmaF32() {
	a := float32(0x1.000002p-24) // (1 + 2^-23) * 2^-24
	b := float32(0x1.fffffcp-1)  // 1 - 2^-23
	c := float32(0x1.000002p0)   // 1 + 2^-23
	fmt.Printf("%x\n", FmaF32(a, b, c, Nearest))
	fmt.Printf("%x (twice rounded)\n", float32(math.FMA(float64(a), float64(b), float64(c))))
	// Output:
	// 0x1.000002p+00
	// 0x1.000004p+00 (twice rounded)
}

// TestFmaRoundsOnce: where FmaRoundsOnce says so, float32 of the float64
// fma is FmaF32's correctly rounded result.
func TestFmaRoundsOnce(t *testing.T) {
	vals := []float32{0, 1, -1, 3, 0.37, 1e-38, 1e-45, 3.4e38, float32(math.Inf(1)), float32(math.NaN()), 1 + 1.0/(1<<23), 1.5, 1 << 24, -2.5e-10}
	agreed, used := 0, 0
	for _, a := range vals {
		for _, b := range vals {
			for _, c := range vals {
				s := math.FMA(float64(a), float64(b), float64(c))
				if !FmaRoundsOnce(s) {
					continue
				}
				used++
				want := FmaF32(a, b, c, Nearest)
				if got := float32(s); math.Float32bits(got) == math.Float32bits(want) {
					agreed++
				} else {
					t.Errorf("fma(%g, %g, %g): fast %g, exact %g", a, b, c, got, want)
				}
			}
		}
	}
	if used == 0 || agreed != used {
		t.Fatalf("%d of %d fast results agree", agreed, used)
	}
}
