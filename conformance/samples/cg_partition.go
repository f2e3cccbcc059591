package samples

// Names of CGPartitionSource's kernels: groups that split a warp by a
// value (labeled_partition, binary_partition), reduced with cg::reduce,
// which CUDA compiles, on sm_80 and later, to one redux.sync that the
// lanes of every group reach together, each group with its own member
// mask.
const (
	// CGBucketMax is warpAggregatedAtomicsCG's calculateMaxInEachBuckets:
	// for each positive element of keys, its bucket is keys[i] mod
	// CGBuckets; the coalesced threads are labeled_partition'ed by bucket,
	// each group's cg::reduce with cg::greater of vals is atomicMax'ed
	// into maxes[bucket]. Launch it with (keys, vals []int32, int32(n),
	// maxes []int32 (CGBuckets, initialised to math.MinInt32)).
	CGBucketMax = "smp_cg_bucket_max"
	// CGParitySums is binaryPartitionCG's oddEvenCountAndSumCG: each warp
	// tile is binary_partition'ed by the parity of its element; each half
	// sums its elements with cg::reduce and cg::plus, its rank 0 adds the
	// sum to sums[parity] and, for the odd half, its size to odds. Launch
	// it with (in []int32, int32(n), sums []int32 (2), odds []int32 (1)) on
	// blocks of a multiple of 32 threads, grid-stride.
	CGParitySums = "smp_cg_parity_sums"
)

// CGPartitionSource is the CUDA C of the kernels above. It includes
// cooperative_groups.h and cooperative_groups/reduce.h.
const CGPartitionSource = `#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void smp_cg_bucket_max(const int* keys, const int* vals, int n, int* maxes)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && keys[i] > 0) {
        int bucket = keys[i] % 8;
        cg::coalesced_group active = cg::coalesced_threads();
        cg::coalesced_group same = cg::labeled_partition(active, bucket);
        int m = cg::reduce(same, vals[i], cg::greater<int>());
        if (same.thread_rank() == 0) atomicMax(&maxes[bucket], m);
    }
}

extern "C" __global__ void smp_cg_parity_sums(const int* in, int n, int* sums, int* odds)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int stride = gridDim.x * blockDim.x;
    // Whole warps go round the loop together, so that every tile is full.
    int rounds = (n + stride - 1) / stride;
    for (int r = 0; r < rounds; r++) {
        int i = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        int v = i < n ? in[i] : 0;
        cg::coalesced_group half = cg::binary_partition(warp, v & 1);
        int s = cg::reduce(half, v, cg::plus<int>());
        if (half.thread_rank() == 0) {
            atomicAdd(&sums[v & 1], s);
            if (v & 1) atomicAdd(odds, (int)half.size());
        }
        warp.sync();
    }
}
`

// BucketMax returns, for each of CGBuckets buckets, the largest vals[i]
// of the positive keys[i] in it (keys[i] mod CGBuckets), or min where the
// bucket is empty: what CGBucketMax leaves in maxes initialised to min.
func BucketMax(keys, vals []int32, min int32) [CGBuckets]int32 {
	var out [CGBuckets]int32
	for k := range out {
		out[k] = min
	}
	for i, k := range keys {
		if k > 0 {
			out[k%CGBuckets] = max(out[k%CGBuckets], vals[i])
		}
	}
	return out
}

// ParitySums returns the sums (wrapping) of the even and of the odd
// elements of in, and the count of odd ones: what CGParitySums computes.
func ParitySums(in []int32) (sums [2]int32, odds int32) {
	for _, v := range in {
		sums[v&1] += v
		odds += v & 1
	}
	return sums, odds
}
