package ptxexec

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/fake/internal/fpu"
)

// h16 and b16 are the bit patterns of x (exact in the format).
func h16(x float64) uint64 { return uint64(fpu.F64ToF16(x, fpu.Nearest)) }
func b16(x float64) uint64 { return uint64(fpu.F64ToBF16(x, fpu.Nearest)) }

// The 16-bit registers of the snippets: %h0..%h2 are the low halves of
// %w0..%w2, and %h3 goes out through %w3.
const (
	halfIn  = ".reg .b16 %h<8>;\n\tcvt.u16.u32 %h0, %w0;\n\tcvt.u16.u32 %h1, %w1;\n\tcvt.u16.u32 %h2, %w2;\n\t"
	halfOut = "\n\tcvt.u32.u16 %w3, %h3;" + out32
)

func TestHalfArithmetic(t *testing.T) {
	pair := func(lo, hi uint64) uint64 { return hi<<16 | lo }
	nanH := uint64(fpu.NaN16)
	cases := []struct {
		name string
		body string
		in   []uint64
		want uint64
	}{
		{"add.f16 tie to even", halfIn + "add.f16 %h3, %h0, %h1;" + halfOut, []uint64{h16(1), h16(0x1p-11)}, h16(1)},
		{"add.f16 above the tie", halfIn + "add.rn.f16 %h3, %h0, %h1;" + halfOut, []uint64{h16(1), h16(0x1.8p-11)}, h16(1 + 0x1p-10)},
		{"sub.f16 to -0", halfIn + "sub.f16 %h3, %h0, %h1;" + halfOut, []uint64{0x8000, 0}, 0x8000},
		{"mul.f16 overflow", halfIn + "mul.f16 %h3, %h0, %h1;" + halfOut, []uint64{h16(256), h16(256)}, 0x7c00},
		{"mul.f16 subnormal", halfIn + "mul.f16 %h3, %h0, %h1;" + halfOut, []uint64{h16(0x1p-14), h16(0.5)}, h16(0x1p-15)},
		{"mul.ftz.f16 subnormal", halfIn + "mul.ftz.f16 %h3, %h0, %h1;" + halfOut, []uint64{h16(0x1p-14), h16(0.5)}, 0},
		{"fma.rn.f16 one rounding", halfIn + "fma.rn.f16 %h3, %h0, %h1, %h2;" + halfOut,
			[]uint64{h16(1 + 0x1p-10), h16(1 - 0x1p-11), h16(-1)}, h16(0x1p-11 - 0x1p-21)},
		{"fma.rn.sat.f16", halfIn + "fma.rn.sat.f16 %h3, %h0, %h1, %h2;" + halfOut, []uint64{h16(2), h16(2), h16(0)}, h16(1)},
		{"fma.rn.relu.f16", halfIn + "fma.rn.relu.f16 %h3, %h0, %h1, %h2;" + halfOut, []uint64{h16(2), h16(-2), h16(1)}, 0},
		{"min.f16 NaN", halfIn + "min.f16 %h3, %h0, %h1;" + halfOut, []uint64{0x7e00, h16(3)}, h16(3)},
		{"min.NaN.f16", halfIn + "min.NaN.f16 %h3, %h0, %h1;" + halfOut, []uint64{0x7e00, h16(3)}, nanH},
		{"max.f16 zeros", halfIn + "max.f16 %h3, %h0, %h1;" + halfOut, []uint64{0x8000, 0}, 0},
		{"neg.f16", halfIn + "neg.f16 %h3, %h0;" + halfOut, []uint64{h16(2)}, h16(-2)},
		{"abs.f16", halfIn + "abs.f16 %h3, %h0;" + halfOut, []uint64{h16(-2)}, h16(2)},
		{"add.f16x2 lanes", "add.f16x2 %w3, %w0, %w1;" + out32,
			[]uint64{pair(h16(1), h16(65504)), pair(h16(2), h16(65504))}, pair(h16(3), 0x7c00)},
		{"fma.rn.f16x2", "fma.rn.f16x2 %w3, %w0, %w1, %w2;" + out32,
			[]uint64{pair(h16(2), h16(3)), pair(h16(4), h16(5)), pair(h16(1), h16(-1))}, pair(h16(9), h16(14))},
		{"add.bf16 rounds to 8 bits", halfIn + "add.rn.bf16 %h3, %h0, %h1;" + halfOut, []uint64{b16(1), b16(0x1.8p-8)}, b16(1 + 0x1p-7)},
		{"mul.bf16x2", "mul.rn.bf16x2 %w3, %w0, %w1;" + out32, []uint64{pair(b16(3), b16(-0.5)), pair(b16(1.5), b16(8))}, pair(b16(4.5), b16(-4))},
		{"fma.rn.bf16", halfIn + "fma.rn.bf16 %h3, %h0, %h1, %h2;" + halfOut, []uint64{b16(1e30), b16(1e30), b16(1)}, 0x7f80},
		{"max.bf16", halfIn + "max.bf16 %h3, %h0, %h1;" + halfOut, []uint64{b16(-1), b16(-2)}, b16(-1)},
		{"mov.b32 unpack and pack", ".reg .f16 %q<3>;\n\tmov.b32 {%q0, %q1}, %w0;\n\tmov.b32 %w3, {%q1, %q0};" + out32,
			[]uint64{pair(0x1111, 0x2222)}, pair(0x2222, 0x1111)},
		{"mov.b16 of an immediate", ".reg .b16 %h3;\n\tmov.b16 %h3, 0x3C00;" + halfOut, nil, h16(1)},
	}
	for _, c := range cases {
		got, err := runSnippet(t, c.body, 1, c.in...)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, got[0], "%s: got %#x want %#x", c.name, got[0], c.want)
	}
}

