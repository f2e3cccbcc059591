package fpu

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDivRemByZero(t *testing.T) {
	// The H200's results (docs/h200-facts.md).
	assert.Equal(t, uint32(0xffffffff), Div[uint32](100, 0))
	assert.Equal(t, uint64(math.MaxUint64), Div[uint64](100, 0))
	assert.Equal(t, int32(-1), Div[int32](100, 0))
	assert.Equal(t, int32(-1), Div[int32](-7, 0))
	assert.Equal(t, int64(-1), Div[int64](math.MinInt64, 0))
	assert.Equal(t, uint32(100), Rem[uint32](100, 0))
	assert.Equal(t, int32(-7), Rem[int32](-7, 0))
	assert.Equal(t, uint64(0x123456789), Rem[uint64](0x123456789, 0))
	// Overflow wraps, nothing panics.
	assert.Equal(t, int32(math.MinInt32), Div[int32](math.MinInt32, -1))
	assert.Equal(t, int64(math.MinInt64), Div[int64](math.MinInt64, -1))
	assert.Equal(t, int32(0), Rem[int32](math.MinInt32, -1))
	assert.Equal(t, int16(0), Rem[int16](math.MinInt16, -1))
	// Truncation toward zero, remainder with the dividend's sign.
	assert.Equal(t, int32(-2), Div[int32](-7, 3))
	assert.Equal(t, int32(-1), Rem[int32](-7, 3))
	assert.Equal(t, int32(1), Rem[int32](7, -3))
}

func TestShifts(t *testing.T) {
	assert.Equal(t, uint32(0), Shl[uint32](1, 32))
	assert.Equal(t, uint32(0), Shl[uint32](1, 0xffffffff))
	assert.Equal(t, uint32(0x80000000), Shl[uint32](1, 31))
	assert.Equal(t, int32(0), Shl[int32](-1, 40))
	assert.Equal(t, uint32(0), Shr[uint32](0x80000000, 32))
	assert.Equal(t, int32(-1), Shr[int32](math.MinInt32, 32))
	assert.Equal(t, int32(-1), Shr[int32](math.MinInt32, 1000))
	assert.Equal(t, int32(0), Shr[int32](math.MaxInt32, 1000))
	assert.Equal(t, int64(-1), Shr[int64](-2, 64))
	assert.Equal(t, uint64(1), Shr[uint64](1<<63, 63))
	assert.Equal(t, uint16(0), Shl[uint16](1, 16))
}

func TestAbsSadSat(t *testing.T) {
	assert.Equal(t, int32(math.MinInt32), Abs[int32](math.MinInt32))
	assert.Equal(t, int64(5), Abs[int64](-5))
	assert.Equal(t, uint32(13), Sad[uint32](3, 10, 6))
	assert.Equal(t, uint32(13), Sad[uint32](10, 3, 6))
	assert.Equal(t, int32(13), Sad[int32](-3, 4, 6))
	assert.Equal(t, uint32(0xffffffff), Sad[uint32](0, 0xffffffff, 0))
	assert.Equal(t, int32(math.MaxInt32), AddSatS32(math.MaxInt32, 1))
	assert.Equal(t, int32(math.MinInt32), AddSatS32(math.MinInt32, -1))
	assert.Equal(t, int32(3), AddSatS32(1, 2))
	assert.Equal(t, int32(math.MinInt32), SubSatS32(math.MinInt32, 1))
	assert.Equal(t, int32(math.MaxInt32), SubSatS32(0, math.MinInt32))
	assert.Equal(t, int32(-1), SubSatS32(1, 2))
}

// TestMulHi checks the high halves against math/big on random operands.
func TestMulHi(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := []uint64{0, 1, math.MaxUint64, 1 << 63, 1<<63 - 1, 0xffffffff, 0x80000000}
	for i := 0; i < 20000; i++ {
		a, b := r.Uint64(), r.Uint64()
		if i < len(vals)*len(vals) {
			a, b = vals[i%len(vals)], vals[i/len(vals)]
		}
		prod := new(big.Int).Mul(new(big.Int).SetInt64(int64(a)), new(big.Int).SetInt64(int64(b)))
		require.Equal(t, new(big.Int).Rsh(prod, 64).Int64(), MulHiS64(int64(a), int64(b)), "mul.hi.s64 %#x %#x", a, b)
		uprod := new(big.Int).Mul(new(big.Int).SetUint64(a), new(big.Int).SetUint64(b))
		require.Equal(t, new(big.Int).Rsh(uprod, 64).Uint64(), MulHiU64(a, b))
		a32, b32 := uint32(a), uint32(b)
		require.Equal(t, uint32(uint64(a32)*uint64(b32)>>32), MulHiU32(a32, b32))
		require.Equal(t, int32((int64(int32(a32))*int64(int32(b32)))>>32), MulHiS32(int32(a32), int32(b32)))
	}
}

