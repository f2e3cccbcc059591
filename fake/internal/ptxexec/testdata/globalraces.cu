// Kernels for the in-kernel global-memory race checks (globalrace.go):
// each racy kernel beside its race-free twin. gen_async.py compiles it.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Many threads increment one word: plain (racy) and atomic.
extern "C" __global__ void incr_plain(int *x) { x[0]++; }
extern "C" __global__ void incr_atomic(int *x) { atomicAdd(x, 1); }

// data[nei] = min(data[nei], v) from many threads, and atomicMin.
extern "C" __global__ void min_plain(int *d, const int *v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    d[i % 4] = min(d[i % 4], v[i]);
}
extern "C" __global__ void min_atomic(int *d, const int *v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicMin(&d[i % 4], v[i]);
}

// A plain read of a word other threads update atomically, and a strong one.
extern "C" __global__ void read_of_atomic(int *x, int *out) {
    if (threadIdx.x == 0) atomicAdd(x, 1);
    else out[blockIdx.x * blockDim.x + threadIdx.x] = *x;
}
extern "C" __global__ void atomic_read_of_atomic(int *x, int *out) {
    if (threadIdx.x == 0) atomicAdd(x, 1);
    else out[blockIdx.x * blockDim.x + threadIdx.x] = atomicOr(x, 0);
}

// Each block writes its own row and reads the next block's: blocks 0 and
// the last never run together on the fake.
extern "C" __global__ void next_block(int *a, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = i;
    out[i] = a[((blockIdx.x + 1) % gridDim.x) * blockDim.x + threadIdx.x];
}
// Block 0 writes a row only the last block reads (first_last), or reads
// a row only the last block writes (last_first): two blocks that never run
// together on the fake, one race each.
extern "C" __global__ void first_last(int *a, int *out) {
    if (blockIdx.x == 0) a[threadIdx.x] = threadIdx.x;
    if (blockIdx.x == gridDim.x - 1) out[threadIdx.x] = a[threadIdx.x];
}
extern "C" __global__ void last_first(int *a, int *out) {
    if (blockIdx.x == 0) out[threadIdx.x] = a[threadIdx.x];
    if (blockIdx.x == gridDim.x - 1) a[threadIdx.x] = threadIdx.x;
}
extern "C" __global__ void own_block(int *a, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = i;
    __syncthreads();
    out[i] = a[blockIdx.x * blockDim.x + (threadIdx.x + 1) % blockDim.x];
}
extern "C" __global__ void own_block_nosync(int *a, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = i;
    out[i] = a[blockIdx.x * blockDim.x + (threadIdx.x + 1) % blockDim.x];
}

// Lanes of one warp: __syncwarp orders them.
extern "C" __global__ void warp_sync(int *a, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = i;
    __syncwarp();
    out[i] = a[(i & ~31) + (i + 1) % 32];
}
extern "C" __global__ void warp_nosync(int *a, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = i;
    out[i] = a[(i & ~31) + (i + 1) % 32];
}

// Message passing between blocks: block 0 writes data and a flag; block 1
// waits for the flag and reads the data.
extern "C" __global__ void message_fence(int *data, volatile int *flag, int *out) {
    if (blockIdx.x == 0) {
        data[threadIdx.x] = threadIdx.x + 1;
        __syncthreads();
        if (threadIdx.x == 0) { __threadfence(); *flag = 1; }
    } else {
        if (threadIdx.x == 0) while (*flag == 0) {}
        __syncthreads();
        out[threadIdx.x] = data[threadIdx.x];
    }
}
extern "C" __global__ void message_nofence(int *data, volatile int *flag, int *out) {
    if (blockIdx.x == 0) {
        data[threadIdx.x] = threadIdx.x + 1;
        __syncthreads();
        if (threadIdx.x == 0) *flag = 1;
    } else {
        if (threadIdx.x == 0) while (*flag == 0) {}
        __syncthreads();
        out[threadIdx.x] = data[threadIdx.x];
    }
}
// The flag written plain: the flag itself races with the strong reads.
extern "C" __global__ void message_plain_flag(int *data, int *flag, int *out) {
    if (blockIdx.x == 0) {
        data[threadIdx.x] = threadIdx.x + 1;
        __syncthreads();
        if (threadIdx.x == 0) { __threadfence(); *flag = 1; }
    } else {
        if (threadIdx.x == 0) while (*(volatile int *)flag == 0) {}
        __syncthreads();
        out[threadIdx.x] = data[threadIdx.x];
    }
}

// threadFenceReduction: each block writes its sum, fences, takes a ticket;
// the last block adds the sums. The fence is on the writers' side only.
__device__ unsigned int ticket;
extern "C" __global__ void fence_reduction(const int *in, int *partial, int *result, int fence) {
    __shared__ bool last;
    if (threadIdx.x == 0) {
        int s = 0;
        for (int j = 0; j < blockDim.x; j++) s += in[blockIdx.x * blockDim.x + j];
        partial[blockIdx.x] = s;
        if (fence) __threadfence();
        unsigned int t = atomicInc(&ticket, gridDim.x);
        last = (t == gridDim.x - 1);
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        int s = 0;
        for (int b = 0; b < gridDim.x; b++) s += partial[b];
        *result = s;
    }
}

