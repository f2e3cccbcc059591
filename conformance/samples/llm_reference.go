package samples

import "math"

// The references of llm.c's kernels repeat them operation by operation in
// float32, each product and sum rounded on its own (the kernels compile
// with --fmad=false; every product below is converted to float32 before
// it is added, so that Go fuses nothing either). Division and square root
// are correctly rounded on both sides; expf and tanhf are CUDA's library
// functions (2 ulp), which the references take as the correctly rounded
// float32 of math.Exp and math.Tanh: those results are within a bound, not
// bit for bit.

// EncoderForwardRef is the reference of EncoderForward (exact).
func EncoderForwardRef(wte, wpe []float32, inp []int32, B, T, C int) []float32 {
	out := make([]float32, B*T*C)
	for bt := range B * T {
		t := bt % T
		for c := range C {
			out[bt*C+c] = wte[int(inp[bt])*C+c] + wpe[t*C+c]
		}
	}
	return out
}

// LayerNormForwardRef is the reference of LayerNormForward (exact): out,
// mean and rstd.
func LayerNormForwardRef(inp, weight, bias []float32, N, C int) (out, mean, rstd []float32) {
	out, mean, rstd = make([]float32, N*C), make([]float32, N), make([]float32, N)
	for r := range N {
		x := inp[r*C : (r+1)*C]
		var m float32
		for _, v := range x {
			m += v
		}
		m /= float32(C)
		var v float32
		for _, xi := range x {
			d := xi - m
			v += float32(d * d)
		}
		v /= float32(C)
		s := 1 / float32(math.Sqrt(float64(v+float32(LayerNormEps))))
		for i, xi := range x {
			n := float32(s * (xi - m))
			out[r*C+i] = float32(n*weight[i]) + bias[i]
		}
		mean[r], rstd[r] = m, s
	}
	return out, mean, rstd
}

// MatmulForwardRef is the reference of MatmulForward (exact).
func MatmulForwardRef(inp, weight, bias []float32, BT, C, OC int) []float32 {
	out := make([]float32, BT*OC)
	for bt := range BT {
		for oc := range OC {
			val := bias[oc]
			for i := range C {
				val += float32(inp[bt*C+i] * weight[oc*C+i])
			}
			out[bt*OC+oc] = val
		}
	}
	return out
}

// expf is the correctly rounded float32 exponential.
// RowMeanBlockRef is the reference of RowMeanBlock launched with block
// threads a block (exact: the strided sums, the butterflies and the
// division repeated in order).
func RowMeanBlockRef(inp []float32, N, C, block int) []float32 {
	butterfly := func(v *[32]float32) float32 {
		for offset := 16; offset > 0; offset /= 2 {
			var next [32]float32
			for l := range v {
				next[l] = v[l] + v[l^offset]
			}
			*v = next
		}
		return v[0]
	}
	out := make([]float32, N)
	for r := range N {
		x := inp[r*C : r*C+C]
		var warpSums [32]float32
		for w := range block / 32 {
			var lanes [32]float32
			for l := range lanes {
				for i := w*32 + l; i < C; i += block {
					lanes[l] += x[i]
				}
			}
			warpSums[w] = butterfly(&lanes)
		}
		out[r] = butterfly(&warpSums) / float32(C)
	}
	return out
}

func expf(x float32) float32 { return float32(math.Exp(float64(x))) }

// SoftmaxForwardRef is the reference of SoftmaxForwardOnline, with
// correctly rounded exponentials (CUDA's expf is within 2 ulp of them).
func SoftmaxForwardRef(inp []float32, N, C int) []float32 {
	out := make([]float32, N*C)
	for r := range N {
		x := inp[r*C : (r+1)*C]
		maxval := float32(math.Inf(-1))
		var sum float32
		for _, v := range x {
			if v > maxval {
				sum = float32(sum*expf(maxval-v)) + 1
				maxval = v
			} else {
				sum += expf(v - maxval)
			}
		}
		for j, v := range x {
			out[r*C+j] = expf(v-maxval) / sum
		}
	}
	return out
}

// geluScale is sqrtf(2/pi) as the kernels compute it.
var geluScale = float32(math.Sqrt(float64(float32(2) / float32(math.Pi))))

// GELURef is GELU's tanh form of one float as the kernel computes it, with
// a correctly rounded tanh (CUDA's tanhf is within 2 ulp of it).
func GELURef(x float32) float32 {
	cube := float32(float32(float32(float32(0.044715)*x)*x) * x)
	t := float32(math.Tanh(float64(float32(geluScale * (x + cube)))))
	return float32(float32(0.5)*x) * (1 + t)
}

// GELUBound is how far (in absolute value) GELUForward's result may lie
// from GELURef(x): 4 ulp of the result for the float operations around
// tanhf, plus the result's sensitivity to tanhf's own 2-ulp error near 1,
// 0.5*|x|*2 ulp(1), which dominates where 1+tanh cancels.
func GELUBound(x float32) float64 {
	r := float32(math.Abs(float64(GELURef(x))))
	ulp := float64(math.Nextafter32(r, float32(math.Inf(1))) - r)
	return 4*ulp + 0.5*math.Abs(float64(x))*2*0x1p-23
}
