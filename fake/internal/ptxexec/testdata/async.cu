// Kernels of cooperative launches (grid.sync) and of the asynchronous
// copies (cp.async, as cuda_pipeline.h's primitives compile), compiled by
// gen_async.py into async_80.ptx and async_90.ptx.
#include <cooperative_groups.h>
#include <cuda_pipeline.h>
namespace cg = cooperative_groups;

// grid_sum: every block adds its elements into one of four partial sums;
// after grid.sync the first thread adds the partials. A second grid.sync
// reuses the workspace: the first thread of the last block checks it sees
// the total too.
extern "C" __global__ void grid_sum(const float *in, float *part, float *out, int n)
{
    cg::grid_group g = cg::this_grid();
    int i = g.thread_rank();
    float v = i < n ? in[i] : 0.0f;
    atomicAdd(&part[blockIdx.x % 4], v);
    g.sync();
    if (i == 0) out[0] = part[0] + part[1] + part[2] + part[3];
    g.sync();
    if (threadIdx.x == 0 && blockIdx.x == gridDim.x - 1) out[1] = out[0];
}

// reduce_multi_block: NVIDIA's reductionMultiBlockCG pattern: a grid-stride
// loop, a shared-memory tree in each block, one partial per block, grid.sync,
// then block 0 reduces the partials.
extern "C" __global__ void reduce_multi_block(const float *in, float *partials, float *out, int n)
{
    extern __shared__ float sdata[];
    cg::thread_block block = cg::this_thread_block();
    cg::grid_group grid = cg::this_grid();
    float sum = 0.0f;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) sum += in[i];
    sdata[block.thread_rank()] = sum;
    block.sync();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (block.thread_rank() < s) sdata[block.thread_rank()] += sdata[block.thread_rank() + s];
        block.sync();
    }
    if (block.thread_rank() == 0) partials[blockIdx.x] = sdata[0];
    grid.sync();
    if (blockIdx.x == 0) {
        float t = 0.0f;
        for (int i = block.thread_rank(); i < gridDim.x; i += blockDim.x) t += partials[i];
        sdata[block.thread_rank()] = t;
        block.sync();
        for (int s = blockDim.x / 2; s > 0; s >>= 1) {
            if (block.thread_rank() < s) sdata[block.thread_rank()] += sdata[block.thread_rank() + s];
            block.sync();
        }
        if (block.thread_rank() == 0) *out = sdata[0];
    }
}

// pipe_copy: each thread copies one float into shared memory with
// __pipeline_memcpy_async, commits, waits, and after __syncthreads reads
// another thread's element.
extern "C" __global__ void pipe_copy(const float *in, float *out)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    __pipeline_memcpy_async(&s[t], &in[i], sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[i] = s[blockDim.x - 1 - t] * 2.0f;
}

// pipe_stages: a two-stage pipeline of 16-byte copies (cp.async.cg), the
// second zero-filled for threads 32..63 (__pipeline_memcpy_async's zfill
// of 16 bytes: a source size of 0), waited for one stage at a time.
extern "C" __global__ void pipe_stages(const float4 *in, float4 *out)
{
    __shared__ float4 a[64], b[64];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&a[t], &in[t], sizeof(float4));
    __pipeline_commit();
    __pipeline_memcpy_async(&b[t], &in[64 + t], sizeof(float4), t < 32 ? 0 : 16);
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    out[t] = a[63 - t];
    __pipeline_wait_prior(0);
    __syncthreads();
    out[64 + t] = b[63 - t];
}

#include <cuda_awbarrier_primitives.h>

// mbar_exchange: the threads of a block meet at an mbarrier
// (__mbarrier_arrive, then spinning on __mbarrier_test_wait) instead of
// __syncthreads, twice: the second phase with the first warp dropping out
// (__mbarrier_arrive_and_drop), and a third phase that only the other
// warps complete. Block b writes out[b*(blockDim.x+1) ...]: at t another
// thread's element, at blockDim.x what the third phase wrote.
extern "C" __global__ void mbar_exchange(const float *in, float *out)
{
    out += blockIdx.x * (blockDim.x + 1);
    __shared__ __mbarrier_t bar;
    __shared__ float s[256];
    int t = threadIdx.x;
    if (t == 0) __mbarrier_init(&bar, blockDim.x);
    __syncthreads();
    s[t] = in[t] * 2.0f;
    __mbarrier_token_t tok = __mbarrier_arrive(&bar);
    while (!__mbarrier_test_wait(&bar, tok)) {}
    out[t] = s[blockDim.x - 1 - t];
    __mbarrier_token_t tok2 = t < 32 ? __mbarrier_arrive_and_drop(&bar) : __mbarrier_arrive(&bar);
    while (!__mbarrier_test_wait(&bar, tok2)) {}
    if (t >= 32) {
        s[t] = 1.0f;
        __mbarrier_token_t tok3 = __mbarrier_arrive(&bar);
        while (!__mbarrier_test_wait(&bar, tok3)) {}
        if (t == 32) out[blockDim.x] = s[blockDim.x - 1];
    }
}

// mbar_parity waits with try_wait.parity and counts transaction bytes
// (expect_tx / complete_tx, as cp.async.bulk would complete them): thread 0
// expects 16 bytes and arrives, the last thread completes them after its
// copy, and everyone waits for phase 0 by its parity.
extern "C" __global__ void mbar_parity(const int *in, int *out)
{
    __shared__ unsigned long long bar;
    __shared__ int s[64];
    int t = threadIdx.x;
    unsigned a = (unsigned)__cvta_generic_to_shared(&bar);
    if (t == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(a), "r"(blockDim.x));
    __syncthreads();
    s[t] = in[t] + 1;
    if (t == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], 16;" :: "r"(a));
    } else {
        if (t == blockDim.x - 1) asm volatile("mbarrier.complete_tx.shared.b64 [%0], 16;" :: "r"(a));
        asm volatile("mbarrier.arrive.shared.b64 _, [%0];" :: "r"(a));
    }
    unsigned done = 0;
    while (!done) {
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(a), "r"(0));
    }
    out[t] = s[(t + 1) % blockDim.x];
}
