package curand

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
)

// The known-answer vectors of Random123 (kat_vectors, philox4x32_10).
func TestPhiloxKnownAnswers(t *testing.T) {
	assert.Equal(t, [4]uint32{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
		philoxBlock([4]uint32{}, [2]uint32{}))
	assert.Equal(t, [4]uint32{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
		philoxBlock([4]uint32{^uint32(0), ^uint32(0), ^uint32(0), ^uint32(0)}, [2]uint32{^uint32(0), ^uint32(0)}))
	assert.Equal(t, [4]uint32{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1},
		philoxBlock([4]uint32{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, [2]uint32{0xa4093822, 0x299f31d0}))
}

// Skipping ahead is stepping: XORWOW's and MRG32k3a's matrices agree with
// their recurrences.
func TestSkipAheadIsStepping(t *testing.T) {
	const seed = 0x123456789abcdef
	x := newXORWOW(seed, 0, 0)
	for i := 0; i < 1000; i++ {
		x.next()
	}
	y := newXORWOW(seed, 0, 1000)
	assert.Equal(t, x, y)
	assert.Equal(t, x.next(), y.next())

	m := newMRG32k3a(seed, 0, 0)
	for i := 0; i < 777; i++ {
		m.next()
	}
	n := newMRG32k3a(seed, 0, 777)
	assert.Equal(t, m, n)

	// Subsequence 1 is 2^67 steps on: 2^66 twice.
	a := newXORWOW(seed, 1, 0)
	b := newXORWOW(seed, 0, 0)
	b.skip(1, 66)
	b.skip(1, 66)
	assert.Equal(t, a, b)
}

// MRG32k3a from the all-12345 state (seed 0), by hand: p1 = 592852·12345
// mod m1 = 3023790853, p2 = -842977·12345 mod m2 = 2478282264, so the first
// number is p1-p2 = 545508589.
func TestMRG32k3aFirstNumber(t *testing.T) {
	g := newMRG32k3a(0, 0, 0)
	assert.Equal(t, 545508589.0, g.nextDouble())
	assert.Equal(t, uint32(545508615), newMRG32k3aNext(0), "545508589 × 1.000000048662, truncated")
}

func newMRG32k3aNext(seed uint64) uint32 {
	g := newMRG32k3a(seed, 0, 0)
	return g.next()
}

// Sobol points 1 to 3 in Gray code order are (1/2, 1/2), (3/4, 1/4),
// (1/4, 3/4).
func TestSobolPoints(t *testing.T) {
	v, v64 := directions(3)
	want := [][2]float64{{0, 0}, {0.5, 0.5}, {0.75, 0.25}, {0.25, 0.75}}
	for i, p := range want {
		assert.Equal(t, p[0], float64(sobol32At(&v[0], uint64(i)))/(1<<32), "point %d", i)
		assert.Equal(t, p[1], float64(sobol32At(&v[1], uint64(i)))/(1<<32), "point %d", i)
		assert.Equal(t, uint64(sobol32At(&v[2], uint64(i)))<<32, sobol64At(&v64[2], uint64(i)), "64-bit's upper half")
	}
	// Every dimension is a (0,1)-sequence in base 2: the first 2^k points
	// hit every interval of length 2^-k once.
	v, _ = directions(200)
	for _, d := range []int{5, 12, 13, 100, 199} {
		seen := map[uint32]bool{}
		for i := uint64(0); i < 256; i++ {
			seen[sobol32At(&v[d], i)>>24] = true
		}
		assert.Len(t, seen, 256, "dimension %d", d)
	}
	assert.True(t, primitive(5, 2))
	assert.False(t, primitive(5, 0), "x^5+1 is not even irreducible")
}

func TestPoissonMean(t *testing.T) {
	for _, lambda := range []float64{0.5, 4, 100, 5000} {
		var sum float64
		const n = 20000
		for i := uint64(0); i < n; i++ {
			e := uint64(0)
			sum += float64(poisson(lambda, func() float64 { e++; return float64(uniform32(philoxAt(7, i, e))) }))
		}
		assert.InDelta(t, lambda, sum/n, 4*math.Sqrt(lambda/n)+0.01, "lambda %g", lambda)
	}
}

func TestArgumentErrors(t *testing.T) {
	l := New(nil)
	_, err := l.CreateGenerator(7)
	assert.ErrorIs(t, err, backend.RANDTypeError)
	g, err := l.CreateGenerator(backend.RNGSobol32)
	require.NoError(t, err)
	assert.ErrorIs(t, l.SetSeed(g, 1), backend.RANDTypeError)
	assert.ErrorIs(t, l.SetDimensions(g, 0), backend.RANDOutOfRange)
	assert.ErrorIs(t, l.SetDimensions(g, 20001), backend.RANDOutOfRange)
	require.NoError(t, l.SetDimensions(g, 3))
	assert.ErrorIs(t, l.Generate(g, 0x1000, 4), backend.RANDLengthNotMultiple)
	assert.ErrorIs(t, l.GenerateLongLong(g, 0x1000, 3), backend.RANDTypeError)
	assert.ErrorIs(t, l.SetOrdering(g, backend.OrderingPseudoLegacy), backend.RANDOutOfRange)
	p, err := l.CreateGenerator(backend.RNGPhilox4x32x10)
	require.NoError(t, err)
	assert.ErrorIs(t, l.GenerateNormal(p, 0x1000, 3, 0, 1), backend.RANDLengthNotMultiple)
	assert.ErrorIs(t, l.GeneratePoisson(p, 0x1000, 4, 0), backend.RANDOutOfRange)
	assert.ErrorIs(t, l.GeneratePoisson(p, 0x1000, 4, math.NaN()), backend.RANDOutOfRange)
	assert.ErrorIs(t, l.SetDimensions(p, 2), backend.RANDTypeError)
	require.NoError(t, l.DestroyGenerator(p))
	assert.ErrorIs(t, l.DestroyGenerator(p), backend.RANDNotInitialized)
	assert.ErrorIs(t, l.Generate(p, 0x1000, 4), backend.RANDNotInitialized)
}
