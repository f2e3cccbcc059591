package samples

// HalfDotBlock is the block size of HalfDot (its shared array holds this
// many half2).
const HalfDotBlock = 128

// Names of HalfSource's kernels.
const (
	// HalfDot is fp16ScalarProduct's intrinsics kernel: each thread
	// accumulates a[i]*b[i] over a grid-stride loop of half2 pairs with
	// __hfma2, the block adds its threads' half2 in a shared tree with
	// __hadd2, and thread 0 writes the float sum of the two halves to
	// out[blockIdx.x]. Launch it with (a, b []uint32 (half2 as raw bits),
	// out []float32, int32(n half2)) on blocks of HalfDotBlock threads;
	// [HalfDotSums] is its reference.
	HalfDot = "smp_half_dot"
	// EncoderForwardBF16 is [EncoderForward] on bf16 (raw uint16 bits):
	// the two bf16 widened, added in float, rounded to bf16.
	EncoderForwardBF16 = "smp_encoder_forward_bf16"
	// LayerNormForwardBF16 is [LayerNormForward] with bf16 inp, weight,
	// bias and out (float arithmetic inside; mean and rstd float).
	LayerNormForwardBF16 = "smp_layernorm_forward_bf16"
	// MatmulForwardBF16 is [MatmulForward] with bf16 operands and out, the
	// sum in float.
	MatmulForwardBF16 = "smp_matmul_forward_bf16"
	// GELUForwardBF16 is [GELUForward] on bf16 (float inside).
	GELUForwardBF16 = "smp_gelu_forward_bf16"
)

// HalfSource is the CUDA C of the kernels above. It includes cuda_fp16.h
// and cuda_bf16.h; compile it with LLMFlags.
const HalfSource = `#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define GELU_SCALING_FACTOR sqrtf(2.0f / 3.14159265358979323846f)
typedef __nv_bfloat16 floatX;

extern "C" __global__ void smp_half_dot(const half2* a, const half2* b, float* out, int n)
{
    __shared__ half2 acc[128];
    half2 value = __float2half2_rn(0.0f);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        value = __hfma2(a[i], b[i], value);
    acc[threadIdx.x] = value;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) acc[threadIdx.x] = __hadd2(acc[threadIdx.x], acc[threadIdx.x + stride]);
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = __low2float(acc[0]) + __high2float(acc[0]);
}

extern "C" __global__ void smp_encoder_forward_bf16(floatX* out, const floatX* wte, const floatX* wpe, const int* inp,
                                                    int B, int T, int C)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < B * T * C) {
        int bt = idx / C, t = bt % T, c = idx % C;
        int ix = inp[bt];
        out[idx] = __float2bfloat16((float)wte[ix * C + c] + (float)wpe[t * C + c]);
    }
}

extern "C" __global__ void smp_layernorm_forward_bf16(floatX* out, float* mean, float* rstd, const floatX* inp,
                                                      const floatX* weight, const floatX* bias, int N, int C)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= N) return;
    const floatX* x = inp + idx * C;
    float m = 0.0f;
    for (int i = 0; i < C; i++) m += (float)x[i];
    m = m / C;
    float v = 0.0f;
    for (int i = 0; i < C; i++) {
        float d = (float)x[i] - m;
        v += d * d;
    }
    v = v / C;
    float s = 1.0f / sqrtf(v + 1e-5f);
    floatX* o = out + idx * C;
    for (int i = 0; i < C; i++) {
        float n = s * ((float)x[i] - m);
        o[i] = __float2bfloat16(n * (float)weight[i] + (float)bias[i]);
    }
    mean[idx] = m;
    rstd[idx] = s;
}

extern "C" __global__ void smp_matmul_forward_bf16(floatX* out, const floatX* inp, const floatX* weight,
                                                   const floatX* bias, int BT, int C, int OC)
{
    int bt = blockIdx.x * blockDim.x + threadIdx.x;
    int oc = blockIdx.y * blockDim.y + threadIdx.y;
    if (bt < BT && oc < OC) {
        float val = bias != 0 ? (float)bias[oc] : 0.0f;
        const floatX* a = inp + bt * C;
        const floatX* w = weight + oc * C;
        for (int i = 0; i < C; i++) val += (float)a[i] * (float)w[i];
        out[bt * OC + oc] = __float2bfloat16(val);
    }
}

extern "C" __global__ void smp_gelu_forward_bf16(floatX* out, const floatX* inp, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = (float)inp[i];
        float cube = 0.044715f * x * x * x;
        out[i] = __float2bfloat16(0.5f * x * (1.0f + tanhf(GELU_SCALING_FACTOR * (x + cube))));
    }
}
`
