// Package segscale is the segment_scale example kernel, shared by
// cmd/cudainfo's self-test, the module package's tests and the conformance
// suite: its CUDA source, a Go reference implementation, and Run, the
// self-test of the run-time workflow. It knows no implementation: its Go
// body for the fake driver is in package
// [github.com/nocgo/cuda/cudatest/fakekernels].
//
// segment_scale(out, in, n) writes out[i] for every i < n: with q = n/4
// (integer division), in[i]*0.5 for i < q (the first quarter), in[i]*2 for
// i >= n-q (the last quarter), in[i] unchanged between. Multiplying a
// float32 by 0.5 or 2 is exact (barring underflow to subnormals), so a GPU
// must match Reference bit for bit.
package segscale

// Name is the kernel's name (extern "C").
const Name = "segment_scale"

// Source is the kernel's CUDA C++ source.
const Source = `extern "C" __global__ void segment_scale(float* out, const float* in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int q = n / 4;
    float v = in[i];
    if (i < q) {
        v *= 0.5f;
    } else if (i >= n - q) {
        v *= 2.0f;
    }
    out[i] = v;
}
`

// Scale returns the factor segment_scale applies at index i of n.
func Scale(i, n int) float32 {
	q := n / 4
	switch {
	case i < q:
		return 0.5
	case i >= n-q:
		return 2
	}
	return 1
}

// Reference computes segment_scale on the host: out[i] for every i below
// len(in) (out must be at least as long).
func Reference(out, in []float32) {
	n := len(in)
	for i, v := range in {
		out[i] = v * Scale(i, n)
	}
}

// Input returns a deterministic input of n values: varied magnitudes and
// signs, with fractions, none of them so small that halving underflows.
func Input(n int) []float32 {
	in := make([]float32, n)
	for i := range in {
		v := float32(i%1000) + float32(i%7)*0.125
		if i%3 == 1 {
			v = -v
		}
		in[i] = v + 0.5
	}
	return in
}
