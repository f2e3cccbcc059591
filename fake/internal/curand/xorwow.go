package curand

import "sync"

// XORWOW (Marsaglia's xorshift with a Weyl sequence), as cuRAND's device
// API computes it (curand_kernel.h): the seed scrambled into five words and
// d, subsequences 2^67 elements apart.

type xorwow struct {
	v xwState
	d uint32
}

const xorwowWeyl = 362437

// xorwowPowers[i] is the xorshift matrix to the power 2^i, made on first use.
var xorwowPowers struct {
	sync.Once
	m [128]*xwMatrix
}

func xorwowPow(i int) *xwMatrix {
	xorwowPowers.Do(func() {
		m := new(xwMatrix)
		for j := 0; j < xwBits; j++ {
			var e xwState
			e[j/32] = 1 << (j % 32)
			m[j] = xorwowLinear(e)
		}
		xorwowPowers.m[0] = m
		for k := 1; k < len(xorwowPowers.m); k++ {
			xorwowPowers.m[k] = xorwowPowers.m[k-1].mul(xorwowPowers.m[k-1])
		}
	})
	return xorwowPowers.m[i]
}

// newXORWOW is curand_init(seed, subsequence, offset) of the device API.
func newXORWOW(seed, subsequence, offset uint64) xorwow {
	s0 := uint32(seed) ^ 0xaad26b49
	s1 := uint32(seed>>32) ^ 0xf7dcefdd
	t0 := 1099087573 * s0
	t1 := 2591861531 * s1
	g := xorwow{d: 6615241 + t1 + t0}
	g.v = xwState{123456789 + t0, 362436069 ^ t0, 521288629 + t1, 88675123 ^ t1, 5783321 + t0}
	g.skip(subsequence, 67)
	g.skip(offset, 0)
	return g
}

// skip advances the state by n·2^shift elements.
func (g *xorwow) skip(n uint64, shift int) {
	if shift < 32 {
		g.d += uint32(n<<shift) * xorwowWeyl // d is a Weyl sequence mod 2^32
	}
	for i := 0; n != 0; i, n = i+1, n>>1 {
		if n&1 != 0 {
			g.v = xorwowPow(i + shift).apply(g.v)
		}
	}
}

// next is curand(&state).
func (g *xorwow) next() uint32 {
	g.v = xorwowLinear(g.v)
	g.d += xorwowWeyl
	return g.v[4] + g.d
}