func TestHalfCompareAndConvert(t *testing.T) {
	pair := func(lo, hi uint64) uint64 { return hi<<16 | lo }
	m32 := func(x int64) uint64 { return uint64(uint32(x)) }
	sel := "\n\tselp.u32 %w3, 1, 0, %p1;\n\tselp.u32 %w5, 2, 0, %p2;\n\tor.b32 %w3, %w3, %w5;" + out32
	cases := []struct {
		name string
		body string
		in   []uint64
		want uint64
	}{
		{"setp.lt.f16", halfIn + "setp.lt.f16 %p1, %h0, %h1;\n\tsetp.ne.u32 %p2, 0, 0;" + sel, []uint64{h16(1), h16(2)}, 1},
		{"setp.gtu.f16 NaN", halfIn + "setp.gtu.f16 %p1, %h0, %h1;\n\tsetp.ne.u32 %p2, 0, 0;" + sel, []uint64{0x7e00, h16(2)}, 1},
		{"setp.lt.f16x2 two predicates", "setp.lt.f16x2 %p1|%p2, %w0, %w1;" + sel,
			[]uint64{pair(h16(1), h16(3)), pair(h16(2), h16(2))}, 1},
		{"setp.ge.bf16x2", "setp.ge.bf16x2 %p1|%p2, %w0, %w1;" + sel,
			[]uint64{pair(b16(1), b16(3)), pair(b16(2), b16(2))}, 2},
		{"cvt.rn.f16.f32", "cvt.rn.f16.f32 %h3, %f0;" + halfOut, []uint64{f32b(1 + 0x1p-11)}, h16(1)},
		{"cvt.rp.f16.f32", "cvt.rp.f16.f32 %h3, %f0;" + halfOut, []uint64{f32b(1 + 0x1p-20)}, h16(1 + 0x1p-10)},
		{"cvt.rz.f16.f32 overflow", "cvt.rz.f16.f32 %h3, %f0;" + halfOut, []uint64{f32b(1e6)}, h16(65504)},
		{"cvt.rn.f16.f32 overflow", "cvt.rn.f16.f32 %h3, %f0;" + halfOut, []uint64{f32b(1e6)}, 0x7c00},
		{"cvt.rn.satfinite.f16.f32", "cvt.rn.satfinite.f16.f32 %h3, %f0;" + halfOut, []uint64{f32b(-1e6)}, h16(-65504)},
		{"cvt.rn.relu.f16.f32", "cvt.rn.relu.f16.f32 %h3, %f0;" + halfOut, []uint64{f32b(-3)}, 0},
		{"cvt.rm.f16.f64 subnormal", "cvt.rm.f16.f64 %h3, %d0;" + halfOut, []uint64{f64b(0x1.8p-24)}, 1},
		{"cvt.f32.f16", halfIn + "cvt.f32.f16 %f3, %h0;" + outF32, []uint64{h16(-0.1)}, f32b(float32(fpu.F16ToF32(uint16(h16(-0.1)))))},
		{"cvt.f64.f16 NaN", halfIn + "cvt.f64.f16 %d3, %h0;\n\tsetp.nan.f64 %p1, %d3, %d3;\n\tselp.u64 %x3, 1, 0, %p1;", []uint64{0x7e00}, 1},
		{"cvt.rzi.s32.f16", halfIn + "cvt.rzi.s32.f16 %w3, %h0;" + out32, []uint64{h16(-2.75)}, m32(-2)},
		{"cvt.rni.u8.f16 saturates", halfIn + "cvt.rni.u8.f16 %h3, %h0;" + halfOut, []uint64{h16(300)}, 255},
		{"cvt.rni.f16.f16", halfIn + "cvt.rni.f16.f16 %h3, %h0;" + halfOut, []uint64{h16(2.5)}, h16(2)},
		{"cvt.rn.f16.s32", "cvt.rn.f16.s32 %h3, %w0;" + halfOut, []uint64{m32(-2049)}, h16(-2048)},
		{"cvt.rp.f16.u64", "cvt.rp.f16.u64 %h3, %x0;" + halfOut, []uint64{2049}, h16(2050)},
		{"cvt.rn.bf16.f32", "cvt.rn.bf16.f32 %h3, %f0;" + halfOut, []uint64{f32b(1 + 0x1p-8 + 0x1p-20)}, b16(1 + 0x1p-7)},
		{"cvt.rz.bf16.f32", "cvt.rz.bf16.f32 %h3, %f0;" + halfOut, []uint64{f32b(-(1 + 0x1p-8 + 0x1p-20))}, b16(-1)},
		{"cvt.f32.bf16", halfIn + "cvt.f32.bf16 %f3, %h0;" + outF32, []uint64{0x3fc0}, f32b(1.5)},
		{"cvt.rn.bf16.f16", halfIn + "cvt.rn.bf16.f16 %h3, %h0;" + halfOut, []uint64{h16(1 + 0x1p-10)}, b16(1)},
		{"cvt.rn.f16.bf16", halfIn + "cvt.rn.f16.bf16 %h3, %h0;" + halfOut, []uint64{b16(1e10)}, 0x7c00},
		{"cvt.rn.bf16.s64", "cvt.rn.bf16.s64 %h3, %x0;" + halfOut, []uint64{1<<60 + 1<<52 + 1}, uint64(fpu.F32ToBF16(0x1.02p60, fpu.Nearest))},
		{"cvt.rn.f16x2.f32", "cvt.rn.f16x2.f32 %w3, %f0, %f1;" + out32, []uint64{f32b(1), f32b(-2)}, pair(h16(-2), h16(1))},
		{"cvt.rn.relu.bf16x2.f32", "cvt.rn.relu.bf16x2.f32 %w3, %f0, %f1;" + out32, []uint64{f32b(-1), f32b(2)}, pair(b16(2), 0)},
		{"cvt.sat.f16.f32 NaN", "cvt.rn.sat.f16.f32 %h3, %f0;" + halfOut, []uint64{f32b(float32(math.NaN()))}, 0},
	}
	for _, c := range cases {
		body := c.body
		if !strings.Contains(body, "%h<8>") {
			body = ".reg .b16 %h<8>;\n\t" + body
		}
		got, err := runSnippet(t, body, 1, c.in...)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, got[0], "%s: got %#x want %#x", c.name, got[0], c.want)
	}
}

