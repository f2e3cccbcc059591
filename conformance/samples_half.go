package conformance

import (
	"math"
	"testing"

	"github.com/nocgo/cuda/conformance/samples"
	"github.com/nocgo/cuda/module"
)

// halfModule compiles samples.HalfSource with CUDA's headers, or skips.
func halfModule(t *testing.T, r sampleRig) *module.Module {
	return r.compile(t, "samples_half.cu", samples.HalfSource, module.Options{IncludePaths: cudaHeaders(t), Flags: samples.LLMFlags})
}

// testSampleHalfDot runs fp16ScalarProduct's algorithm with half2
// intrinsics, exact: every __hfma2 and __hadd2 rounds once, in a fixed
// order that samples.HalfDotSums repeats.
func testSampleHalfDot(t *testing.T, r sampleRig) {
	m := halfModule(t, r)
	const n, grid = 3000, 8
	a, b := make([]uint32, n), make([]uint32, n)
	for i := range a {
		// Multiples of 1/16 in -2..2: a*b+c of these is exact in float64.
		lo := func(k int) uint32 { return uint32(samples.HalfRound(float64((k*37+11)%65-32)/16, 0)) }
		a[i] = lo(2*i) | lo(2*i+1)<<16
		b[i] = lo(3*i+5) | lo(5*i+2)<<16
	}
	dout := deviceCopy(t, r.ctx, make([]float32, grid))
	must(t, fn(t, m, samples.HalfDot).Launch(r.s, module.Config{Grid: module.Dim(grid), Block: module.Dim(samples.HalfDotBlock)},
		deviceCopy(t, r.ctx, a), deviceCopy(t, r.ctx, b), dout, int32(n)))
	sameFloats(t, "block sums", hostCopy(t, r.s, dout), samples.HalfDotSums(a, b, grid))
}

// bf16s returns f rounded to bf16.
func bf16s(f []float32) []uint16 {
	out := make([]uint16, len(f))
	for i, v := range f {
		out[i] = samples.BF16Round(v)
	}
	return out
}

// widen returns the floats of bf16 values.
func widen(b []uint16) []float32 {
	out := make([]float32, len(b))
	for i, v := range b {
		out[i] = samples.BF16ToFloat(v)
	}
	return out
}

// testSampleLLMBF16 runs llm.c's kernels on bf16 (float arithmetic
// inside): exact, but GELU (one bf16 ulp: tanhf's error may cross a
// rounding boundary).
func testSampleLLMBF16(t *testing.T, r sampleRig) {
	m := halfModule(t, r)
	BT := llmB * llmT
	t.Run("encoder-forward", func(t *testing.T) {
		wte, wpe, inp := bf16s(llmInputs(llmV*llmC, 0)), bf16s(llmInputs(llmT*llmC, 1)), llmTokens()
		dout := deviceCopy(t, r.ctx, make([]uint16, BT*llmC))
		must(t, fn(t, m, samples.EncoderForwardBF16).Launch(r.s, module.Config{Grid: module.Dim((BT*llmC + 127) / 128), Block: module.Dim(128)},
			dout, deviceCopy(t, r.ctx, wte), deviceCopy(t, r.ctx, wpe), deviceCopy(t, r.ctx, inp), int32(llmB), int32(llmT), int32(llmC)))
		sameInts(t, "out", hostCopy(t, r.s, dout), bf16s(samples.EncoderForwardRef(widen(wte), widen(wpe), inp, llmB, llmT, llmC)))
	})
	t.Run("layernorm-forward", func(t *testing.T) {
		inp, w, b := bf16s(llmInputs(BT*llmC, 2)), bf16s(llmInputs(llmC, 3)), bf16s(llmInputs(llmC, 4))
		dout := deviceCopy(t, r.ctx, make([]uint16, BT*llmC))
		dmean, drstd := deviceCopy(t, r.ctx, make([]float32, BT)), deviceCopy(t, r.ctx, make([]float32, BT))
		must(t, fn(t, m, samples.LayerNormForwardBF16).Launch(r.s, module.Config{Grid: module.Dim(1), Block: module.Dim(32)},
			dout, dmean, drstd, deviceCopy(t, r.ctx, inp), deviceCopy(t, r.ctx, w), deviceCopy(t, r.ctx, b), int32(BT), int32(llmC)))
		out, mean, rstd := samples.LayerNormForwardRef(widen(inp), widen(w), widen(b), BT, llmC)
		sameFloats(t, "mean", hostCopy(t, r.s, dmean), mean)
		sameFloats(t, "rstd", hostCopy(t, r.s, drstd), rstd)
		sameInts(t, "out", hostCopy(t, r.s, dout), bf16s(out))
	})
	t.Run("matmul-forward", func(t *testing.T) {
		inp, w, b := bf16s(llmInputs(BT*llmC, 5)), bf16s(llmInputs(llmOC*llmC, 6)), bf16s(llmInputs(llmOC, 7))
		dout := deviceCopy(t, r.ctx, make([]uint16, BT*llmOC))
		cfg := module.Config{Grid: module.Dim((BT+7)/8, (llmOC+7)/8), Block: module.Dim(8, 8)}
		must(t, fn(t, m, samples.MatmulForwardBF16).Launch(r.s, cfg,
			dout, deviceCopy(t, r.ctx, inp), deviceCopy(t, r.ctx, w), deviceCopy(t, r.ctx, b), int32(BT), int32(llmC), int32(llmOC)))
		sameInts(t, "out", hostCopy(t, r.s, dout), bf16s(samples.MatmulForwardRef(widen(inp), widen(w), widen(b), BT, llmC, llmOC)))
	})
	t.Run("gelu-forward", func(t *testing.T) {
		const n = 1000
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(i-500) / 64
		}
		inp := bf16s(x)
		dout := deviceCopy(t, r.ctx, make([]uint16, n))
		must(t, fn(t, m, samples.GELUForwardBF16).Launch(r.s, module.Config{Grid: module.Dim((n + 127) / 128), Block: module.Dim(128)},
			dout, deviceCopy(t, r.ctx, inp), int32(n)))
		got := hostCopy(t, r.s, dout)
		for i, v := range inp {
			want := samples.BF16Round(samples.GELURef(samples.BF16ToFloat(v)))
			if d := int(int16(got[i])) - int(int16(want)); d > 1 || d < -1 || math.Signbit(float64(samples.BF16ToFloat(got[i]))) != math.Signbit(float64(samples.BF16ToFloat(want))) && samples.BF16ToFloat(want) != 0 {
				t.Errorf("gelu(%v) = %#04x, want %#04x within one bf16 ulp", samples.BF16ToFloat(v), got[i], want)
				break
			}
		}
	})
}
