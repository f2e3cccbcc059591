package samples

// CGGridReduce is reductionMultiBlockCG's kernel: each block sums a
// grid-stride slice of in into shared memory (a tree with block.sync()),
// writes its partial to partials[blockIdx.x], grid.sync() waits for every
// block, and block 0 sums the partials into out[0]; a second grid.sync()
// then lets every block read the total: check[b] = out[0]. It must be
// launched cooperatively (module.Config.Cooperative) with (in []int32,
// int32(n), partials []int32 (one per block), out []int32 (1), check
// []int32 (one per block)) on blocks of ReduceBlock threads and
// ReduceBlock*4 bytes of dynamic shared memory.
const CGGridReduce = "smp_cg_grid_reduce"

// CGGridSource is the CUDA C of CGGridReduce. It includes
// cooperative_groups.h.
const CGGridSource = `#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ int smp_block_sum(cg::thread_block block, int* sdata, int v)
{
    unsigned t = block.thread_rank();
    sdata[t] = v;
    block.sync();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) sdata[t] += sdata[t + s];
        block.sync();
    }
    int r = sdata[0];
    block.sync();
    return r;
}

extern "C" __global__ void smp_cg_grid_reduce(const int* in, int n, int* partials, int* out, int* check)
{
    extern __shared__ int sdata[];
    cg::thread_block block = cg::this_thread_block();
    cg::grid_group grid = cg::this_grid();
    int sum = 0;
    for (unsigned long long i = grid.thread_rank(); i < n; i += grid.size()) sum += in[i];
    int part = smp_block_sum(block, sdata, sum);
    if (block.thread_rank() == 0) partials[blockIdx.x] = part;
    grid.sync();
    if (blockIdx.x == 0) {
        int t = 0;
        for (unsigned i = block.thread_rank(); i < gridDim.x; i += blockDim.x) t += partials[i];
        int total = smp_block_sum(block, sdata, t);
        if (block.thread_rank() == 0) out[0] = total;
    }
    grid.sync();
    if (block.thread_rank() == 0) check[blockIdx.x] = out[0];
}
`