// The Programming Guide's atomicAdd(double) by atomicCAS.
__device__ double cas_add(double *address, double val) {
    unsigned long long int *address_as_ull = (unsigned long long int *)address;
    unsigned long long int old = *address_as_ull, assumed;
    do {
        assumed = old;
        old = atomicCAS(address_as_ull, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));
    } while (assumed != old);
    return __longlong_as_double(old);
}
extern "C" __global__ void cas_loop(double *sum) { cas_add(sum, 1.0); }

// Block-scope atomics from several blocks, and device-scope ones.
extern "C" __global__ void atomic_block_scope(int *x) { atomicAdd_block(x, 1); }
extern "C" __global__ void atomic_block_scope_own(int *x) { atomicAdd_block(&x[blockIdx.x], 1); }

// A spin lock: with the fences it needs, and without the release fence.
extern "C" __global__ void lock_fenced(int *lock, int *counter) {
    if (threadIdx.x == 0) {
        while (atomicCAS(lock, 0, 1) != 0) {}
        __threadfence();
        counter[0] = counter[0] + 1;
        __threadfence();
        atomicExch(lock, 0);
    }
}
extern "C" __global__ void lock_unfenced(int *lock, int *counter) {
    if (threadIdx.x == 0) {
        while (atomicCAS(lock, 0, 1) != 0) {}
        counter[0] = counter[0] + 1;
        atomicExch(lock, 0);
    }
}

// grid.sync orders the blocks of a cooperative launch.
extern "C" __global__ void grid_sync(int *a, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = i;
    cg::this_grid().sync();
    out[i] = a[((blockIdx.x + 1) % gridDim.x) * blockDim.x + threadIdx.x];
}

// Every thread sets one flag to the same value; and to its own.
extern "C" __global__ void same_value(int *flag) { *flag = 1; }
extern "C" __global__ void other_value(int *flag) { *flag = blockIdx.x * blockDim.x + threadIdx.x; }

// A strong (volatile) write and read of one word never race.
extern "C" __global__ void volatile_flag(volatile int *flag, int *out) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *flag = 1;
    else out[blockIdx.x * blockDim.x + threadIdx.x] = *flag;
}

// A store through an inlined __device__ function.
__device__ __forceinline__ void put(int *p, int v) {
    p[0] = v;
}
extern "C" __global__ void inlined_put(int *p) { put(p, threadIdx.x); }

// Reads of a word the launch writes later: thread t reads what t+1 writes.
extern "C" __global__ void read_before_write(int *a, int *out) {
    int i = threadIdx.x;
    out[i] = a[(i + 1) % blockDim.x];
    a[i] = i;
}
// A lock word never written: the CAS reads what cudaMalloc left.
extern "C" __global__ void lock_uninit(int *lock) {
    if (threadIdx.x == 0) {
        while (atomicCAS(lock, 0, 1) != 0) {}
        atomicExch(lock, 0);
    }
}

// A race, then an out-of-bounds store.
extern "C" __global__ void race_then_fault(int *x, int *bad) {
    x[0] = threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0) bad[1 << 28] = 1;
}

// llm.c's softmax_forward_kernel4 pattern: every thread reads s[0], a
// shuffle, then lane 0 overwrites s[0]: racy without a barrier before the
// write.
extern "C" __global__ void shared_reader_forgotten(float *out, int sync) {
    __shared__ float s[32];
    if (threadIdx.x == 0) s[0] = 1.0f;
    __syncthreads();
    float v = s[0];
    v += __shfl_down_sync(0xffffffff, v, 1);
    if (sync) __syncthreads();
    if (threadIdx.x == 0) s[0] = v;
    out[threadIdx.x] = v;
}

