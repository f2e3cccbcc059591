package ptxexec

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/fake/internal/fpu"
)

// TestFullWarpFma: a full warp's fma.rn.f32 (the 32-lane loop of
// runFull) gives fpu's correctly rounded result for every lane, on a
// float32 midpoint that float64 rounding creates (where float32(math.FMA)
// is wrong), on NaN, infinities, zeros, subnormals and random bits.
func TestFullWarpFma(t *testing.T) {
	p, mem := load(t, "90")
	k := p.Kernels["axpy"]
	// a*x = 2^-24 - 2^-70 exactly; + y = 1 + 2^-23 rounds in float64 to
	// the float32 midpoint 1 + 3*2^-24, which ties to even upwards, while
	// the exact value lies below it.
	a := float32(math.Ldexp(1-math.Ldexp(1, -23), -12))
	x := float32(math.Ldexp(1+math.Ldexp(1, -23), -12))
	y := float32(1 + math.Ldexp(1, -23))
	want := fpu.FmaF32(a, x, y, fpu.Nearest)
	require.NotEqual(t, float32(math.FMA(float64(a), float64(x), float64(y))), want, "the case must be one where double rounding is wrong")
	rng := rand.New(rand.NewPCG(1, 2))
	special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)),
		math.Float32frombits(1), math.Float32frombits(0x807fffff), math.MaxFloat32, -math.MaxFloat32}
	for _, av := range []float32{a, 2, -1.5, math.Float32frombits(rng.Uint32()), 1e-30} {
		const n = 256
		xs, ys := make([]float32, n), make([]float32, n)
		for i := range xs {
			xs[i], ys[i] = math.Float32frombits(rng.Uint32()), math.Float32frombits(rng.Uint32())
			if i%7 == 0 {
				ys[i] = float32(rng.NormFloat64())
				xs[i] = float32(rng.NormFloat64())
			}
		}
		xs[0], ys[0] = x, y
		for i, s := range special {
			xs[1+i], ys[40+i] = s, s
		}
		px, py, out := mem.f32s(xs), mem.f32s(ys), mem.alloc(4*n)
		buf := params(t, k, av, px, py, out, int32(n))
		require.NoError(t, k.Run(&Launch{Grid: dim(n / 64), Block: dim(64), Params: buf, Mem: mem}))
		got := mem.readF32(out, n)
		for i := range got {
			w := fpu.FmaF32(av, xs[i], ys[i], fpu.Nearest)
			require.Equal(t, math.Float32bits(w), math.Float32bits(got[i]), "a %v x %v y %v (element %d)", av, xs[i], ys[i], i)
		}
	}
}

// TestFullWarpFaults: when one lane of a full warp loads or stores past
// its allocation, the fault names that lane's thread and address (the
// warp's one-check path falls back to lane by lane), the lanes before it
// stored their elements and the lanes after it did not.
func TestFullWarpFaults(t *testing.T) {
	p, mem := load(t, "90")
	k := p.Kernels["axpy"]
	ones := make([]float32, 32)
	for i := range ones {
		ones[i] = 1
	}
	t.Run("store", func(t *testing.T) {
		px, py, out := mem.f32s(ones), mem.f32s(ones), mem.alloc(4*17)
		err := k.Run(&Launch{Grid: dim(1), Block: dim(32), Params: packAxpy(k, px, py, out, 32), Mem: mem})
		var f *Fault
		require.True(t, errors.As(err, &f), "%v", err)
		assert.Equal(t, CodeIllegalAddress, f.Code)
		assert.Equal(t, [3]uint32{17, 0, 0}, f.Thread)
		assert.Equal(t, out+4*17, f.Addr)
		assert.Contains(t, f.Instr, "st.global.f32")
		got := mem.readF32(out, 17)
		assert.Equal(t, float32(3), got[16])
	})
	t.Run("load", func(t *testing.T) {
		px, py, out := mem.f32s(ones[:20]), mem.f32s(ones), mem.alloc(4*32)
		err := k.Run(&Launch{Grid: dim(1), Block: dim(32), Params: packAxpy(k, px, py, out, 32), Mem: mem})
		var f *Fault
		require.True(t, errors.As(err, &f), "%v", err)
		assert.Equal(t, CodeIllegalAddress, f.Code)
		assert.Equal(t, [3]uint32{20, 0, 0}, f.Thread)
		assert.Equal(t, px+4*20, f.Addr)
		assert.Contains(t, f.Instr, "ld.global.f32")
		assert.Equal(t, make([]float32, 32), mem.readF32(out, 32), "nothing stored: the warp faulted at a load")
	})
	t.Run("misaligned", func(t *testing.T) {
		px, py, out := mem.f32s(ones), mem.f32s(ones), mem.alloc(4*33)
		err := k.Run(&Launch{Grid: dim(1), Block: dim(32), Params: packAxpy(k, px, py, out+2, 32), Mem: mem})
		var f *Fault
		require.True(t, errors.As(err, &f), "%v", err)
		assert.Equal(t, CodeMisalignedAddress, f.Code)
		assert.Equal(t, [3]uint32{0, 0, 0}, f.Thread)
		assert.Equal(t, out+2, f.Addr)
	})
}

