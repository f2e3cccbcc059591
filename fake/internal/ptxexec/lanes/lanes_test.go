package lanes

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// guarded places registers between guard words, so that a function that
// writes past its 32 lanes (or before them) is caught.
type guarded struct{ buf [6*32 + 32]uint64 }

const guardWord = 0xdeadbeefcafef00d

func newGuarded() *guarded {
	g := &guarded{}
	for i := range g.buf {
		g.buf[i] = guardWord
	}
	return g
}

// reg returns register i (0..5) of g: 32 words after 16 guard words and
// the registers before it.
func (g *guarded) reg(i int) *Reg { return (*Reg)(g.buf[16+32*i:]) }

func (g *guarded) checkGuards(t *testing.T) {
	t.Helper()
	for i := 0; i < 16; i++ {
		require.Equal(t, uint64(guardWord), g.buf[i], "guard word %d before the registers changed", i)
		require.Equal(t, uint64(guardWord), g.buf[len(g.buf)-1-i], "guard word %d after the registers changed", i)
	}
}

// values draws lane values: any 64 bits, 32-bit values zero-extended,
// small and extreme integers, and float32 bit patterns of every class.
func values(r *rand.Rand, reg *Reg) {
	kind := r.IntN(4)
	for j := range reg {
		switch k := (kind + r.IntN(2)) % 4; k {
		case 0:
			reg[j] = r.Uint64()
		case 1:
			reg[j] = uint64(r.Uint32())
		case 2:
			edges := []uint64{0, 1, 2, math.MaxUint32, math.MaxInt32, 1 << 31, math.MaxUint64, math.MaxInt64, 1 << 63, 3, 0xffff, 0x8000}
			reg[j] = edges[r.IntN(len(edges))] + uint64(r.IntN(3)) - 1
		default:
			reg[j] = uint64(math.Float32bits(float32Value(r)))
		}
	}
}

// float32Value draws a float32 of every class: normal, subnormal, zero,
// infinite, NaN with random payloads and signs.
func float32Value(r *rand.Rand) float32 {
	sign := uint32(r.IntN(2)) << 31
	switch r.IntN(8) {
	case 0:
		return math.Float32frombits(sign | uint32(r.IntN(1<<23))) // subnormal or zero
	case 1:
		return math.Float32frombits(sign | 0x7f800000) // infinity
	case 2:
		return math.Float32frombits(sign | 0x7f800000 | uint32(1+r.IntN(1<<23-1))) // NaN
	case 3:
		return math.Float32frombits(sign | uint32(r.IntN(40)+1)<<23 | uint32(r.IntN(1<<23))) // tiny normal
	case 4:
		return math.Float32frombits(sign | uint32(254-r.IntN(10))<<23 | uint32(r.IntN(1<<23))) // huge
	default:
		return math.Float32frombits(sign | uint32(100+r.IntN(56))<<23 | uint32(r.IntN(1<<23)))
	}
}

// hardFMA sets x, y, z to operands whose exact x*y+z lies near a float32
// rounding boundary: z cancels most of the product, or the product is
// 1 + 2^-23 squared and the like.
func hardFMA(r *rand.Rand, x, y, z *Reg) {
	for j := range x {
		a := math.Float32frombits(0x3f800000 | uint32(r.IntN(1<<23)))
		b := math.Float32frombits(0x3f800000 | uint32(r.IntN(1<<23)))
		if r.IntN(2) == 0 {
			a = math.Float32frombits(0x3f800000 | uint32(r.IntN(8)))
			b = a
		}
		p := float64(a) * float64(b)
		c := -float32(p)
		switch r.IntN(4) {
		case 0:
			c = math.Nextafter32(c, 0)
		case 1:
			c = -math.Float32frombits(0x3f800000) // -1
		case 2:
			c = float32(math.Ldexp(float64(r.IntN(3)-1), -24-r.IntN(4)))
		}
		e := r.IntN(200) - 100
		x[j] = uint64(math.Float32bits(float32(math.Ldexp(float64(a), e))))
		y[j] = uint64(math.Float32bits(b))
		z[j] = uint64(math.Float32bits(float32(math.Ldexp(float64(c), e))))
	}
}