// The classics of the race benchmarks, each beside its race-free twin.
// A worklist counter bumped with x++, and with atomicAdd.
extern "C" __global__ void worklist_plain(int *count, int *items, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && i % 3 == 0) { int slot = count[0]; count[0] = slot + 1; items[slot % n] = i; }
}
extern "C" __global__ void worklist_atomic(int *count, int *items, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && i % 3 == 0) items[atomicAdd(count, 1) % n] = i;
}
// Union-find path compression: parent[x] = parent[parent[x]] writes the
// parents other threads read; the twin finds each root without writing.
extern "C" __global__ void compress_plain(int *parent, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= n) return;
    while (parent[x] != parent[parent[x]]) parent[x] = parent[parent[x]];
}
extern "C" __global__ void compress_free(const int *parent, int *root, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= n) return;
    int r = x;
    while (parent[r] != r) r = parent[r];
    root[x] = r;
}
// A flag set plainly and spun on (volatile reads), and set by a fenced
// volatile store.
extern "C" __global__ void spin_plain_flag(int *data, int *flag, int *out) {
    if (blockIdx.x == 0) {
        if (threadIdx.x == 0) { data[0] = 42; flag[0] = 1; }
    } else if (threadIdx.x == 0) {
        while (*(volatile int *)flag == 0) {}
        out[blockIdx.x] = data[0];
    }
}
extern "C" __global__ void spin_volatile_flag(int *data, int *flag, int *out) {
    if (blockIdx.x == 0) {
        if (threadIdx.x == 0) { data[0] = 42; __threadfence(); *(volatile int *)flag = 1; }
    } else if (threadIdx.x == 0) {
        while (*(volatile int *)flag == 0) {}
        out[blockIdx.x] = data[0];
    }
}
// A lock taken with atomicCAS and released with a plain store, no fence;
// and released with a fence and atomicExch.
extern "C" __global__ void lock_plain_release(int *lock, int *counter) {
    if (threadIdx.x == 0) {
        while (atomicCAS(lock, 0, 1) != 0) {}
        __threadfence();
        counter[0] = counter[0] + 1;
        *(volatile int *)lock = 0;
    }
}
// __threadfence_block where __threadfence is needed (message passing
// between blocks), and the graph relaxation of min_plain on an edge list.
extern "C" __global__ void message_fence_block(int *data, volatile int *flag, int *out) {
    if (blockIdx.x == 0) {
        data[threadIdx.x] = threadIdx.x + 1;
        __syncthreads();
        if (threadIdx.x == 0) { __threadfence_block(); *flag = 1; }
    } else {
        if (threadIdx.x == 0) while (*flag == 0) {}
        __syncthreads();
        out[threadIdx.x] = data[threadIdx.x];
    }
}
extern "C" __global__ void relax_plain(int *dist, const int *src, const int *dst, int edges) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= edges) return;
    int v = dist[src[e]] + 1;
    if (v < dist[dst[e]]) dist[dst[e]] = v;
}
extern "C" __global__ void relax_atomic(int *dist, const int *src, const int *dst, int edges) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= edges) return;
    int v = atomicAdd(&dist[src[e]], 0) + 1;
    atomicMin(&dist[dst[e]], v);
}
// A chain of blocks passing a message by a fenced volatile flag: block b
// waits for block b-1's flag, reads its row and writes its own.
extern "C" __global__ void message_chain(int *rows, volatile int *flags) {
    int b = blockIdx.x;
    if (b > 0) {
        if (threadIdx.x == 0) while (flags[b - 1] == 0) {}
        __syncthreads();
    }
    int v = b > 0 ? rows[(b - 1) * blockDim.x + threadIdx.x] : 0;
    rows[b * blockDim.x + threadIdx.x] = v + 1;
    __syncthreads();
    if (threadIdx.x == 0) { __threadfence(); flags[b] = 1; }
}
// Acquires are per thread: thread 0 spins on the flag and the others read
// the data with no __syncthreads after the spin (racy); a __syncwarp
// spreads lane 0's acquire to its warp (race-free for a one-warp block).
extern "C" __global__ void message_nosync(int *data, volatile int *flag, int *out) {
    if (blockIdx.x == 0) {
        data[threadIdx.x] = threadIdx.x + 1;
        __syncthreads();
        if (threadIdx.x == 0) { __threadfence(); *flag = 1; }
    } else {
        if (threadIdx.x == 0) while (*flag == 0) {}
        out[threadIdx.x] = data[threadIdx.x];
    }
}
extern "C" __global__ void message_syncwarp(int *data, volatile int *flag, int *out) {
    if (blockIdx.x == 0) {
        data[threadIdx.x] = threadIdx.x + 1;
        __syncthreads();
        if (threadIdx.x == 0) { __threadfence(); *flag = 1; }
    } else {
        if (threadIdx.x == 0) while (*flag == 0) {}
        __syncwarp();
        out[threadIdx.x] = data[threadIdx.x];
    }
}

// Releases are per thread: thread 0's fence and flag release what thread 0
// did and what a barrier or a warp collective ordered before it, not the
// other threads' writes of its block (writer_nosync races; writer_syncwarp,
// one warp ordered by __syncwarp, does not).
extern "C" __global__ void message_writer_nosync(int *data, volatile int *flag, int *out) {
    if (blockIdx.x == 0) {
        data[threadIdx.x] = threadIdx.x + 1;
        if (threadIdx.x == 0) { __threadfence(); *flag = 1; }
    } else {
        if (threadIdx.x == 0) while (*flag == 0) {}
        __syncthreads();
        out[threadIdx.x] = data[threadIdx.x];
    }
}
extern "C" __global__ void message_writer_syncwarp(int *data, volatile int *flag, int *out) {
    if (blockIdx.x == 0) {
        data[threadIdx.x] = threadIdx.x + 1;
        __syncwarp();
        if (threadIdx.x == 0) { __threadfence(); *flag = 1; }
    } else {
        if (threadIdx.x == 0) while (*flag == 0) {}
        __syncthreads();
        out[threadIdx.x] = data[threadIdx.x];
    }
}
