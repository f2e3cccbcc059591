package samples

// The shuffles NVIDIA's reduction sample makes from lanes that take no
// part: CUDA leaves what they read undefined, the H200 reads 0 (from a
// lane outside the member mask and from a lane with no thread alike), and
// the sample's reduce7 and its reductions on blocks under 32 threads are
// right only because of it. The kernels take (in, out []float32) with
// in[i] = i+1 ([ShuffleInput]).
const (
	// ShuffleOutsideMask: one warp; lanes 0..7 add __shfl_down_sync(0xff,
	// v, 16) to their value, reading lanes 16..23, which exist but are
	// outside the mask and do not execute it. Every thread stores its
	// result.
	ShuffleOutsideMask = "smp_shfl_outside_mask"
	// ShuffleMissingLanes: a block of 8 threads; every thread adds
	// __shfl_down_sync(0xffffffff, v, 4), lanes 4..7 reading lanes with
	// no thread.
	ShuffleMissingLanes = "smp_shfl_missing_lanes"
	// ShuffleReduce7 is reduce7's block reduction on one block of 256
	// threads: each warp's sum by full-warp shuffles, then warp 0's first
	// 8 lanes add the 8 sums by shuffles from offset 16 under the ballot of
	// those lanes. out[0] is the block's sum.
	ShuffleReduce7 = "smp_shfl_reduce7_block"
)

// ShuffleOutsideSource is the CUDA C of the shuffle kernels. It includes
// no header.
const ShuffleOutsideSource = `
extern "C" __global__ void smp_shfl_outside_mask(const float* in, float* out)
{
    float v = in[threadIdx.x];
    float a = v;
    if (threadIdx.x % 32 < 8)
        a += __shfl_down_sync(0xffu, v, 16);
    out[threadIdx.x] = a;
}

extern "C" __global__ void smp_shfl_missing_lanes(const float* in, float* out)
{
    float v = in[threadIdx.x];
    out[threadIdx.x] = v + __shfl_down_sync(0xffffffffu, v, 4);
}

extern "C" __global__ void smp_shfl_reduce7_block(const float* in, float* out)
{
    __shared__ float sdata[8];
    unsigned int tid = threadIdx.x;
    float sum = in[tid];
    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (tid % 32 == 0) sdata[tid / 32] = sum;
    __syncthreads();
    unsigned int ballot = __ballot_sync(0xffffffffu, tid < 8);
    if (tid < 8) {
        sum = sdata[tid];
        for (int offset = 16; offset > 0; offset /= 2)
            sum += __shfl_down_sync(ballot, sum, offset);
    }
    if (tid == 0) out[0] = sum;
}
`

// ShuffleInput returns the kernels' input of n elements: 1, 2, ..., n.
func ShuffleInput(n int) []float32 {
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i + 1)
	}
	return in
}

// ShuffleOutsideMaskWant is what the H200 stores in ShuffleOutsideMask's
// 32 outputs: every value unchanged (the 8 shuffles read 0).
func ShuffleOutsideMaskWant() []float32 { return ShuffleInput(32) }

// ShuffleMissingLanesWant is what the H200 stores in ShuffleMissingLanes'
// 8 outputs: v + v[lane+4] for lanes 0..3, v for lanes 4..7 (they read 0).
func ShuffleMissingLanesWant() []float32 {
	in := ShuffleInput(8)
	out := make([]float32, 8)
	for i := range out {
		out[i] = in[i]
		if i+4 < 8 {
			out[i] += in[i+4]
		}
	}
	return out
}

// ShuffleReduce7Want is ShuffleReduce7's out[0]: 1+2+...+256, exact in
// float32 whatever the order.
func ShuffleReduce7Want() float32 { return 256 * 257 / 2 }
