package samples

// LLMFlags are the NVRTC flags LLMSource and HalfSource are compiled with:
// no contraction of a*b+c into fma, so that each float operation of the
// kernels rounds on its own, as the Go references do.
var LLMFlags = []string{"--fmad=false"}

// LayerNormEps is the epsilon of the layernorm kernels, as llm.c's.
const LayerNormEps = 1e-5

// Names of LLMSource's kernels, from llm.c's forward kernels (their
// "kernel1"/"kernel2" forms: one thread an output or a row).
const (
	// EncoderForward is out[b,t,c] = wte[inp[b,t],c] + wpe[t,c]. Launch it
	// with (out, wte, wpe []float32, inp []int32, int32(B), int32(T),
	// int32(C)), one thread an element of out.
	EncoderForward = "smp_encoder_forward"
	// LayerNormForward normalises each row of C floats of inp (mean and
	// reciprocal standard deviation, both written out), then scales by
	// weight and shifts by bias. Launch it with (out, mean, rstd, inp,
	// weight, bias []float32, int32(N), int32(C)), one thread a row.
	LayerNormForward = "smp_layernorm_forward"
	// MatmulForward is out[bt,oc] = bias[oc] + sum_i inp[bt,i]*weight[oc,i]
	// (weight is OC rows of C). Launch it with (out, inp, weight, bias
	// []float32, int32(BT), int32(C), int32(OC)) on a 2D grid: x over BT,
	// y over OC.
	MatmulForward = "smp_matmul_forward"
	// SoftmaxForwardOnline is the online softmax of each row of C floats
	// (one pass for the maximum and the rescaled sum, then one for the
	// outputs). Launch it with (out, inp []float32, int32(N), int32(C)),
	// one thread a row.
	SoftmaxForwardOnline = "smp_softmax_forward_online"
	// GELUForward is GELU's tanh approximation, element by element. Launch
	// it with (out, inp []float32, int32(n)).
	GELUForward = "smp_gelu_forward"
	// RowMeanBlock is the mean of each row of C floats of inp, one block a
	// row, as llm.c's block-wide reductions (layernorm_forward_kernel5)
	// compute it: each thread sums a strided slice, a warp adds its lanes'
	// sums by a shfl.xor butterfly (every lane ends with the same value),
	// every lane stores that value to shared[warp] (the same value from
	// 32 lanes: no race), and after a barrier warp 0's butterfly adds the
	// warps' sums. Launch it with (out, inp []float32, int32(N), int32(C))
	// on N blocks of a multiple of 32 threads, at most 1024.
	RowMeanBlock = "smp_row_mean_block"
)

// LLMSource is the CUDA C of llm.c's float kernels above. It needs no
// header; compile it with LLMFlags.
const LLMSource = `#define GELU_SCALING_FACTOR sqrtf(2.0f / 3.14159265358979323846f)

extern "C" __global__ void smp_encoder_forward(float* out, const float* wte, const float* wpe, const int* inp,
                                               int B, int T, int C)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < B * T * C) {
        int bt = idx / C, t = bt % T, c = idx % C;
        int ix = inp[bt];
        out[idx] = wte[ix * C + c] + wpe[t * C + c];
    }
}

extern "C" __global__ void smp_layernorm_forward(float* out, float* mean, float* rstd, const float* inp,
                                                 const float* weight, const float* bias, int N, int C)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= N) return;
    const float* x = inp + idx * C;
    float m = 0.0f;
    for (int i = 0; i < C; i++) m += x[i];
    m = m / C;
    float v = 0.0f;
    for (int i = 0; i < C; i++) {
        float d = x[i] - m;
        v += d * d;
    }
    v = v / C;
    float s = 1.0f / sqrtf(v + 1e-5f);
    float* o = out + idx * C;
    for (int i = 0; i < C; i++) {
        float n = s * (x[i] - m);
        o[i] = n * weight[i] + bias[i];
    }
    mean[idx] = m;
    rstd[idx] = s;
}

extern "C" __global__ void smp_matmul_forward(float* out, const float* inp, const float* weight, const float* bias,
                                              int BT, int C, int OC)
{
    int bt = blockIdx.x * blockDim.x + threadIdx.x;
    int oc = blockIdx.y * blockDim.y + threadIdx.y;
    if (bt < BT && oc < OC) {
        float val = bias != 0 ? bias[oc] : 0.0f;
        const float* a = inp + bt * C;
        const float* w = weight + oc * C;
        for (int i = 0; i < C; i++) val += a[i] * w[i];
        out[bt * OC + oc] = val;
    }
}

extern "C" __global__ void smp_softmax_forward_online(float* out, const float* inp, int N, int C)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    const float* x = inp + i * C;
    float maxval = __int_as_float(0xff800000); // -INFINITY (math.h is not included)
    float sum = 0.0f;
    for (int j = 0; j < C; j++) {
        if (x[j] > maxval) {
            sum = sum * expf(maxval - x[j]) + 1.0f;
            maxval = x[j];
        } else {
            sum += expf(x[j] - maxval);
        }
    }
    for (int j = 0; j < C; j++) out[i * C + j] = expf(x[j] - maxval) / sum;
}

__device__ float smp_warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

extern "C" __global__ void smp_row_mean_block(float* out, const float* inp, int N, int C)
{
    __shared__ float warp_sums[32];
    const float* x = inp + blockIdx.x * C;
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    float sum = 0.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x) sum += x[i];
    sum = smp_warp_sum(sum);
    warp_sums[warp] = sum; // every lane: the same value
    __syncthreads();
    float block_sum = smp_warp_sum(lane < warps ? warp_sums[lane] : 0.0f);
    if (threadIdx.x == 0) out[blockIdx.x] = block_sum / C;
}

extern "C" __global__ void smp_gelu_forward(float* out, const float* inp, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = inp[i];
        float cube = 0.044715f * x * x * x;
        out[i] = 0.5f * x * (1.0f + tanhf(GELU_SCALING_FACTOR * (x + cube)));
    }
}
`
