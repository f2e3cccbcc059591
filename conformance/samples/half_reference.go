package samples

import "math"

// HalfToFloat returns the value of an IEEE binary16 (raw bits), exactly.
func HalfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := int(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | frac<<13)
	case exp == 0:
		f := float32(frac) * 0x1p-24
		if sign != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(sign | uint32(exp-15+127)<<23 | frac<<13)
}

// HalfRound returns the binary16 nearest (ties to even) to the exact value
// s+e, where s is a float64 and e a smaller correction (0 when s is
// exact): e decides a tie of s that the rounding to float64 made.
func HalfRound(s, e float64) uint16 {
	if s != s {
		return 0x7e00
	}
	var sign uint16
	if math.Signbit(s) {
		sign, s, e = 0x8000, -s, -e
	}
	if s > 65520 || (s == 65520 && e >= 0) { // 65520 is halfway from 65504 to 2^16: the tie goes to "even" infinity
		return sign | 0x7c00
	}
	// The unit of the last place of the binary16 at s's magnitude.
	unit := 0x1p-24
	if s >= 0x1p-14 {
		_, exp := math.Frexp(s) // s = m * 2^exp, m in [0.5, 1)
		unit = math.Ldexp(1, exp-11)
	}
	q := s / unit // exact: a power-of-two scaling
	fl := math.Floor(q)
	rem := q - fl
	up := rem > 0.5 || (rem == 0.5 && (e > 0 || (e == 0 && math.Mod(fl, 2) == 1)))
	if up {
		fl++
	}
	return sign | halfBits(fl*unit)
}

// halfBits returns the bits of v >= 0, a value binary16 represents.
func halfBits(v float64) uint16 {
	if v < 0x1p-14 {
		return uint16(v / 0x1p-24)
	}
	m, exp := math.Frexp(v) // v = m * 2^exp, m in [0.5, 1)
	return uint16(exp-1+15)<<10 | uint16((m*2-1)*1024)
}

// twoSum returns s = fl(a+b) and the exact error e = a+b-s.
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

// HalfFMA is fma.rn.f16 (__hfma): a*b+c rounded once to binary16. The
// product of two binary16 is exact in float64; the sum's rounding error
// is kept and decides ties.
func HalfFMA(a, b, c uint16) uint16 {
	p := float64(HalfToFloat(a)) * float64(HalfToFloat(b))
	return HalfRound(twoSum(p, float64(HalfToFloat(c))))
}

// HalfAdd is add.rn.f16 (__hadd): a+b rounded to binary16.
func HalfAdd(a, b uint16) uint16 {
	return HalfRound(float64(HalfToFloat(a))+float64(HalfToFloat(b)), 0)
}

// HalfDotSums repeats HalfDot launched on grid blocks of HalfDotBlock
// threads over n half2 pairs (a and b hold each half2 as low half | high
// half<<16): per thread, __hfma2 over its grid-stride elements, lane by
// lane; per block, the tree of __hadd2; then the float sum of the halves.
func HalfDotSums(a, b []uint32, grid int) []float32 {
	out := make([]float32, grid)
	stride := grid * HalfDotBlock
	for blk := range grid {
		var acc [HalfDotBlock][2]uint16
		for t := range HalfDotBlock {
			for i := blk*HalfDotBlock + t; i < len(a); i += stride {
				for h := range 2 {
					x, y := uint16(a[i]>>(16*h)), uint16(b[i]>>(16*h))
					acc[t][h] = HalfFMA(x, y, acc[t][h])
				}
			}
		}
		for s := HalfDotBlock / 2; s > 0; s >>= 1 {
			for t := range s {
				for h := range 2 {
					acc[t][h] = HalfAdd(acc[t][h], acc[t+s][h])
				}
			}
		}
		out[blk] = HalfToFloat(acc[0][0]) + HalfToFloat(acc[0][1])
	}
	return out
}

// BF16ToFloat returns the value of a bfloat16 (raw bits), exactly.
func BF16ToFloat(b uint16) float32 { return math.Float32frombits(uint32(b) << 16) }

// BF16Round is __float2bfloat16: f rounded to the nearest bfloat16, ties to
// even (a NaN stays a quiet NaN).
func BF16Round(f float32) uint16 {
	u := math.Float32bits(f)
	if f != f {
		return uint16(u>>16) | 0x40
	}
	u += 0x7fff + (u >> 16 & 1)
	return uint16(u >> 16)
}
