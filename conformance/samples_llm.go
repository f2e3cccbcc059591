package conformance

import (
	"math"
	"testing"

	"github.com/nocgo/cuda/conformance/samples"
	"github.com/nocgo/cuda/module"
)

// llm.c's shapes for the group: B batches of T tokens of C channels, a
// vocabulary of V, OC output channels.
const (
	llmB, llmT, llmC, llmV, llmOC = 2, 5, 48, 37, 24
)

// llmInputs returns the float inputs of the llm cases: n values of a
// smooth function with rounding in every operation.
func llmInputs(n int, phase float64) []float32 {
	f := make([]float32, n)
	for i := range f {
		f[i] = float32(math.Sin(float64(i)*0.37+phase)*1.7 + math.Cos(float64(i)*0.05)*0.3)
	}
	return f
}

// llmTokens returns B*T token ids below V.
func llmTokens() []int32 {
	inp := make([]int32, llmB*llmT)
	for i := range inp {
		inp[i] = int32((i*11 + 3) % llmV)
	}
	return inp
}

// withinULPs reports the first element further than bound ulp from want.
func withinULPs(t *testing.T, what string, got, want []float32, bound int64) {
	t.Helper()
	for i := range want {
		if d := samples.ULPs(got[i], want[i]); d > bound {
			t.Errorf("%s[%d] = %v, want %v within %d ulp (%d apart)", what, i, got[i], want[i], bound, d)
			return
		}
	}
}

// testSampleLLM runs llm.c's float forward kernels: exact, but softmax
// (8 ulp: expf's 2 ulp through the sum and the division) and GELU
// (samples.GELUBound).
func testSampleLLM(t *testing.T, r sampleRig) {
	m := r.compile(t, "samples_llm.cu", samples.LLMSource, module.Options{Flags: samples.LLMFlags})
	BT := llmB * llmT
	t.Run("encoder-forward", func(t *testing.T) {
		wte, wpe, inp := llmInputs(llmV*llmC, 0), llmInputs(llmT*llmC, 1), llmTokens()
		dout := deviceCopy(t, r.ctx, make([]float32, BT*llmC))
		must(t, fn(t, m, samples.EncoderForward).Launch(r.s, module.Config{Grid: module.Dim((BT*llmC + 127) / 128), Block: module.Dim(128)},
			dout, deviceCopy(t, r.ctx, wte), deviceCopy(t, r.ctx, wpe), deviceCopy(t, r.ctx, inp), int32(llmB), int32(llmT), int32(llmC)))
		sameFloats(t, "out", hostCopy(t, r.s, dout), samples.EncoderForwardRef(wte, wpe, inp, llmB, llmT, llmC))
	})
	t.Run("layernorm-forward", func(t *testing.T) {
		inp, w, b := llmInputs(BT*llmC, 2), llmInputs(llmC, 3), llmInputs(llmC, 4)
		dout := deviceCopy(t, r.ctx, make([]float32, BT*llmC))
		dmean, drstd := deviceCopy(t, r.ctx, make([]float32, BT)), deviceCopy(t, r.ctx, make([]float32, BT))
		must(t, fn(t, m, samples.LayerNormForward).Launch(r.s, module.Config{Grid: module.Dim(1), Block: module.Dim(32)},
			dout, dmean, drstd, deviceCopy(t, r.ctx, inp), deviceCopy(t, r.ctx, w), deviceCopy(t, r.ctx, b), int32(BT), int32(llmC)))
		out, mean, rstd := samples.LayerNormForwardRef(inp, w, b, BT, llmC)
		sameFloats(t, "mean", hostCopy(t, r.s, dmean), mean)
		sameFloats(t, "rstd", hostCopy(t, r.s, drstd), rstd)
		sameFloats(t, "out", hostCopy(t, r.s, dout), out)
	})
	t.Run("matmul-forward", func(t *testing.T) {
		inp, w, b := llmInputs(BT*llmC, 5), llmInputs(llmOC*llmC, 6), llmInputs(llmOC, 7)
		dout := deviceCopy(t, r.ctx, make([]float32, BT*llmOC))
		cfg := module.Config{Grid: module.Dim((BT+7)/8, (llmOC+7)/8), Block: module.Dim(8, 8)}
		must(t, fn(t, m, samples.MatmulForward).Launch(r.s, cfg,
			dout, deviceCopy(t, r.ctx, inp), deviceCopy(t, r.ctx, w), deviceCopy(t, r.ctx, b), int32(BT), int32(llmC), int32(llmOC)))
		sameFloats(t, "out", hostCopy(t, r.s, dout), samples.MatmulForwardRef(inp, w, b, BT, llmC, llmOC))
	})
	t.Run("softmax-forward-online", func(t *testing.T) {
		inp := llmInputs(BT*llmC, 8)
		for i := range inp {
			inp[i] *= 4 // a spread of exponents
		}
		dout := deviceCopy(t, r.ctx, make([]float32, BT*llmC))
		must(t, fn(t, m, samples.SoftmaxForwardOnline).Launch(r.s, module.Config{Grid: module.Dim(1), Block: module.Dim(32)},
			dout, deviceCopy(t, r.ctx, inp), int32(BT), int32(llmC)))
		withinULPs(t, "out", hostCopy(t, r.s, dout), samples.SoftmaxForwardRef(inp, BT, llmC), 8)
	})
	t.Run("row-mean-block", func(t *testing.T) {
		// llm.c's block-wide reduction: every lane of a warp stores the
		// warp's sum to one shared word; row lengths that leave warps and
		// lanes idle, at block sizes llm.c's dev files loop over.
		for _, C := range []int{48, 769} {
			inp := llmInputs(4*C, 9)
			for _, block := range []int{32, 128, 1024} {
				dout := deviceCopy(t, r.ctx, make([]float32, 4))
				must(t, fn(t, m, samples.RowMeanBlock).Launch(r.s, module.Config{Grid: module.Dim(4), Block: module.Dim(block)},
					dout, deviceCopy(t, r.ctx, inp), int32(4), int32(C)))
				sameFloats(t, "mean", hostCopy(t, r.s, dout), samples.RowMeanBlockRef(inp, 4, C, block))
			}
		}
	})
	t.Run("gelu-forward", func(t *testing.T) {
		const n = 1000
		inp := make([]float32, n)
		for i := range inp {
			inp[i] = float32(i-500) / 64 // -7.8 .. 7.8
		}
		dout := deviceCopy(t, r.ctx, make([]float32, n))
		must(t, fn(t, m, samples.GELUForward).Launch(r.s, module.Config{Grid: module.Dim((n + 127) / 128), Block: module.Dim(128)},
			dout, deviceCopy(t, r.ctx, inp), int32(n)))
		got := hostCopy(t, r.s, dout)
		for i, x := range inp {
			if d := math.Abs(float64(got[i]) - float64(samples.GELURef(x))); d > samples.GELUBound(x) {
				t.Errorf("gelu(%v) = %v, want %v within %g", x, got[i], samples.GELURef(x), samples.GELUBound(x))
				break
			}
		}
	})
}