// TestHalfAgainstFloat64 checks add, mul and fma on f16 over many inputs
// against float64, in which the f16 sums and products are exact before
// the one rounding.
func TestHalfAgainstFloat64(t *testing.T) {
	src := snippet(halfIn + "add.f16 %h3, %h0, %h1;\n\tcvt.u32.u16 %w3, %h3;\n\tmul.f16 %h4, %h0, %h1;\n\tcvt.u32.u16 %w5, %h4;\n\tshl.b32 %w5, %w5, 16;\n\tor.b32 %w3, %w3, %w5;" + out32)
	p, err := Compile(src)
	require.NoError(t, err)
	k := p.Kernels["k"]
	mem := newMem()
	out := mem.alloc(8)
	for a := uint64(0); a < 0x10000; a += 0x1f3 {
		for b := uint64(0); b < 0x10000; b += 0x2e1 {
			buf := params(t, k, out, a, b, uint64(0))
			require.NoError(t, k.Run(&Launch{Grid: dim(1), Block: dim(1), Params: buf, Mem: mem}))
			got := mem.bytes(out)
			x, y := float64(fpu.F16ToF32(uint16(a))), float64(fpu.F16ToF32(uint16(b)))
			sum, prod := uint64(got[0])|uint64(got[1])<<8, uint64(got[2])|uint64(got[3])<<8
			if x != x || y != y || math.IsInf(x, 0) && math.IsInf(y, 0) {
				continue
			}
			require.Equal(t, h16(x+y), sum, "%#x + %#x", a, b)
			require.Equal(t, h16(x*y), prod, "%#x * %#x", a, b)
		}
	}
}