// TestFullWarpNegativeBound: setp.ge.s32 of the full warp compares
// signed: with a bound of -1 every thread is past it and nothing is
// written.
func TestFullWarpNegativeBound(t *testing.T) {
	p, mem := load(t, "90")
	k := p.Kernels["axpy"]
	px, py, out := mem.f32s(make([]float32, 64)), mem.f32s(make([]float32, 64)), mem.f32s(make([]float32, 64))
	buf := params(t, k, float32(2), px, py, out, int32(-1))
	require.NoError(t, k.Run(&Launch{Grid: dim(2), Block: dim(32), Params: buf, Mem: mem}))
	assert.Equal(t, make([]float32, 64), mem.readF32(out, 64))
}

// TestFullWarpWidths: the full-warp loads and stores of every width
// (signed 8- and 16-bit loads extended, 64-bit, a shared round trip, a
// byte store) give what lane-by-lane execution gives: blocks of 64 (full
// warps) and of 48 (a partial warp) write the same.
func TestFullWarpWidths(t *testing.T) {
	src := header + `.visible .entry k(.param .u64 in8, .param .u64 in16, .param .u64 in64, .param .u64 out)
{
	.reg .b64 %rd<20>;
	.reg .b32 %r<10>;
	.reg .b16 %rs<4>;
	.shared .align 8 .b8 sh[512];
	ld.param.u64 %rd1, [in8];
	ld.param.u64 %rd2, [in16];
	ld.param.u64 %rd3, [in64];
	ld.param.u64 %rd4, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r5, %ctaid.x;
	mov.u32 %r6, %ntid.x;
	mad.lo.s32 %r7, %r5, %r6, %r1;
	cvt.u64.u32 %rd5, %r7;
	add.s64 %rd6, %rd1, %rd5;
	ld.global.s8 %r2, [%rd6];
	shl.b64 %rd7, %rd5, 1;
	add.s64 %rd8, %rd2, %rd7;
	ld.global.s16 %r3, [%rd8];
	shl.b64 %rd9, %rd5, 3;
	add.s64 %rd10, %rd3, %rd9;
	ld.global.u64 %rd11, [%rd10];
	cvt.u64.u32 %rd12, %r1;
	shl.b64 %rd12, %rd12, 1;
	mov.u64 %rd13, sh;
	add.s64 %rd13, %rd13, %rd12;
	cvt.u16.u32 %rs1, %r3;
	st.shared.u16 [%rd13], %rs1;
	bar.sync 0;
	ld.shared.s16 %r4, [%rd13];
	cvt.s64.s32 %rd14, %r2;
	cvt.s64.s32 %rd15, %r4;
	add.s64 %rd16, %rd14, %rd15;
	add.s64 %rd17, %rd16, %rd11;
	add.s64 %rd18, %rd4, %rd9;
	st.global.u64 [%rd18], %rd17;
	add.s64 %rd19, %rd4, 1536;
	add.s64 %rd19, %rd19, %rd5;
	cvt.u16.u32 %rs2, %r2;
	st.global.u8 [%rd19], %rs2;
	ret;
}
`
	p, err := Compile(src)
	require.NoError(t, err)
	const n = 192
	rng := rand.New(rand.NewPCG(3, 4))
	in8, in16, in64 := make([]byte, n), make([]byte, 2*n), make([]byte, 8*n)
	for i := range n {
		in8[i] = byte(rng.Uint32())
		binary.LittleEndian.PutUint16(in16[2*i:], uint16(rng.Uint32()))
		binary.LittleEndian.PutUint64(in64[8*i:], rng.Uint64())
	}
	for _, block := range []uint32{64, 48} {
		mem := newMem()
		p8, p16, p64, out := mem.alloc(n), mem.alloc(2*n), mem.alloc(8*n), mem.alloc(1536+n)
		copy(mem.bytes(p8), in8)
		copy(mem.bytes(p16), in16)
		copy(mem.bytes(p64), in64)
		require.NoError(t, run(t, p, mem, "k", dim(n/block), dim(block), 0, p8, p16, p64, out))
		got := mem.bytes(out)
		for i := range n {
			want := int64(int8(in8[i])) + int64(int16(binary.LittleEndian.Uint16(in16[2*i:]))) + int64(binary.LittleEndian.Uint64(in64[8*i:]))
			require.Equal(t, uint64(want), binary.LittleEndian.Uint64(got[8*i:]), "block %d, element %d", block, i)
			require.Equal(t, in8[i], got[1536+i], "block %d, byte %d", block, i)
		}
	}
}
