package samples

// ReduceBlock is the block size the reduction, scan and histogram kernels
// of Source are launched with (their shared arrays hold this many
// elements).
const ReduceBlock = 256

// Names of Source's kernels. Every reduction writes one int sum per block
// to out[blockIdx.x] (launch them with (in []int32, out []int32,
// uint32(n)) on grids of ReduceBlock threads); see [BlockSums] for what
// each block sums.
const (
	// ReduceInterleaved is reduction #0: interleaved addressing with a
	// divergent branch (tid % (2*stride) == 0).
	ReduceInterleaved = "smp_reduce_interleaved"
	// ReduceStrided is reduction #1: interleaved addressing with a strided
	// index and no divergence in the low threads.
	ReduceStrided = "smp_reduce_strided"
	// ReduceSequential is reduction #2: sequential addressing (stride
	// halving from blockDim/2).
	ReduceSequential = "smp_reduce_sequential"
	// ReduceFirstAdd is reduction #3: each thread adds two elements while
	// loading, so a block sums 2*ReduceBlock elements.
	ReduceFirstAdd = "smp_reduce_first_add"
	// ReduceLastWarp is reduction #4: as ReduceFirstAdd, the last warp
	// reduced with __shfl_down_sync.
	ReduceLastWarp = "smp_reduce_last_warp"
	// ReduceWarpSync is reduction #4 as the classic form wrote it (the
	// last warp through shared memory), made correct for independent
	// thread scheduling with __syncwarp between the steps.
	ReduceWarpSync = "smp_reduce_warp_sync"
	// ReduceUnrolled is reduction #5, a template over the block size fully
	// unrolled: the name expression of smp_reduce_unrolled<256>. A block
	// sums 2*ReduceBlock elements.
	ReduceUnrolled = "smp_reduce_unrolled<256>"
	// ReduceMulti is reduction #6: each thread sums a grid-stride loop of
	// pairs before the block's tree; the name expression of
	// smp_reduce_multi<256, false> (n not a power of two). Launched on any
	// grid, each block's sum covers the elements BlockSums says for
	// "multi".
	ReduceMulti = "smp_reduce_multi<256, false>"
	// ReduceShuffle reduces each warp with __shfl_down_sync, then the
	// warps' sums in the first warp.
	ReduceShuffle = "smp_reduce_shuffle"
	// ReduceRedux reduces each warp with __reduce_add_sync (sm_80+), then
	// the warps' sums in the first warp the same way, and adds each
	// block's sum to total[0] with atomicAdd. Launch it with (in []uint32,
	// out []uint32, uint32(n), total []uint32).
	ReduceRedux = "smp_reduce_redux"
	// ReduceFloat is reduction #2 on floats: a fixed tree of single
	// float additions, which [FloatTreeSums] repeats. Launch it with
	// (in []float32, out []float32, uint32(n)).
	ReduceFloat = "smp_reduce_float"

	// ScanHillisSteele is the naive double-buffered inclusive scan of a
	// block (Hillis and Steele): out[i] is the sum of in[b*256 .. i] of its
	// block b. Launch it with (in, out []int32, int32(n)).
	ScanHillisSteele = "smp_scan_hillis_steele"
	// ScanBlelloch is the work-efficient exclusive scan (Blelloch's
	// up-sweep and down-sweep, with padding against bank conflicts) of
	// 2*ReduceBlock elements a block, on blocks of ReduceBlock threads:
	// out[i] is the sum of the block's elements before i, sums[b] the
	// block's total. Launch it with (in, out []int32, sums []int32,
	// int32(n)).
	ScanBlelloch = "smp_scan_blelloch"

	// Histogram256 counts the bytes of data (n 32-bit words, four bytes
	// each, little-endian) into 256 bins: per-block bins in shared memory
	// with shared atomics, merged into hist with global atomics, over a
	// grid-stride loop. Launch it with (data []uint32, uint32(n),
	// hist []uint32) on blocks of ReduceBlock threads.
	Histogram256 = "smp_histogram256"

	// Transpose is the coalesced transpose through a shared tile of
	// TransposeTile x (TransposeTile+1) floats (the padding column avoids
	// bank conflicts), on blocks of TransposeTile x TransposeRows threads
	// each moving TransposeTile/TransposeRows elements: out (h rows of w
	// in, w rows of h out). Launch it with (out, in []float32, int32(w),
	// int32(h)) on a grid of ceil(w/32) x ceil(h/32).
	Transpose = "smp_transpose"

	// FilterAggregated copies the positive elements of in to dst, their
	// slots taken with warp-aggregated atomics (__activemask, __ffs,
	// __popc, one atomicAdd a warp, __shfl_sync of the base): *count ends
	// as the number of positives, dst[:count] holds them in an order the
	// hardware picks. Launch it with (dst, in []int32, int32(n),
	// count []int32).
	FilterAggregated = "smp_filter_aggregated"
)

