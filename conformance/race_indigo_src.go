package conformance

// indigoSource is the rehearsal corpus of in-kernel global-memory races:
// graph micro-kernels in the styles of the Indigo suite (Liu, Azami,
// Walters, Burtscher: "The Indigo Program-Verification Microbenchmark
// Suite of Irregular Parallel Code Patterns", ISPASS 2022; the kernels
// HiRace (SC24) and iGUARD (SOSP'21) are evaluated on) and scoped races
// in the styles of ScoR (Kamath, George, Basu: "ScoRD: A Scoped Race
// Detector for GPUs", ISCA 2020), written for this suite. Every kernel
// takes a CSR graph (nindex, nlist), two data arrays and an auxiliary one;
// each racy kernel has one or more race-free twins computing the serial
// result (indigoCases). A line of a racy kernel ending in a comment
// "@name" is one of the accesses its report must name (indigoLine).
const indigoSource = `
#define ARGS const int *nindex, const int *nlist, int *data1, int *data2, int *aux, int numv
#define INF 1000000
#define VTHREAD int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= numv) return;
#define VWARP int lane = threadIdx.x % 32; int i = (blockIdx.x * blockDim.x + threadIdx.x) / 32; if (i >= numv) return;

// The source vertex of edge e (binary search of nindex).
__device__ int edge_src(const int *nindex, int numv, int e) {
    int lo = 0, hi = numv;
    while (hi - lo > 1) { int m = (lo + hi) / 2; if (nindex[m] <= e) lo = m; else hi = m; }
    return lo;
}

// ---- A. The largest neighbour value into one word (atomic bug) ----
extern "C" __global__ void max_vthread_plain(ARGS) {
    VTHREAD
    for (int j = nindex[i]; j < nindex[i + 1]; j++) {
        data1[0] = max(data1[0], data2[nlist[j]]); // @max_vthread
    }
}
extern "C" __global__ void max_vthread_atomic(ARGS) {
    VTHREAD
    for (int j = nindex[i]; j < nindex[i + 1]; j++) atomicMax(&data1[0], data2[nlist[j]]);
}
extern "C" __global__ void max_vwarp_plain(ARGS) {
    VWARP
    int v = 0;
    for (int j = nindex[i] + lane; j < nindex[i + 1]; j += 32) v = max(v, data2[nlist[j]]);
    for (int d = 16; d > 0; d /= 2) v = max(v, __shfl_xor_sync(~0u, v, d));
    if (lane == 0) data1[0] = max(data1[0], v); // @max_vwarp
}
extern "C" __global__ void max_vwarp_atomic(ARGS) {
    VWARP
    int v = 0;
    for (int j = nindex[i] + lane; j < nindex[i + 1]; j += 32) v = max(v, data2[nlist[j]]);
    for (int d = 16; d > 0; d /= 2) v = max(v, __shfl_xor_sync(~0u, v, d));
    if (lane == 0) atomicMax(&data1[0], v);
}
__device__ int block_max(const int *nindex, const int *nlist, const int *data2, int i) {
    __shared__ int s[256];
    int v = 0;
    for (int j = nindex[i] + threadIdx.x; j < nindex[i + 1]; j += blockDim.x) v = max(v, data2[nlist[j]]);
    s[threadIdx.x] = v;
    __syncthreads();
    for (int st = blockDim.x / 2; st > 0; st /= 2) {
        if (threadIdx.x < st) s[threadIdx.x] = max(s[threadIdx.x], s[threadIdx.x + st]);
        __syncthreads();
    }
    v = s[0];
    __syncthreads();
    return v;
}
extern "C" __global__ void max_vblock_plain(ARGS) {
    for (int i = blockIdx.x; i < numv; i += gridDim.x) {
        int v = block_max(nindex, nlist, data2, i);
        if (threadIdx.x == 0) data1[0] = max(data1[0], v); // @max_vblock
    }
}
extern "C" __global__ void max_vblock_atomic(ARGS) {
    for (int i = blockIdx.x; i < numv; i += gridDim.x) {
        int v = block_max(nindex, nlist, data2, i);
        if (threadIdx.x == 0) atomicMax(&data1[0], v);
    }
}
extern "C" __global__ void max_edge_plain(ARGS) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= nindex[numv]) return;
    data1[0] = max(data1[0], data2[nlist[e]]); // @max_edge
}
extern "C" __global__ void max_edge_atomic(ARGS) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= nindex[numv]) return;
    atomicMax(&data1[0], data2[nlist[e]]);
}

// ---- B. A counter bumped with x++ ----
extern "C" __global__ void count_vthread_plain(ARGS) {
    VTHREAD
    for (int j = nindex[i]; j < nindex[i + 1]; j++) {
        if (i < nlist[j]) { data1[0]++; break; } // @count_vthread
    }
}
extern "C" __global__ void count_vthread_atomic(ARGS) {
    VTHREAD
    for (int j = nindex[i]; j < nindex[i + 1]; j++) {
        if (i < nlist[j]) { atomicAdd(&data1[0], 1); break; }
    }
}
extern "C" __global__ void count_edge_plain(ARGS) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= nindex[numv]) return;
    if (edge_src(nindex, numv, e) < nlist[e]) data1[0]++; // @count_edge
}
extern "C" __global__ void count_edge_atomic(ARGS) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= nindex[numv]) return;
    if (edge_src(nindex, numv, e) < nlist[e]) atomicAdd(&data1[0], 1);
}

extern "C" __global__ void count_persist(ARGS, int atomic) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < numv; i += gridDim.x * blockDim.x) {
        if (nindex[i + 1] - nindex[i] > 2) {
            if (atomic) atomicAdd(&data1[0], 1);
            else data1[0]++; // @count_persist
        }
    }
}

// ---- C. Push of a value to the neighbours (vertex-warp, edge) ----
extern "C" __global__ void push_vwarp_plain(ARGS) {
    VWARP
    for (int j = nindex[i] + lane; j < nindex[i + 1]; j += 32) {
        data1[nlist[j]] += data2[i]; // @push_vwarp
    }
}
extern "C" __global__ void push_vwarp_atomic(ARGS) {
    VWARP
    for (int j = nindex[i] + lane; j < nindex[i + 1]; j += 32) atomicAdd(&data1[nlist[j]], data2[i]);
}
extern "C" __global__ void push_edge_plain(ARGS) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= nindex[numv]) return;
    data1[nlist[e]] += data2[edge_src(nindex, numv, e)]; // @push_edge
}
extern "C" __global__ void pull_edge_atomic(ARGS) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= nindex[numv]) return;
    atomicAdd(&data1[edge_src(nindex, numv, e)], data2[nlist[e]]);
}

// ---- D. Min-label propagation (connected components) ----
extern "C" __global__ void cc_push_plain(ARGS) {
    VTHREAD
    for (int j = nindex[i]; j < nindex[i + 1]; j++) {
        int nei = nlist[j];
        data1[nei] = min(data1[nei], data1[i]); // @cc_push
    }
}
extern "C" __global__ void cc_push_plain_read(ARGS) {
    VTHREAD
    for (int j = nindex[i]; j < nindex[i + 1]; j++) {
        int l = data1[i]; // @cc_read
        atomicMin(&data1[nlist[j]], l); // @cc_atomic
    }
}
extern "C" __global__ void cc_push_atomic(ARGS) {
    VTHREAD
    for (int j = nindex[i]; j < nindex[i + 1]; j++) atomicMin(&data1[nlist[j]], data2[i]);
}
extern "C" __global__ void cc_push_strong(ARGS) {
    VTHREAD
    for (int j = nindex[i]; j < nindex[i + 1]; j++) {
        int l = ((volatile int *)data1)[i];
        atomicMin(&data1[nlist[j]], l);
    }
}
extern "C" __global__ void cc_pull_inplace(ARGS) {
    VTHREAD
    int l = data1[i];
    for (int j = nindex[i]; j < nindex[i + 1]; j++) l = min(l, data1[nlist[j]]); // @cc_pull_read
    data1[i] = l; // @cc_pull_write
}
extern "C" __global__ void cc_pull(ARGS) {
    VTHREAD
    int l = data2[i];
    for (int j = nindex[i]; j < nindex[i + 1]; j++) l = min(l, data2[nlist[j]]);
    data1[i] = l;
}

// ---- E. BFS, data-driven: a worklist and its counter ----
extern "C" __global__ void bfs_wl_plain(ARGS) {
    VTHREAD
    if (data2[i] != 0) return;
    for (int j = nindex[i]; j < nindex[i + 1]; j++) {
        int nei = nlist[j];
        if (atomicCAS(&data1[nei], INF, 1) == INF) {
            int k = aux[0]; // @bfs_wl_read
            aux[0] = k + 1; // @bfs_wl_write
            aux[1 + k] = nei;
        }
    }
}
extern "C" __global__ void bfs_level_plain(ARGS) {
    VTHREAD
    if (data2[i] != 0) return;
    for (int j = nindex[i]; j < nindex[i + 1]; j++) {
        int nei = nlist[j];
        if (data1[nei] == INF) { // @bfs_level_read
            data1[nei] = 1; // @bfs_level_write
            aux[1 + atomicAdd(&aux[0], 1)] = nei;
        }
    }
}
extern "C" __global__ void bfs_wl_atomic(ARGS) {
    VTHREAD
    if (data2[i] != 0) return;
    for (int j = nindex[i]; j < nindex[i + 1]; j++) {
        int nei = nlist[j];
        if (atomicCAS(&data1[nei], INF, 1) == INF) aux[1 + atomicAdd(&aux[0], 1)] = nei;
    }
}

// ---- F. Path compression (union-find) ----
extern "C" __global__ void find_compress_plain(ARGS) {
    VTHREAD
    int x = i;
    while (data1[x] != x) {
        data1[x] = data1[data1[x]]; // @compress
        x = data1[x];
    }
    data2[i] = x;
}
extern "C" __global__ void find_plain(ARGS) {
    VTHREAD
    int x = i;
    while (data1[x] != x) x = data1[x];
    data2[i] = x;
}
extern "C" __global__ void find_compress_cas(ARGS) {
    VTHREAD
    volatile int *parent = data1;
    int x = i, p;
    while ((p = parent[x]) != x) {
        int gp = parent[p];
        atomicCAS(&data1[x], p, gp);
        x = gp;
    }
    data2[i] = x;
}

// ---- G. Maximal independent set, one round ----
__device__ bool local_max(const int *nindex, const int *nlist, const int *prio, int i) {
    for (int j = nindex[i]; j < nindex[i + 1]; j++)
        if (prio[nlist[j]] > prio[i]) return false;
    return true;
}
extern "C" __global__ void mis_plain(ARGS) {
    VTHREAD
    if (data1[i] != 0) return; // @mis_read
    if (!local_max(nindex, nlist, data2, i)) return;
    data1[i] = 1;
    for (int j = nindex[i]; j < nindex[i + 1]; j++) data1[nlist[j]] = 2; // @mis_write
}
extern "C" __global__ void mis_atomic(ARGS) {
    VTHREAD
    if (!local_max(nindex, nlist, data2, i)) return;
    data1[i] = 1;
    for (int j = nindex[i]; j < nindex[i + 1]; j++) atomicMax(&data1[nlist[j]], 2);
}

// ---- H. PageRank (integer shares), push and pull ----
extern "C" __global__ void pr_push_plain(ARGS) {
    VTHREAD
    int deg = nindex[i + 1] - nindex[i];
    for (int j = nindex[i]; j < nindex[i + 1]; j++) {
        data1[nlist[j]] += data2[i] / deg; // @pr_push
    }
}
extern "C" __global__ void pr_push_atomic(ARGS) {
    VTHREAD
    int deg = nindex[i + 1] - nindex[i];
    for (int j = nindex[i]; j < nindex[i + 1]; j++) atomicAdd(&data1[nlist[j]], data2[i] / deg);
}
extern "C" __global__ void pr_pull(ARGS) {
    VTHREAD
    int s = 0;
    for (int j = nindex[i]; j < nindex[i + 1]; j++) {
        int nei = nlist[j];
        s += data2[nei] / (nindex[nei + 1] - nindex[nei]);
    }
    data1[i] = s;
}

// ---- I. Triangle counting ----
__device__ bool adjacent(const int *nindex, const int *nlist, int a, int b) {
    for (int j = nindex[a]; j < nindex[a + 1]; j++) if (nlist[j] == b) return true;
    return false;
}
__device__ int triangles_at(const int *nindex, const int *nlist, int i, int from, int step) {
    int c = 0;
    for (int j = nindex[i] + from; j < nindex[i + 1]; j += step) {
        int u = nlist[j];
        if (u <= i) continue;
        for (int k = nindex[u]; k < nindex[u + 1]; k++) {
            int w = nlist[k];
            if (w > u && adjacent(nindex, nlist, i, w)) c++;
        }
    }
    return c;
}
extern "C" __global__ void tc_vthread_plain(ARGS) {
    VTHREAD
    int c = triangles_at(nindex, nlist, i, 0, 1);
    if (c) data1[0] += c; // @tc_vthread
}
extern "C" __global__ void tc_vthread_atomic(ARGS) {
    VTHREAD
    int c = triangles_at(nindex, nlist, i, 0, 1);
    if (c) atomicAdd(&data1[0], c);
}
extern "C" __global__ void tc_vblock(ARGS, int sync) {
    __shared__ int s[64];
    int i = blockIdx.x;
    if (i >= numv) return;
    s[threadIdx.x] = triangles_at(nindex, nlist, i, threadIdx.x, blockDim.x);
    __syncthreads();
    for (int st = blockDim.x / 2; st > 0; st /= 2) {
        if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st];
        if (sync) __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(&data1[0], s[0]);
}

// ---- J. A guard bug: the grid-stride loop strides by one block ----
extern "C" __global__ void sum_stride_bug(ARGS) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < numv; i += blockDim.x) {
        for (int j = nindex[i]; j < nindex[i + 1]; j++) data1[i] += data2[nlist[j]]; // @stride
    }
}
extern "C" __global__ void sum_stride(ARGS) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < numv; i += blockDim.x * gridDim.x) {
        for (int j = nindex[i]; j < nindex[i + 1]; j++) data1[i] += data2[nlist[j]];
    }
}

// ---- K. A block's partial sums in global memory, __syncthreads missing ----
extern "C" __global__ void sum_vblock_global(ARGS, int sync) {
    int i = blockIdx.x;
    if (i >= numv) return;
    int v = 0;
    for (int j = nindex[i] + threadIdx.x; j < nindex[i + 1]; j += blockDim.x) v += data2[nlist[j]];
    aux[blockIdx.x * blockDim.x + threadIdx.x] = v; // @gsync_write
    if (sync) __syncthreads();
    if (threadIdx.x == 0) {
        int s = 0;
        for (int t = 0; t < blockDim.x; t++) s += aux[blockIdx.x * blockDim.x + t]; // @gsync_read
        data1[i] = s;
    }
}

// ---- M. A warp's partial sums in global memory, __syncwarp missing ----
extern "C" __global__ void sum_vwarp_global(ARGS, int sync) {
    VWARP
    int v = 0;
    for (int j = nindex[i] + lane; j < nindex[i + 1]; j += 32) v += data2[nlist[j]];
    aux[i * 32 + lane] = v; // @wsync_write
    if (sync) __syncwarp();
    if (lane == 0) {
        int s = 0;
        for (int t = 0; t < 32; t++) s += aux[i * 32 + t]; // @wsync_read
        data1[i] = s;
    }
}

// ---- N. Block-scope atomics between blocks ----
extern "C" __global__ void degree_sum_cta(ARGS) {
    VTHREAD
    atomicAdd_block(&data1[0], nindex[i + 1] - nindex[i]); // @cta_add
}
extern "C" __global__ void degree_sum_gpu(ARGS) {
    VTHREAD
    atomicAdd(&data1[0], nindex[i + 1] - nindex[i]);
}

// ---- O, P. A lock around a shared sum: block scope, no fences, fenced ----
extern "C" __global__ void lock_sum(ARGS, int mode) {
    VTHREAD
    if (threadIdx.x % 32 != 0) return;
    int d = nindex[i + 1] - nindex[i];
    if (mode == 0) { // block-scope lock between blocks
        while (atomicCAS_block(&aux[0], 0, 1) != 0) {} // @lock_cta_cas
        __threadfence();
        data1[0] += d;
        __threadfence();
        atomicExch_block(&aux[0], 0); // @lock_cta_exch
    } else if (mode == 1) { // no fences
        while (atomicCAS(&aux[0], 0, 1) != 0) {}
        data1[0] += d; // @lock_nofence
        atomicExch(&aux[0], 0);
    } else { // fenced, device scope
        while (atomicCAS(&aux[0], 0, 1) != 0) {}
        __threadfence();
        data1[0] += d;
        __threadfence();
        atomicExch(&aux[0], 0);
    }
}

// ---- Q. Message passing between blocks: a block-scope fence (mode 0),
// right (1), no barrier before the writer's fence (2), no barrier after
// the reader's spin (3) ----
extern "C" __global__ void message_scoped(ARGS, int mode) {
    if (blockIdx.x == 0) {
        data1[threadIdx.x] = nindex[threadIdx.x + 1] - nindex[threadIdx.x]; // @msg_write
        if (mode != 2) __syncthreads();
        if (threadIdx.x == 0) {
            if (mode != 0) __threadfence(); else __threadfence_block();
            *(volatile int *)&aux[0] = 1;
        }
    } else {
        if (threadIdx.x == 0) while (*(volatile int *)&aux[0] == 0) {}
        if (mode != 3) __syncthreads();
        data2[threadIdx.x] = data1[threadIdx.x]; // @msg_read
    }
}

// ---- R, S. A software grid barrier between resident blocks ----
extern "C" __global__ void soft_barrier(ARGS, int mode) {
    int b = blockIdx.x;
    if (threadIdx.x == 0) data1[b] = nindex[b + 1] - nindex[b]; // @bar_write
    __syncthreads();
    if (threadIdx.x == 0) {
        if (mode != 1) __threadfence();
        if (mode == 2) atomicAdd_block(&aux[0], 1); else atomicAdd(&aux[0], 1); // @bar_arrive
        while (*(volatile int *)&aux[0] < gridDim.x) {} // @bar_spin
        if (mode != 1) __threadfence();
    }
    __syncthreads();
    if (threadIdx.x == 0) data2[b] = data1[(b + 1) % gridDim.x]; // @bar_read
}

// ---- T. A chained scan: each block waits for its predecessor's flag ----
extern "C" __global__ void chained_scan(ARGS, int fence) {
    int b = blockIdx.x;
    if (threadIdx.x != 0) return;
    int own = nindex[b + 1] - nindex[b];
    int prev = 0;
    if (b > 0) {
        while (*(volatile int *)&aux[b] == 0) {}
        prev = data1[b - 1]; // @scan_read
    }
    data1[b] = prev + own; // @scan_write
    if (fence) __threadfence();
    *(volatile int *)&aux[b + 1] = 1;
}

// ---- U. A work queue whose head is bumped with x++ ----
extern "C" __global__ void queue_sum(ARGS, int atomic) {
    for (;;) {
        int k;
        if (atomic) k = atomicAdd(&aux[0], 1);
        else { k = aux[0]; aux[0] = k + 1; } // @queue_head
        if (k >= numv) return;
        int s = 0;
        for (int j = nindex[k]; j < nindex[k + 1]; j++) s += data2[nlist[j]];
        data1[k] += s; // @queue_item
    }
}
`