// cases pairs each function's vector and Go forms, as one signature:
// d, x, y, z and two scalars.
var cases = map[string]struct {
	vec, ref func(d, x, y, z *Reg, s1, s2 uint64)
	masks    bool // s1 is a mask of some width
}{
	"add":        {func(d, x, y, z *Reg, a, b uint64) { addAVX2(d, x, y, a, 1, 0) }, func(d, x, y, z *Reg, a, b uint64) { addGo(d, x, y, a) }, true},
	"sub":        {func(d, x, y, z *Reg, a, b uint64) { subAVX2(d, x, y, a, 1, 0) }, func(d, x, y, z *Reg, a, b uint64) { subGo(d, x, y, a) }, true},
	"addImm":     {func(d, x, y, z *Reg, a, b uint64) { addImmAVX2(d, x, b, a) }, func(d, x, y, z *Reg, a, b uint64) { addImmGo(d, x, b, a) }, true},
	"and":        {func(d, x, y, z *Reg, a, b uint64) { andAVX2(d, x, y, 1, 0) }, func(d, x, y, z *Reg, a, b uint64) { andGo(d, x, y) }, false},
	"or":         {func(d, x, y, z *Reg, a, b uint64) { orAVX2(d, x, y, 1, 0) }, func(d, x, y, z *Reg, a, b uint64) { orGo(d, x, y) }, false},
	"xor":        {func(d, x, y, z *Reg, a, b uint64) { xorAVX2(d, x, y, 1, 0) }, func(d, x, y, z *Reg, a, b uint64) { xorGo(d, x, y) }, false},
	"mulLo32":    {func(d, x, y, z *Reg, a, b uint64) { mulLo32AVX2(d, x, y, a, 1, 0) }, func(d, x, y, z *Reg, a, b uint64) { mulLo32Go(d, x, y, a) }, true},
	"madLo32":    {func(d, x, y, z *Reg, a, b uint64) { madLo32AVX2(d, x, y, z, a, 1, 0) }, func(d, x, y, z *Reg, a, b uint64) { madLo32Go(d, x, y, z, a) }, true},
	"mulWideS32": {func(d, x, y, z *Reg, a, b uint64) { mulWideS32AVX2(d, x, y, 1, 0) }, func(d, x, y, z *Reg, a, b uint64) { mulWideS32Go(d, x, y) }, false},
	"madWideS32": {func(d, x, y, z *Reg, a, b uint64) { madWideS32AVX2(d, x, y, z, 1, 0) }, func(d, x, y, z *Reg, a, b uint64) { madWideS32Go(d, x, y, z) }, false},
	"ltS32":      {func(d, x, y, z *Reg, a, b uint64) { ltS32AVX2(d, x, y, b&1, 1, 0) }, func(d, x, y, z *Reg, a, b uint64) { ltS32Go(d, x, y, b&1) }, false},
	"ltS64":      {func(d, x, y, z *Reg, a, b uint64) { ltS64AVX2(d, x, y, b&1, 1, 0) }, func(d, x, y, z *Reg, a, b uint64) { ltS64Go(d, x, y, b&1) }, false},
	"ltU64":      {func(d, x, y, z *Reg, a, b uint64) { ltU64AVX2(d, x, y, b&1, 1, 0) }, func(d, x, y, z *Reg, a, b uint64) { ltU64Go(d, x, y, b&1) }, false},
	"eq":         {func(d, x, y, z *Reg, a, b uint64) { eqAVX2(d, x, y, a, b&1) }, func(d, x, y, z *Reg, a, b uint64) { eqGo(d, x, y, a, b&1) }, true},
	"selp":       {func(d, x, y, z *Reg, a, b uint64) { selpAVX2(d, x, y, z) }, func(d, x, y, z *Reg, a, b uint64) { selpGo(d, x, y, z) }, false},
	"addF32":     {func(d, x, y, z *Reg, a, b uint64) { addF32AVX2(d, x, y, 1, 0) }, func(d, x, y, z *Reg, a, b uint64) { addF32Go(d, x, y) }, false},
	"mulF32":     {func(d, x, y, z *Reg, a, b uint64) { mulF32AVX2(d, x, y, 1, 0) }, func(d, x, y, z *Reg, a, b uint64) { mulF32Go(d, x, y) }, false},
	"fmaF32":     {func(d, x, y, z *Reg, a, b uint64) { fmaF32AVX2(d, x, y, z, 1, 0) }, func(d, x, y, z *Reg, a, b uint64) { fmaF32Go(d, x, y, z) }, false},
}