func TestMul24(t *testing.T) {
	assert.Equal(t, uint32(0xfffffe), Mul24Lo(0xff000002, 0x7fffff, false)) // high byte ignored
	assert.Equal(t, uint32(0xffffffff), Mul24Lo(0x00ffffff, 1, true))       // -1 * 1
	assert.Equal(t, uint32(0xfffffe00), Mul24Hi(0xffffff, 0xffffff, false))
	assert.Equal(t, uint32(0), Mul24Hi(0xffffff, 0xffffff, true)) // (-1)*(-1) = 1: bits 16..47 are 0
	assert.Equal(t, uint32(0xffffffff), Mul24Hi(0xffffff, 0x10000, true))
}

func TestCarry(t *testing.T) {
	s, c := AddCarry32(0xffffffff, 1, 0)
	assert.Equal(t, [2]uint32{0, 1}, [2]uint32{s, c})
	s, c = AddCarry32(1, 1, 1)
	assert.Equal(t, [2]uint32{3, 0}, [2]uint32{s, c})
	d, b := SubBorrow32(0, 1, 0)
	assert.Equal(t, [2]uint32{0xffffffff, 1}, [2]uint32{d, b})
	d, b = SubBorrow32(5, 2, 1)
	assert.Equal(t, [2]uint32{2, 0}, [2]uint32{d, b})
}

func TestBfe(t *testing.T) {
	cases := []struct {
		a           uint64
		pos, length uint32
		width       int
		signed      bool
		want        uint64
	}{
		{0x12345678, 4, 8, 32, false, 0x67},
		{0x12345678, 4, 8, 32, true, 0x67},
		{0x000000f0, 4, 4, 32, true, 0xffffffffffffffff}, // field 0xf sign-extended (to 64 bits)
		{0x000000f0, 4, 4, 32, false, 0xf},
		{0x80000000, 28, 8, 32, false, 0x8},               // bits past the width read 0
		{0x80000000, 28, 8, 32, true, 0xfffffffffffffff8}, // ... or the sign of bit 31
		{0xffffffff, 0, 0, 32, true, 0},                   // empty field
		{0xffffffff, 40, 4, 32, false, 0},                 // field past the width
		{0xffffffff, 40, 4, 32, true, 0xffffffffffffffff}, // sign of bit 31
		{0x7fffffff, 40, 4, 32, true, 0},
		{0xff, 0x104, 0x204, 32, false, 0xf}, // only the low 8 bits of pos and len
		{0xffffffff00000000, 32, 32, 64, false, 0xffffffff},
		{0xffffffff00000000, 32, 32, 64, true, math.MaxUint64},
		{0x8000000000000000, 60, 200, 64, true, 0xfffffffffffffff8}, // bits 60-62 are 0, then the sign
		{0x5, 0, 64, 64, false, 0x5},
		{0xabcd, 0, 255, 32, false, 0xabcd},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Bfe(c.a, c.pos, c.length, c.width, c.signed), "bfe %v%d %#x, %d, %d", c.signed, c.width, c.a, c.pos, c.length)
	}
	// Property: an unsigned field inside the width is a shift and a mask.
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 10000; i++ {
		a := r.Uint64()
		pos := uint32(r.IntN(64))
		length := uint32(r.IntN(64 - int(pos) + 1))
		want := a >> pos
		if length < 64 {
			want &= 1<<length - 1
		}
		require.Equal(t, want, Bfe(a, pos, length, 64, false))
		if length > 0 && length < 64 {
			s := int64(want<<(64-length)) >> (64 - length)
			require.Equal(t, uint64(s), Bfe(a, pos, length, 64, true))
		}
	}
}

func TestBfi(t *testing.T) {
	assert.Equal(t, uint64(0x1234ab78), Bfi(0xab, 0x12345678, 8, 8, 32))
	assert.Equal(t, uint64(0xf0000000), Bfi(0xff, 0, 28, 8, 32), "bits past the width are dropped")
	assert.Equal(t, uint64(0x12345678), Bfi(0xff, 0x12345678, 8, 0, 32), "empty field")
	assert.Equal(t, uint64(0x12345678), Bfi(0xff, 0x12345678, 40, 8, 32), "field past the width")
	assert.Equal(t, uint64(0xffffffff), Bfi(0xffffffff, 0xffffffff00000000, 0, 32, 32), "32-bit result")
	assert.Equal(t, uint64(0xab00000000000000), Bfi(0xab, 0, 56, 8, 64))
	assert.Equal(t, uint64(0x1234ab78), Bfi(0xab, 0x12345678, 0x108, 0x308, 32), "only the low 8 bits count")
}

