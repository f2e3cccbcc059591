package ptxexec

import (
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
