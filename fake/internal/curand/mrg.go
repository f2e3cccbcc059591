package curand

import (
	"math/bits"
	"sync"
)

// MRG32k3a (L'Ecuyer, "Good parameters and implementations for combined
// multiple recursive random number generators", 1999), as cuRAND's device
// API computes it (curand_kernel.h): two order-3 recurrences, the seed
// folded into their initial 12345s, subsequences 2^76 elements apart.

const (
	mrgM1    = 4294967087
	mrgM2    = 4294944443
	mrgA12   = 1403580
	mrgA13n  = 810728
	mrgA21   = 527612
	mrgA23n  = 1370589
	mrgNorm  = 2.3283065498378288e-10 // 1/(m1+1)
	mrgBitsN = 1.000000048662         // 2^32/m1, rounded as cuRAND has it
)

type mrg32k3a struct{ s1, s2 [3]uint64 }

type mat3 [3][3]uint64

func mulMod(a, b, m uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	_, r := bits.Div64(hi%m, lo, m)
	return r
}

func (a *mat3) mul(b *mat3, m uint64) *mat3 {
	r := new(mat3)
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			var s uint64
			for k := 0; k < 3; k++ {
				s = (s + mulMod(a[i][k], b[k][j], m)) % m
			}
			r[i][j] = s
		}
	}
	return r
}

func (a *mat3) apply(v [3]uint64, m uint64) [3]uint64 {
	var r [3]uint64
	for i := 0; i < 3; i++ {
		for k := 0; k < 3; k++ {
			r[i] = (r[i] + mulMod(a[i][k], v[k], m)) % m
		}
	}
	return r
}

// The state vectors are (s[0], s[1], s[2]) with s[2] the newest.
var mrgPowers struct {
	sync.Once
	a1, a2 [128]*mat3
}

func mrgPow(i int) (*mat3, *mat3) {
	mrgPowers.Do(func() {
		a1 := &mat3{{0, 1, 0}, {0, 0, 1}, {mrgM1 - mrgA13n, mrgA12, 0}}
		a2 := &mat3{{0, 1, 0}, {0, 0, 1}, {mrgM2 - mrgA23n, 0, mrgA21}}
		mrgPowers.a1[0], mrgPowers.a2[0] = a1, a2
		for k := 1; k < 128; k++ {
			mrgPowers.a1[k] = mrgPowers.a1[k-1].mul(mrgPowers.a1[k-1], mrgM1)
			mrgPowers.a2[k] = mrgPowers.a2[k-1].mul(mrgPowers.a2[k-1], mrgM2)
		}
	})
	return mrgPowers.a1[i], mrgPowers.a2[i]
}

// newMRG32k3a is curand_init(seed, subsequence, offset) of the device API.
func newMRG32k3a(seed, subsequence, offset uint64) mrg32k3a {
	g := mrg32k3a{s1: [3]uint64{12345, 12345, 12345}, s2: [3]uint64{12345, 12345, 12345}}
	if seed != 0 {
		x1 := uint64(uint32(seed) ^ 0x55555555)
		x2 := uint64(uint32(seed>>32) ^ 0xAAAAAAAA)
		g.s1 = [3]uint64{mulMod(x1, 12345, mrgM1), mulMod(x2, 12345, mrgM1), mulMod(x1, 12345, mrgM1)}
		g.s2 = [3]uint64{mulMod(x2, 12345, mrgM2), mulMod(x1, 12345, mrgM2), mulMod(x2, 12345, mrgM2)}
	}
	g.skip(subsequence, 76)
	g.skip(offset, 0)
	return g
}

func (g *mrg32k3a) skip(n uint64, shift int) {
	for i := 0; n != 0; i, n = i+1, n>>1 {
		if n&1 != 0 {
			a1, a2 := mrgPow(i + shift)
			g.s1 = a1.apply(g.s1, mrgM1)
			g.s2 = a2.apply(g.s2, mrgM2)
		}
	}
}

// nextDouble is curand_MRG32k3a: the combined value in (0, m1].
func (g *mrg32k3a) nextDouble() float64 {
	p1 := (mrgA12*g.s1[1] + mulMod(mrgM1-mrgA13n, g.s1[0], mrgM1)) % mrgM1
	g.s1 = [3]uint64{g.s1[1], g.s1[2], p1}
	p2 := (mrgA21*g.s2[2] + mulMod(mrgM2-mrgA23n, g.s2[0], mrgM2)) % mrgM2
	g.s2 = [3]uint64{g.s2[1], g.s2[2], p2}
	if p1 <= p2 {
		return float64(p1 - p2 + mrgM1)
	}
	return float64(p1 - p2)
}

// next is curand(&state): the combined value scaled to 32 bits.
func (g *mrg32k3a) next() uint32 { return uint32(g.nextDouble() * mrgBitsN) }