func TestBitCounts(t *testing.T) {
	assert.Equal(t, uint32(0x80000000), Brev32(1))
	assert.Equal(t, uint64(1), Brev64(1<<63))
	assert.Equal(t, uint32(32), Popc32(0xffffffff))
	assert.Equal(t, uint32(64), Popc64(math.MaxUint64))
	assert.Equal(t, uint32(32), Clz32(0))
	assert.Equal(t, uint32(64), Clz64(0))
	assert.Equal(t, uint32(31), Clz32(1))
	assert.Equal(t, uint32(0), Clz64(1<<63))

	assert.Equal(t, uint32(0xffffffff), Bfind(0, 32, false, false))
	assert.Equal(t, uint32(0xffffffff), Bfind(0xffffffff, 32, true, false), "-1 has no non-sign bit")
	assert.Equal(t, uint32(0xffffffff), Bfind(0xffffffff, 32, true, true))
	assert.Equal(t, uint32(31), Bfind(0x80000000, 32, false, false))
	assert.Equal(t, uint32(0), Bfind(0x80000000, 32, false, true))
	assert.Equal(t, uint32(30), Bfind(0x80000000, 32, true, false), "MinInt32: highest clear bit")
	assert.Equal(t, uint32(4), Bfind(0xffffffe0, 32, true, false), "-32")
	assert.Equal(t, uint32(27), Bfind(0xffffffe0, 32, true, true))
	assert.Equal(t, uint32(4), Bfind(0x10, 32, true, false))
	assert.Equal(t, uint32(31), Bfind(0xffffffff, 32, false, false))
	assert.Equal(t, uint32(63), Bfind(1<<63, 64, false, false))
	assert.Equal(t, uint32(62), Bfind(1<<63, 64, true, false))
	assert.Equal(t, uint32(0xffffffff), Bfind(math.MaxUint64, 64, true, false))
	assert.Equal(t, uint32(63), Bfind(1, 64, false, true))
	assert.Equal(t, uint32(0), Bfind(0x1, 32, false, false))
	assert.Equal(t, uint32(0), Bfind(0xffffffff00000001, 32, false, false), "32-bit: the upper half is ignored")
}

func TestPrmt(t *testing.T) {
	a, b := uint32(0x33221100), uint32(0x77665544) // byte i holds 0x11*i
	// Default mode: each nibble selects a byte; bit 3 replicates its sign.
	assert.Equal(t, uint32(0x33221100), Prmt(a, b, 0x3210, PrmtDefault))
	assert.Equal(t, uint32(0x44556677), Prmt(a, b, 0x4567, PrmtDefault))
	assert.Equal(t, uint32(0x00000000), Prmt(a, b, 0x0000, PrmtDefault))
	assert.Equal(t, uint32(0xff80ff80), Prmt(0x80, 0, 0x8080, PrmtDefault))
	assert.Equal(t, uint32(0xff000000), Prmt(a, 0x80000000, 0xf000, PrmtDefault))
	sel := func(m PrmtMode, n uint32) [4]uint32 {
		d := Prmt(a, b, n, m)
		return [4]uint32{d & 0xff / 0x11, d >> 8 & 0xff / 0x11, d >> 16 & 0xff / 0x11, d >> 24 / 0x11}
	}
	// Rows of the PTX ISA's table, written as source bytes of d.b0..d.b3.
	assert.Equal(t, [4]uint32{1, 2, 3, 4}, sel(PrmtF4E, 1))
	assert.Equal(t, [4]uint32{3, 4, 5, 6}, sel(PrmtF4E, 3))
	assert.Equal(t, [4]uint32{0, 7, 6, 5}, sel(PrmtB4E, 0))
	assert.Equal(t, [4]uint32{2, 1, 0, 7}, sel(PrmtB4E, 2))
	assert.Equal(t, [4]uint32{2, 2, 2, 2}, sel(PrmtRC8, 2))
	assert.Equal(t, [4]uint32{1, 1, 2, 3}, sel(PrmtECL, 1))
	assert.Equal(t, [4]uint32{0, 1, 1, 1}, sel(PrmtECR, 1))
	assert.Equal(t, [4]uint32{2, 3, 2, 3}, sel(PrmtRC16, 1))
	assert.Equal(t, sel(PrmtRC16, 1), sel(PrmtRC16, 0xfffffffd), "only c[1:0] counts")
}

func TestLop3(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 1000; i++ {
		a, b, c := r.Uint32(), r.Uint32(), r.Uint32()
		assert.Equal(t, a^b^c, Lop3(a, b, c, 0x96))
		assert.Equal(t, a&b|a&c|b&c, Lop3(a, b, c, 0xe8))
		assert.Equal(t, a&b|^a&c, Lop3(a, b, c, 0xca))
		assert.Equal(t, a, Lop3(a, b, c, 0xf0))
		assert.Equal(t, b, Lop3(a, b, c, 0xcc))
		assert.Equal(t, c, Lop3(a, b, c, 0xaa))
		assert.Equal(t, uint32(0), Lop3(a, b, c, 0))
		assert.Equal(t, ^uint32(0), Lop3(a, b, c, 0xff))
		lut := uint8(r.Uint32())
		// The definition: lut = F(0xF0, 0xCC, 0xAA), applied bit by bit.
		d := Lop3(a, b, c, lut)
		for bit := 0; bit < 32; bit++ {
			idx := (a>>bit&1)<<2 | (b>>bit&1)<<1 | c>>bit&1
			require.Equal(t, uint32(lut>>idx&1), d>>bit&1)
		}
	}
}
