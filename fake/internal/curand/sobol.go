package curand

import (
	"math/bits"
	"sync"
)

// Sobol sequences with the direction numbers of Joe and Kuo (new-joe-kuo-6,
// the table cuRAND's CURAND_DIRECTION_VECTORS_32_JOEKUO6 and _64_ are made
// from). The first dimension is van der Corput's (every m_k = 1); joeKuo
// holds the next dimensions' (degree s, coefficients a, initial m_k).
// Dimensions past the table use the primitive polynomials in Joe and Kuo's
// order (by degree, then by a) with every m_k = 1: a valid Sobol sequence,
// but not cuRAND's values (see the package documentation).
var joeKuo = []struct {
	s, a uint32
	m    []uint32
}{
	{1, 0, []uint32{1}},
	{2, 1, []uint32{1, 3}},
	{3, 1, []uint32{1, 3, 1}},
	{3, 2, []uint32{1, 1, 1}},
	{4, 1, []uint32{1, 1, 3, 3}},
	{4, 4, []uint32{1, 3, 5, 13}},
	{5, 2, []uint32{1, 1, 5, 5, 17}},
	{5, 4, []uint32{1, 1, 5, 5, 5}},
	{5, 7, []uint32{1, 1, 7, 11, 19}},
	{5, 11, []uint32{1, 1, 5, 1, 1}},
	{5, 13, []uint32{1, 1, 1, 3, 11}},
	{5, 14, []uint32{1, 3, 5, 5, 31}},
}

// ExactSobolDimensions is how many dimensions the fake's Sobol sequences
// share with cuRAND's: the first and those of joeKuo.
var ExactSobolDimensions = 1 + len(joeKuo)

// MaxSobolDimensions is the most dimensions cuRAND's Sobol generators take.
const MaxSobolDimensions = 20000

var sobolTable struct {
	sync.Mutex
	v32 [][32]uint32
	v64 [][64]uint64
}

// primitive reports whether the polynomial of degree s with coefficient
// bits a (x^s + ... + 1, a's top bit the x^(s-1) coefficient) is primitive.
func primitive(s, a uint32) bool {
	p := uint64(1)<<s | uint64(a)<<1 | 1
	order := uint64(1)<<s - 1
	mulmod := func(x, y uint64) uint64 {
		var r uint64
		for y != 0 {
			if y&1 != 0 {
				r ^= x
			}
			y >>= 1
			x <<= 1
			if x>>s&1 != 0 {
				x ^= p
			}
		}
		return r
	}
	pow := func(e uint64) uint64 {
		r, b := uint64(1), uint64(2)
		if s == 1 {
			b = 2 ^ p
		}
		for ; e != 0; e >>= 1 {
			if e&1 != 0 {
				r = mulmod(r, b)
			}
			b = mulmod(b, b)
		}
		return r
	}
	if pow(order) != 1 {
		return false
	}
	n := order
	for q := uint64(2); q*q <= n; q++ {
		if n%q == 0 {
			if pow(order/q) == 1 {
				return false
			}
			for n%q == 0 {
				n /= q
			}
		}
	}
	return n == 1 || pow(order/n) != 1
}

// polynomials returns the first count primitive polynomials past joeKuo's
// last, in Joe and Kuo's order.
func polynomials(count int) [][2]uint32 {
	last := joeKuo[len(joeKuo)-1]
	var out [][2]uint32
	for s := last.s; len(out) < count; s++ {
		for a := uint32(0); a < 1<<(s-1) && len(out) < count; a++ {
			if s == last.s && a <= last.a {
				continue
			}
			if primitive(s, a) {
				out = append(out, [2]uint32{s, a})
			}
		}
	}
	return out
}

// directions returns the direction numbers of dimensions 0..dims-1, 32-
// and 64-bit.
func directions(dims int) ([][32]uint32, [][64]uint64) {
	t := &sobolTable
	t.Lock()
	defer t.Unlock()
	if len(t.v32) >= dims {
		return t.v32[:dims], t.v64[:dims]
	}
	extra := polynomials(dims - ExactSobolDimensions)
	t.v32, t.v64 = make([][32]uint32, dims), make([][64]uint64, dims)
	for d := 0; d < dims; d++ {
		var s, a uint32
		var m []uint32
		switch {
		case d == 0:
			s, m = 64, nil
		case d < ExactSobolDimensions:
			j := joeKuo[d-1]
			s, a, m = j.s, j.a, j.m
		default:
			p := extra[d-ExactSobolDimensions]
			s, a = p[0], p[1]
		}
		var v [64]uint64
		for k := 1; k <= 64; k++ {
			if uint32(k) <= s {
				mk := uint64(1)
				if k <= len(m) {
					mk = uint64(m[k-1])
				}
				v[k-1] = mk << (64 - k)
				continue
			}
			x := v[k-1-int(s)]
			x ^= x >> s
			for i := uint32(1); i < s; i++ {
				if a>>(s-1-i)&1 != 0 {
					x ^= v[k-1-int(i)]
				}
			}
			v[k-1] = x
		}
		t.v64[d] = v
		for k := 0; k < 32; k++ {
			t.v32[d][k] = uint32(v[k] >> 32)
		}
	}
	return t.v32, t.v64
}

// sobol32At is point i of a dimension with direction numbers v.
func sobol32At(v *[32]uint32, i uint64) uint32 {
	g := i ^ i>>1
	var x uint32
	for g != 0 {
		b := bits.TrailingZeros64(g)
		x ^= v[b]
		g &= g - 1
	}
	return x
}

func sobol64At(v *[64]uint64, i uint64) uint64 {
	g := i ^ i>>1
	var x uint64
	for g != 0 {
		b := bits.TrailingZeros64(g)
		x ^= v[b]
		g &= g - 1
	}
	return x
}
