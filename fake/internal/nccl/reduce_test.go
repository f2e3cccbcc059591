package nccl

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHalfConversions: every binary16 and bfloat16 value survives the trip
// through float32, and float32 values round to nearest, ties to even.
func TestHalfConversions(t *testing.T) {
	for h := range 1 << 16 {
		u := uint16(h)
		if f := halfToFloat32(u); f == f { // not NaN
			require.Equal(t, u, float32ToHalf(f), "half %#04x (%v)", u, f)
		}
		if f := bf16ToFloat32(u); f == f {
			require.Equal(t, u, float32ToBF16(f), "bfloat16 %#04x (%v)", u, f)
		}
	}
	assert.Equal(t, uint16(0x6800), float32ToHalf(2049), "tie to even: 2048")
	assert.Equal(t, uint16(0x6802), float32ToHalf(2051), "tie to even: 2052")
	assert.Equal(t, uint16(0x7c00), float32ToHalf(65520), "rounds up to infinity")
	assert.Equal(t, uint16(0x7bff), float32ToHalf(65519), "largest half")
	assert.Equal(t, uint16(0x0001), float32ToHalf(float32(math.Ldexp(1, -24))), "smallest subnormal")
	assert.Equal(t, uint16(0x0000), float32ToHalf(float32(math.Ldexp(1, -25))), "half of it ties to zero")
	assert.Equal(t, uint16(0x4380), float32ToBF16(257), "bfloat16: 257 ties to 256")
	assert.Equal(t, uint16(0x4382), float32ToBF16(259), "259 ties to 260")
}
