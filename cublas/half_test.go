package cublas

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every Half converts to float32 and back to itself (NaNs stay NaN), and
// rounding is to nearest even at every midpoint between neighbours.
func TestHalfExhaustive(t *testing.T) {
	for b := range 1 << 16 {
		h := Half(b)
		f := h.Float32()
		if f != f {
			assert.True(t, isNaN16(HalfOf(f)), "%#04x", b)
			continue
		}
		if !assert.Equal(t, h, HalfOf(f), "%#04x -> %v", b, f) {
			return
		}
		next := Half(b + 1)
		if b&0x7fff >= 0x7c00-1 || b == 0x7fff {
			continue
		}
		g := next.Float32()
		mid := float32((float64(f) + float64(g)) / 2)
		want := h
		if b&1 == 1 {
			want = next
		}
		if !assert.Equal(t, want, HalfOf(mid), "midpoint of %#04x and %#04x", b, b+1) {
			return
		}
	}
	assert.Equal(t, Half(0x7c00), HalfOf(65520))   // rounds up to infinity
	assert.Equal(t, Half(0x7bff), HalfOf(65519))   // the largest
	assert.Equal(t, Half(0x0001), HalfOf(0x1p-24)) // the smallest subnormal
	assert.Equal(t, Half(0x0000), HalfOf(0x1p-25)) // a tie to even: zero
}

func isNaN16(h Half) bool { return h&0x7c00 == 0x7c00 && h&0x3ff != 0 }

func TestBFloat16(t *testing.T) {
	for b := range 1 << 16 {
		v := BFloat16(b)
		f := v.Float32()
		if f != f {
			assert.True(t, math.IsNaN(float64(BFloat16Of(f).Float32())))
			continue
		}
		assert.Equal(t, v, BFloat16Of(f))
	}
	assert.Equal(t, BFloat16(0x3f80), BFloat16Of(1+0x1p-8))      // a tie to even: down
	assert.Equal(t, BFloat16(0x3f82), BFloat16Of(1+3*0x1p-8))    // a tie to even: up
	assert.Equal(t, BFloat16(0x3f81), BFloat16Of(1+0x1p-8+1e-6)) // above the tie
}
