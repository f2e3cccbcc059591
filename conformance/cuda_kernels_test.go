package conformance

import (
	"math"
	"testing"
)

// The reference's fma is fused: 1+2^-12 squared is 1+2^-11+2^-24, which
// a float32 multiply rounds to 1+2^-11 before the add.
func TestFMA32(t *testing.T) {
	a := 1 + float32(math.Ldexp(1, -12))
	for _, c := range []struct{ a, b, c, want float32 }{
		{a, a, -1, float32(math.Ldexp(1, -11) + math.Ldexp(1, -24))},
		{3, 4, 5, 17},
		{0, 0, 0.1, 0.1},
		{-2, 0.5, 1, 0},
	} {
		if got := fma32(c.a, c.b, c.c); math.Float32bits(got) != math.Float32bits(c.want) {
			t.Errorf("fma32(%v, %v, %v) = %v, want %v", c.a, c.b, c.c, got, c.want)
		}
	}
}
