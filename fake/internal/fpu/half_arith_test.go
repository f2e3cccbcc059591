package fpu

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRandomHalfArithmetic checks f16 and bf16 add, sub, mul and fma in
// every mode against the oracle.
func TestRandomHalfArithmetic(t *testing.T) {
	type kind struct {
		name   string
		f      testFormat
		value  func(uint16) float64
		add    func(a, b uint16, r Rounding) uint16
		sub    func(a, b uint16, r Rounding) uint16
		mul    func(a, b uint16, r Rounding) uint16
		fma    func(a, b, c uint16, r Rounding) uint16
		decode func(uint16) float32
	}
	kinds := []kind{
		{"f16", f16Format, f16Value, AddF16, SubF16, MulF16, FmaF16, F16ToF32},
		{"bf16", bf16Form, bf16Value, AddBF16, SubBF16, MulBF16, FmaBF16, BF16ToF32},
	}
	for _, k := range kinds {
		for _, r := range modes {
			g := newGen(uint64(r) + 500)
			for i := 0; i < randomCount()/4; i++ {
				a, b, c := uint16(g.r.Uint32()), uint16(g.r.Uint32()), uint16(g.r.Uint32())
				if i%2 == 0 { // close exponents
					b = b&0x83ff | a&0x7c00
				}
				x, y, z := k.value(a), k.value(b), k.value(c)
				check := func(op string, got uint16, want float64) {
					if want != want {
						require.Equal(t, NaN16, got, "%s.%s.%s(%#x, %#x, %#x)", op, r, k.name, a, b, c)
						return
					}
					require.Equal(t, math.Float32bits(float32(want)), math.Float32bits(k.decode(got)),
						"%s.%s.%s(%#x, %#x, %#x) = %#x", op, r, k.name, a, b, c, got)
				}
				check("add", k.add(a, b, r), wantAdd(x, y, k.f, r))
				check("sub", k.sub(a, c, r), wantAdd(x, -z, k.f, r))
				check("mul", k.mul(a, b, r), wantMul(x, y, k.f, r))
				check("fma", k.fma(a, b, c, r), wantFma(x, y, z, k.f, r))
			}
		}
	}
}
