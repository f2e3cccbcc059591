// Kernels for the shared-memory race checks, compiled by gen_async.py
// into races_80.ptx and races_90.ptx.

// neighbour_nosync reads the element another warp wrote, with no
// __syncthreads between: a race (write, then read by another thread).
extern "C" __global__ void neighbour_nosync(float *out)
{
    __shared__ float s[128];
    int t = threadIdx.x;
    s[t] = t;
    out[t] = s[(t + 64) % 128];
}

// neighbour_sync is neighbour_nosync with the barrier: no race.
extern "C" __global__ void neighbour_sync(float *out)
{
    __shared__ float s[128];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    out[t] = s[(t + 64) % 128];
}

// warp_nosync exchanges within a warp through shared memory without
// __syncwarp: a race between lanes of one warp.
extern "C" __global__ void warp_nosync(int *out)
{
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t] = t * 3;
    out[t] = s[t ^ 1];
}

// warp_syncwarp is warp_nosync with __syncwarp: no race.
extern "C" __global__ void warp_syncwarp(int *out)
{
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t] = t * 3;
    __syncwarp();
    out[t] = s[t ^ 1];
}

// write_write: every thread writes one flag (two threads of different
// warps the same byte with no barrier); the atomics after it do not race
// with each other.
extern "C" __global__ void write_write(int *out)
{
    __shared__ int flag;
    __shared__ int count;
    if (threadIdx.x == 0) count = 0;
    __syncthreads();
    flag = threadIdx.x;
    atomicAdd(&count, 1);
    __syncthreads();
    if (threadIdx.x == 0) {
        out[0] = count;
        out[1] = flag;
    }
}

// read_then_write: threads read a slot that thread 0 then overwrites
// without a barrier between (a write after reads of other threads).
extern "C" __global__ void read_then_write(int *out)
{
    __shared__ int s[1];
    if (threadIdx.x == 0) s[0] = 7;
    __syncthreads();
    out[threadIdx.x] = s[0];
    if (threadIdx.x == 64) s[0] = 9;
}

// spin_lock: every thread takes one global lock with the loop that needs
// independent thread scheduling (lanes of one warp spin while another
// lane of it holds the lock), adds to a count and releases the lock.
extern "C" __global__ void spin_lock(int *lock, int *count)
{
    while (atomicCAS(lock, 0, 1) != 0) {}
    __threadfence();
    *(volatile int *)count = *(volatile int *)count + 1;
    __threadfence();
    atomicExch(lock, 0);
}

// shift_shared: each thread reads its right neighbour's slot, then
// overwrites its own with no barrier between: thread t's write races
// with thread t-1's read of s[t] (a store that meets a read).
extern "C" __global__ void shift_shared(int *out)
{
    __shared__ int s[1025];
    int t = threadIdx.x;
    s[t] = t;
    if (t == 0) s[blockDim.x] = 0;
    __syncthreads();
    int v = s[t + 1];
    s[t] = v;
    __syncthreads();
    out[t] = s[t];
}
