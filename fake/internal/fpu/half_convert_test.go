package fpu

import (
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestIntToHalf checks the integer conversions against math/big: an
// integer that lies just above a tie of the 8-bit bfloat16 significand is
// rounded once, not twice through float64.
func TestIntToHalf(t *testing.T) {
	x := uint64(1)<<60 + 1<<52 + 1 // a tie at bf16 precision, plus 1
	assert.Equal(t, F32ToBF16(float32(0x1.02p60), Nearest), IntToBF16(x, false, Nearest))
	assert.Equal(t, F32ToBF16(float32(0x1p60), Nearest), IntToBF16(x-1, false, Nearest), "the tie rounds to even")
	assert.Equal(t, uint16(0x7c00), IntToF16(65520, false, Nearest), "65520 rounds to Inf")
	assert.Equal(t, uint16(0x7bff), IntToF16(65519, false, Nearest))
	assert.Equal(t, uint16(0x7bff), IntToF16(1<<40, false, Zero))
	assert.Equal(t, uint16(0xbc00), IntToF16(math.MaxUint64, true, Nearest), "signed: -1")
	assert.Equal(t, uint16(0x7c00), IntToF16(math.MaxUint64, false, Nearest), "unsigned: 2^64-1 is Inf")
	for _, v := range []int64{0, 1, -1, 2047, 2049, -2051, 65504, 123456, math.MinInt64, math.MaxInt64} {
		for _, r := range []Rounding{Nearest, Zero, Down, Up} {
			f := new(big.Float).SetPrec(11).SetMode(bigMode(r)).SetInt64(v)
			want, _ := f.Float64()
			if math.Abs(want) > 65504 {
				want = binary16.overflow(want < 0, r)
			}
			assert.Equal(t, F64ToF16(want, Nearest), IntToF16(uint64(v), true, r), "%d %v", v, r)
		}
	}
	assert.Equal(t, uint16(0x8000), FlushF16(0x83ff))
	assert.Equal(t, uint16(0x0400), FlushF16(0x0400))
}