// Shape of the Transpose kernel.
const (
	TransposeTile = 32
	TransposeRows = 8
)

// Source is the CUDA C of the kernels above. It needs no header.
const Source = `#define BLOCK 256
#define FULL 0xffffffffu

extern "C" __global__ void smp_reduce_interleaved(const int* in, int* out, unsigned int n)
{
    __shared__ int s[BLOCK];
    unsigned int tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    s[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        if (tid % (2 * stride) == 0) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void smp_reduce_strided(const int* in, int* out, unsigned int n)
{
    __shared__ int s[BLOCK];
    unsigned int tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    s[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        unsigned int at = 2 * stride * tid;
        if (at < blockDim.x) s[at] += s[at + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void smp_reduce_sequential(const int* in, int* out, unsigned int n)
{
    __shared__ int s[BLOCK];
    unsigned int tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    s[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

__device__ int load_pair(const int* in, unsigned int n)
{
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    int sum = i < n ? in[i] : 0;
    if (i + blockDim.x < n) sum += in[i + blockDim.x];
    return sum;
}

extern "C" __global__ void smp_reduce_first_add(const int* in, int* out, unsigned int n)
{
    __shared__ int s[BLOCK];
    unsigned int tid = threadIdx.x;
    s[tid] = load_pair(in, n);
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void smp_reduce_last_warp(const int* in, int* out, unsigned int n)
{
    __shared__ int s[BLOCK];
    unsigned int tid = threadIdx.x;
    int sum = load_pair(in, n);
    s[tid] = sum;
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 32; stride >>= 1) {
        if (tid < stride) s[tid] = sum = sum + s[tid + stride];
        __syncthreads();
    }
    if (tid < 32) {
        if (blockDim.x >= 64) sum += s[tid + 32];
        for (int offset = 16; offset > 0; offset /= 2)
            sum += __shfl_down_sync(FULL, sum, offset);
    }
    if (tid == 0) out[blockIdx.x] = sum;
}

extern "C" __global__ void smp_reduce_warp_sync(const int* in, int* out, unsigned int n)
{
    __shared__ int s[BLOCK];
    unsigned int tid = threadIdx.x;
    int sum = load_pair(in, n);
    s[tid] = sum;
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 32; stride >>= 1) {
        if (tid < stride) s[tid] = sum = sum + s[tid + stride];
        __syncthreads();
    }
    if (tid < 32) {
        for (unsigned int stride = 32; stride > 0; stride >>= 1) {
            sum += s[tid + stride];
            __syncwarp();
            s[tid] = sum;
            __syncwarp();
        }
    }
    if (tid == 0) out[blockIdx.x] = sum;
}

template <unsigned int blockSize>
__global__ void smp_reduce_unrolled(const int* in, int* out, unsigned int n)
{
    __shared__ int s[blockSize];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockSize * 2) + tid;
    int sum = i < n ? in[i] : 0;
    if (i + blockSize < n) sum += in[i + blockSize];
    s[tid] = sum;
    __syncthreads();
    if (blockSize >= 1024 && tid < 512) s[tid] = sum = sum + s[tid + 512];
    __syncthreads();
    if (blockSize >= 512 && tid < 256) s[tid] = sum = sum + s[tid + 256];
    __syncthreads();
    if (blockSize >= 256 && tid < 128) s[tid] = sum = sum + s[tid + 128];
    __syncthreads();
    if (blockSize >= 128 && tid < 64) s[tid] = sum = sum + s[tid + 64];
    __syncthreads();
    if (tid < 32) {
        if (blockSize >= 64) sum += s[tid + 32];
        sum += __shfl_down_sync(FULL, sum, 16);
        sum += __shfl_down_sync(FULL, sum, 8);
        sum += __shfl_down_sync(FULL, sum, 4);
        sum += __shfl_down_sync(FULL, sum, 2);
        sum += __shfl_down_sync(FULL, sum, 1);
    }
    if (tid == 0) out[blockIdx.x] = sum;
}

template <unsigned int blockSize, bool nIsPow2>
__global__ void smp_reduce_multi(const int* in, int* out, unsigned int n)
{
    __shared__ int s[blockSize];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockSize * 2 + tid;
    unsigned int gridSize = blockSize * 2 * gridDim.x;
    int sum = 0;
    while (i < n) {
        sum += in[i];
        if (nIsPow2 || i + blockSize < n) sum += in[i + blockSize];
        i += gridSize;
    }
    s[tid] = sum;
    __syncthreads();
    for (unsigned int stride = blockSize / 2; stride > 32; stride >>= 1) {
        if (tid < stride) s[tid] = sum = sum + s[tid + stride];
        __syncthreads();
    }
    if (tid < 32) {
        sum += s[tid + 32];
        for (int offset = 16; offset > 0; offset /= 2)
            sum += __shfl_down_sync(FULL, sum, offset);
    }
    if (tid == 0) out[blockIdx.x] = sum;
}

template __global__ void smp_reduce_unrolled<256>(const int*, int*, unsigned int);
template __global__ void smp_reduce_multi<256, false>(const int*, int*, unsigned int);

extern "C" __global__ void smp_reduce_shuffle(const int* in, int* out, unsigned int n)
{
    __shared__ int warpSums[BLOCK / 32];
    unsigned int tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL, v, offset);
    if ((tid & 31) == 0) warpSums[tid / 32] = v;
    __syncthreads();
    if (tid < 32) {
        v = tid < blockDim.x / 32 ? warpSums[tid] : 0;
        for (int offset = 16; offset > 0; offset /= 2)
            v += __shfl_down_sync(FULL, v, offset);
        if (tid == 0) out[blockIdx.x] = v;
    }
}

extern "C" __global__ void smp_reduce_redux(const unsigned int* in, unsigned int* out, unsigned int n,
                                            unsigned int* total)
{
    __shared__ unsigned int warpSums[BLOCK / 32];
    unsigned int tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int v = __reduce_add_sync(FULL, i < n ? in[i] : 0u);
    if ((tid & 31) == 0) warpSums[tid / 32] = v;
    __syncthreads();
    if (tid < 32) {
        v = __reduce_add_sync(FULL, tid < blockDim.x / 32 ? warpSums[tid] : 0u);
        if (tid == 0) {
            out[blockIdx.x] = v;
            atomicAdd(total, v);
        }
    }
}

extern "C" __global__ void smp_reduce_float(const float* in, float* out, unsigned int n)
{
    __shared__ float s[BLOCK];
    unsigned int tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    s[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void smp_scan_hillis_steele(const int* in, int* out, int n)
{
    __shared__ int buf[2][BLOCK];
    int tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    int pout = 0, pin = 1;
    buf[pout][tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (tid >= offset) buf[pout][tid] = buf[pin][tid] + buf[pin][tid - offset];
        else buf[pout][tid] = buf[pin][tid];
        __syncthreads();
    }
    if (i < n) out[i] = buf[pout][tid];
}

#define LOG_BANKS 5
#define PAD(i) ((i) + ((i) >> LOG_BANKS))

extern "C" __global__ void smp_scan_blelloch(const int* in, int* out, int* sums, int n)
{
    __shared__ int t[PAD(2 * BLOCK)];
    int tid = threadIdx.x, m = 2 * blockDim.x;
    int base = blockIdx.x * m;
    int ai = tid, bi = tid + blockDim.x;
    t[PAD(ai)] = base + ai < n ? in[base + ai] : 0;
    t[PAD(bi)] = base + bi < n ? in[base + bi] : 0;
    int offset = 1;
    for (int d = m >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (tid < d) {
            int a = offset * (2 * tid + 1) - 1, b = offset * (2 * tid + 2) - 1;
            t[PAD(b)] += t[PAD(a)];
        }
        offset *= 2;
    }
    if (tid == 0) {
        sums[blockIdx.x] = t[PAD(m - 1)];
        t[PAD(m - 1)] = 0;
    }
    for (int d = 1; d < m; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (tid < d) {
            int a = offset * (2 * tid + 1) - 1, b = offset * (2 * tid + 2) - 1;
            int x = t[PAD(a)];
            t[PAD(a)] = t[PAD(b)];
            t[PAD(b)] += x;
        }
    }
    __syncthreads();
    if (base + ai < n) out[base + ai] = t[PAD(ai)];
    if (base + bi < n) out[base + bi] = t[PAD(bi)];
}

extern "C" __global__ void smp_histogram256(const unsigned int* data, unsigned int n, unsigned int* hist)
{
    __shared__ unsigned int bins[256];
    for (unsigned int b = threadIdx.x; b < 256; b += blockDim.x) bins[b] = 0;
    __syncthreads();
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        unsigned int w = data[i];
        atomicAdd(&bins[w & 0xff], 1u);
        atomicAdd(&bins[(w >> 8) & 0xff], 1u);
        atomicAdd(&bins[(w >> 16) & 0xff], 1u);
        atomicAdd(&bins[w >> 24], 1u);
    }
    __syncthreads();
    for (unsigned int b = threadIdx.x; b < 256; b += blockDim.x)
        if (bins[b] != 0) atomicAdd(&hist[b], bins[b]);
}

#define TILE_DIM 32
#define BLOCK_ROWS 8

extern "C" __global__ void smp_transpose(float* out, const float* in, int w, int h)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ void smp_filter_aggregated(int* dst, const int* in, int n, int* count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > 0) {
        unsigned int active = __activemask();
        int lane = threadIdx.x & 31;
        int leader = __ffs(active) - 1;
        unsigned int rank = __popc(active & ((1u << lane) - 1u));
        int base = 0;
        if (lane == leader) base = atomicAdd(count, __popc(active));
        base = __shfl_sync(active, base, leader);
        dst[base + rank] = in[i];
    }
}
`
