package samples

// CGBuckets is the number of buckets of CGBuckets' labels (v mod 8).
const CGBuckets = 8

// Names of CGSource's kernels (cooperative groups).
const (
	// CGReduce sums each block three ways, as simpleCG and the reduction
	// sample's cooperative-groups kernels do: the whole thread_block
	// through shared memory with block.sync() (blockSums[b]), each
	// tiled_partition<32> with cg::reduce and cg::plus (tile32Sums[b*W+w],
	// W warps a block), and each dynamic tiled_partition(block, 16)
	// through its own slice of shared memory with tile.sync()
	// (tile16Sums[b*2W+k]). Launch it with (in []int32, int32(n),
	// blockSums, tile32Sums, tile16Sums []int32) on blocks of
	// ReduceBlock threads.
	CGReduce = "smp_cg_reduce"
	// CGScan is cg::inclusive_scan over each tiled_partition<32>: out[i] is
	// the sum of in over the warp's lanes up to i's. Launch it with (in,
	// out []int32, int32(n)).
	CGScan = "smp_cg_scan"
	// CGFilter is warpAggregatedAtomicsCG's filter: positive elements of in
	// go to dst at slots taken by atomicAggInc (a coalesced_threads group:
	// its rank 0 adds the group's size, the base is shuffled from it).
	// Launch it with (dst, in []int32, int32(n), count []int32).
	CGFilter = "smp_cg_filter"
	// CGBucketsKernel maps the positive elements of in to CGBuckets
	// buckets by v mod 8, each slot taken by one atomicAdd per
	// labeled_partition of the coalesced threads by bucket:
	// dst[bucket*n + slot] = v, counts[bucket] = the bucket's size.
	// Launch it with (dst []int32 (CGBuckets*n), in []int32, int32(n),
	// counts []int32 (CGBuckets)).
	CGBucketsKernel = "smp_cg_buckets"
)

// CGSource is the CUDA C of the kernels above. It includes
// cooperative_groups.h, cooperative_groups/reduce.h and
// cooperative_groups/scan.h.
const CGSource = `#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

#define BLOCK 256

__device__ int sum_reduction(cg::thread_group g, int* x, int val)
{
    int lane = g.thread_rank();
    for (int i = g.size() / 2; i > 0; i /= 2) {
        x[lane] = val;
        g.sync();
        if (lane < i) val += x[lane + i];
        g.sync();
    }
    return val;
}

extern "C" __global__ void smp_cg_reduce(const int* in, int n, int* blockSums, int* tile32Sums, int* tile16Sums)
{
    __shared__ int s[BLOCK];
    cg::thread_block block = cg::this_thread_block();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;

    int total = sum_reduction(block, s, v);
    if (block.thread_rank() == 0) blockSums[blockIdx.x] = total;
    block.sync();

    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int warpSum = cg::reduce(warp, v, cg::plus<int>());
    int warps = blockDim.x / 32;
    if (warp.thread_rank() == 0) tile32Sums[blockIdx.x * warps + warp.meta_group_rank()] = warpSum;

    cg::thread_group tile = cg::tiled_partition(block, 16);
    int offset = block.thread_rank() - tile.thread_rank();
    int tileSum = sum_reduction(tile, s + offset, v);
    if (tile.thread_rank() == 0) tile16Sums[blockIdx.x * (2 * warps) + block.thread_rank() / 16] = tileSum;
}

extern "C" __global__ void smp_cg_scan(const int* in, int* out, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = cg::inclusive_scan(warp, i < n ? in[i] : 0);
    if (i < n) out[i] = v;
}

__device__ int atomic_agg_inc(int* counter)
{
    cg::coalesced_group active = cg::coalesced_threads();
    int res = 0;
    if (active.thread_rank() == 0) res = atomicAdd(counter, active.size());
    return active.shfl(res, 0) + active.thread_rank();
}

extern "C" __global__ void smp_cg_filter(int* dst, const int* in, int n, int* count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > 0) dst[atomic_agg_inc(count)] = in[i];
}

extern "C" __global__ void smp_cg_buckets(int* dst, const int* in, int n, int* counts)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > 0) {
        int v = in[i];
        int bucket = v % 8;
        cg::coalesced_group active = cg::coalesced_threads();
        cg::coalesced_group same = cg::labeled_partition(active, bucket);
        int res = 0;
        if (same.thread_rank() == 0) res = atomicAdd(&counts[bucket], same.size());
        res = same.shfl(res, 0) + same.thread_rank();
        dst[bucket * n + res] = v;
    }
}
`