// TestVectorMatchesGo runs each function's vector code and its Go loop on
// the same registers and requires the same 32 results, with nothing
// written outside the destination. Where no vector code is built (other
// architectures, -tags purego) both sides are the Go loop and the test
// checks only the guards.
func TestVectorMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	masks := []uint64{math.MaxUint64, math.MaxUint32, 0xffff, 0xff}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			for round := 0; round < 3000; round++ {
				g := newGuarded()
				x, y, z := g.reg(1), g.reg(2), g.reg(3)
				values(r, x)
				values(r, y)
				values(r, z)
				if name == "fmaF32" && round%2 == 0 {
					hardFMA(r, x, y, z)
				}
				if name == "selp" && round%2 == 0 {
					for j := range z {
						z[j] = uint64(r.IntN(2))
					}
				}
				s1, s2 := masks[r.IntN(len(masks))], r.Uint64()
				if !c.masks {
					s1 = r.Uint64()
				}
				in := [3]Reg{*x, *y, *z}
				want := g.reg(4)
				c.ref(want, x, y, z, s1, s2)
				c.vec(g.reg(0), x, y, z, s1, s2)
				for j := range want {
					if g.reg(0)[j] != want[j] {
						t.Fatalf("round %d lane %d: x=%#x y=%#x z=%#x s=%#x,%#x: vector %#x, Go %#x",
							round, j, x[j], y[j], z[j], s1, s2, g.reg(0)[j], want[j])
					}
				}
				require.Equal(t, in, [3]Reg{*x, *y, *z}, "the operands changed")
				g.checkGuards(t)
				// In place: the destination is an operand.
				c.vec(x, x, y, z, s1, s2)
				require.Equal(t, *want, *x, "in place")
				g.checkGuards(t)
			}
		})
	}
}

// TestExportedMatchGo checks that the exported functions compute what
// their Go loops do (whichever code they pick on this machine).
func TestExportedMatchGo(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var x, y, z, got, want Reg
	values(r, &x)
	values(r, &y)
	values(r, &z)
	check := func(name string) {
		t.Helper()
		require.Equal(t, want, got, name)
	}
	Add(&got, &x, &y, math.MaxUint32)
	addGo(&want, &x, &y, math.MaxUint32)
	check("Add")
	Sub(&got, &x, &y, math.MaxUint64)
	subGo(&want, &x, &y, math.MaxUint64)
	check("Sub")
	AddImm(&got, &x, 12, math.MaxUint32)
	addImmGo(&want, &x, 12, math.MaxUint32)
	check("AddImm")
	And(&got, &x, &y)
	andGo(&want, &x, &y)
	check("And")
	Or(&got, &x, &y)
	orGo(&want, &x, &y)
	check("Or")
	Xor(&got, &x, &y)
	xorGo(&want, &x, &y)
	check("Xor")
	MulLo32(&got, &x, &y, math.MaxUint32)
	mulLo32Go(&want, &x, &y, math.MaxUint32)
	check("MulLo32")
	MadLo32(&got, &x, &y, &z, math.MaxUint32)
	madLo32Go(&want, &x, &y, &z, math.MaxUint32)
	check("MadLo32")
	MulWideS32(&got, &x, &y)
	mulWideS32Go(&want, &x, &y)
	check("MulWideS32")
	MadWideS32(&got, &x, &y, &z)
	madWideS32Go(&want, &x, &y, &z)
	check("MadWideS32")
	LessS32(&got, &x, &y, 1)
	ltS32Go(&want, &x, &y, 1)
	check("LessS32")
	LessS64(&got, &x, &y, 0)
	ltS64Go(&want, &x, &y, 0)
	check("LessS64")
	LessU64(&got, &x, &y, 0)
	ltU64Go(&want, &x, &y, 0)
	check("LessU64")
	Equal(&got, &x, &y, 0xff, 1)
	eqGo(&want, &x, &y, 0xff, 1)
	check("Equal")
	Select(&got, &x, &y, &z)
	selpGo(&want, &x, &y, &z)
	check("Select")
	AddF32(&got, &x, &y)
	addF32Go(&want, &x, &y)
	check("AddF32")
	MulF32(&got, &x, &y)
	mulF32Go(&want, &x, &y)
	check("MulF32")
	FmaF32(&got, &x, &y, &z)
	fmaF32Go(&want, &x, &y, &z)
	check("FmaF32")
}

