package samples

// WarpBarrierReduce sums each block with a software barrier between its
// warps instead of __syncthreads, as cooperative groups' multi-warp tiles
// synchronise (CUDA 11.8's sync_warps): each warp reduces its elements
// with __shfl_down_sync and its lane 0 stores the sum in shared memory,
// then arrives with an atomicOr of its warp's bit on a shared word; the
// last warp to arrive clears the bits with atomicAnd, the others spin on
// a volatile read until their bit is cleared. Warp 0 then adds the warps'
// sums. out[b] is the sum of block b's elements, as [BlockSums] with
// ReduceBlock elements a block. Launch it with (in, out []int32,
// uint32(n)) on blocks of ReduceBlock threads (at most 32 warps).
const WarpBarrierReduce = "smp_warp_barrier_reduce"

// WarpBarrierSource is the CUDA C of WarpBarrierReduce. It includes no
// header.
const WarpBarrierSource = `
__device__ void smp_warp_barrier(volatile unsigned int* arrived, unsigned int warps)
{
    unsigned int warp = threadIdx.x / 32;
    unsigned int bit = 1u << warp;
    unsigned int all = warps == 32 ? 0xffffffffu : (1u << warps) - 1;
    __syncwarp();
    if (threadIdx.x % 32 == 0) {
        unsigned int old = atomicOr((unsigned int*)arrived, bit);
        if (((old | bit) & all) == all)
            atomicAnd((unsigned int*)arrived, ~all);
        else
            while (*arrived & bit)
                ;
    }
    __syncwarp();
}

extern "C" __global__ void smp_warp_barrier_reduce(const int* in, int* out, unsigned int n)
{
    __shared__ unsigned int arrived;
    __shared__ int sums[32];
    unsigned int warps = (blockDim.x + 31) / 32;
    if (threadIdx.x == 0) arrived = 0;
    __syncthreads();
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if (threadIdx.x % 32 == 0) sums[threadIdx.x / 32] = v;
    smp_warp_barrier(&arrived, warps);
    if (threadIdx.x == 0) {
        int total = 0;
        for (unsigned int w = 0; w < warps; w++) total += sums[w];
        out[blockIdx.x] = total;
    }
}
`