// TestGoLoopsAreIEEE pins the Go loops' float32 results to Go's own
// float32 arithmetic (IEEE, round to nearest even) with NaNs canonical,
// and FmaF32 to math.FMA's single rounding where float64 holds the exact
// result, so that the reference the vector code is checked against is
// itself right.
func TestGoLoopsAreIEEE(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	canon := func(f float32) uint64 {
		if f != f {
			return 0x7fffffff
		}
		return uint64(math.Float32bits(f))
	}
	for round := 0; round < 2000; round++ {
		var x, y, z, d Reg
		values(r, &x)
		values(r, &y)
		values(r, &z)
		addF32Go(&d, &x, &y)
		for j := range d {
			require.Equal(t, canon(f32(x[j])+f32(y[j])), d[j])
		}
		mulF32Go(&d, &x, &y)
		for j := range d {
			require.Equal(t, canon(f32(x[j])*f32(y[j])), d[j])
		}
		fmaF32Go(&d, &x, &y, &z)
		for j := range d {
			a, b, c := float64(f32(x[j])), float64(f32(y[j])), float64(f32(z[j]))
			if s := math.FMA(a, b, c); s == float64(float32(s)) || s != s {
				require.Equal(t, canon(float32(s)), d[j], "fma(%g, %g, %g)", a, b, c)
			}
		}
	}
}

// BenchmarkAdd is one 32-lane add, the vector code beside the Go loop.
func BenchmarkAdd(b *testing.B) {
	var d, x, y Reg
	b.Run("vector", func(b *testing.B) {
		for b.Loop() {
			addAVX2(&d, &x, &y, math.MaxUint32, 1, 0)
		}
	})
	b.Run("go", func(b *testing.B) {
		for b.Loop() {
			addGo(&d, &x, &y, math.MaxUint32)
		}
	})
}

// BenchmarkFmaF32 is one 32-lane fma.rn.f32.
func BenchmarkFmaF32(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	var d, x, y, z Reg
	values(r, &x)
	values(r, &y)
	values(r, &z)
	b.Run("vector", func(b *testing.B) {
		for b.Loop() {
			fmaF32AVX2(&d, &x, &y, &z, 1, 0)
		}
	})
	b.Run("go", func(b *testing.B) {
		for b.Loop() {
			fmaF32Go(&d, &x, &y, &z)
		}
	})
}

// TestMemoryHelpersMatchGo checks Nonzero, Check, Load32 and Store32's
// vector code against their Go loops, with addresses consecutive or one
// lane off, in and out of a span, aligned or not.
func TestMemoryHelpersMatchGo(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for round := 0; round < 5000; round++ {
		var p Reg
		for j := range p {
			if r.IntN(3) > 0 {
				p[j] = r.Uint64() >> uint(r.IntN(64))
			}
		}
		require.Equal(t, nonzeroGo(&p), nonzeroAVX2(&p), "Nonzero(%x)", p)

		var a Reg
		step := []uint64{0, 1, 2, 4, 8, 16}[r.IntN(6)]
		base := r.Uint64() >> uint(r.IntN(64))
		for j := range a {
			a[j] = base + uint64(j)*step
		}
		if r.IntN(2) == 0 {
			a[r.IntN(32)] += uint64(r.IntN(9)) - 4
		}
		start := base - uint64(r.IntN(64))
		lim := uint64(r.IntN(1024))
		amask := []uint64{0, 1, 3, 7, 15}[r.IntN(5)]
		imm := uint64(r.IntN(16))
		in1, c1 := checkGo(&a, start, lim, amask, imm, step)
		in2, c2 := checkAVX2(&a, start, lim, amask, imm, step)
		require.Equal(t, [2]bool{in1, c1}, [2]bool{in2, c2}, "Check(%x, %#x, %d, %#x, %d, %d)", a, start, lim, amask, imm, step)
		require.Equal(t, c1, consecutiveAVX2(&a, step, 1, 0), "Consecutive(%x, %d)", a, step)
		require.Equal(t, c1, consecutiveGo(&a, step), "Consecutive(%x, %d)", a, step)
	}
	src := make([]byte, 160)
	for i := range src {
		src[i] = byte(r.Uint32())
	}
	var got, want Reg
	load32AVX2(&got, (*[128]byte)(src[16:]), 1, 0)
	load32Go(&want, (*[128]byte)(src[16:]))
	require.Equal(t, want, got, "Load32")
	var v Reg
	values(r, &v)
	a, b := make([]byte, 160), make([]byte, 160)
	store32AVX2((*[128]byte)(a[16:]), &v, 1, 0)
	store32Go((*[128]byte)(b[16:]), &v)
	require.Equal(t, b, a, "Store32 (with the 16 bytes around it untouched)")
	for j := range v {
		require.Equal(t, uint32(v[j]), uint32(a[16+4*j])|uint32(a[17+4*j])<<8|uint32(a[18+4*j])<<16|uint32(a[19+4*j])<<24)
	}
}
