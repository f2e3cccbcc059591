// Kernels whose blocks wait for other blocks of the same launch: they end
// only where the blocks they wait for are resident with them, as on a GPU.
// gen_spin.py compiles them to spin_90.ptx (with -lineinfo).

__device__ int load_acquire(int *p) { return atomicAdd(p, 0); }

// flag_wait: block 0 waits for a flag that the grid's last block sets,
// then reads the value published before it.
extern "C" __global__ void flag_wait(int *flag, int *out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    while (load_acquire(&flag[0]) == 0) {
    }
    out[0] = *(volatile int *)&flag[1];
  } else if (blockIdx.x == gridDim.x - 1) {
    flag[1] = 42;
    __threadfence();
    atomicExch(&flag[0], 1);
  }
}

// lock_sum: the blocks meet at a software grid barrier, then add to a
// plain word under a lock taken with atomicCAS and given back with
// atomicExch, fenced on both sides.
extern "C" __global__ void lock_sum(int *lock, int *arrived, int *sum, int *order) {
  if (threadIdx.x != 0) return;
  atomicAdd(arrived, 1);
  while (load_acquire(arrived) < gridDim.x) {
  }
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  __threadfence();
  volatile int *s = sum;
  int v = s[0];
  order[v % 1024] = blockIdx.x;
  s[0] = v + 1;
  s[1] += blockIdx.x + 1;
  __threadfence();
  atomicExch(lock, 0);
}

// work_queue: a persistent kernel. Each block's first thread takes tickets
// for queue slots; a task n > 1 pushes n/2 and n-n/2, a task of 1 counts
// a leaf. Blocks end when no task is pending.
extern "C" __global__ void work_queue(int *q, int *head, int *tail, int *pending, int *leaves, int *done) {
  if (threadIdx.x != 0) return;
  for (;;) {
    int t = atomicAdd(head, 1);
    int n;
    while ((n = load_acquire(&q[t])) == 0) {
      if (load_acquire(pending) == 0) return;
    }
    if (n > 1) {
      atomicAdd(pending, 2);
      int s = atomicAdd(tail, 2);
      atomicExch(&q[s], n / 2);
      atomicExch(&q[s + 1], n - n / 2);
    } else {
      atomicAdd(leaves, 1);
    }
    atomicAdd(&done[blockIdx.x], 1);
    atomicSub(pending, 1);
  }
}

// lookback_scan: an inclusive scan of in, a tile of blockDim.x values per
// block, by decoupled look-back: a block takes its tile by ticket,
// publishes its tile's sum (flag 1) and, once it knows its prefix, its
// inclusive prefix (flag 2), each as one 64-bit word; a later tile sums
// the earlier ones' words back to the first inclusive prefix.
extern "C" __global__ void lookback_scan(const int *in, int *out, unsigned long long *state, int *ticket) {
  __shared__ int tile;
  __shared__ int sh[1024];
  __shared__ int prefix;
  if (threadIdx.x == 0) tile = atomicAdd(ticket, 1);
  __syncthreads();
  int i = tile * blockDim.x + threadIdx.x;
  sh[threadIdx.x] = in[i];
  __syncthreads();
  for (int d = 1; d < blockDim.x; d *= 2) {
    int v = threadIdx.x >= d ? sh[threadIdx.x - d] : 0;
    __syncthreads();
    sh[threadIdx.x] += v;
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    int agg = sh[blockDim.x - 1];
    int p = 0;
    if (tile == 0) {
      atomicExch(&state[0], 2ull << 32 | (unsigned)agg);
    } else {
      atomicExch(&state[tile], 1ull << 32 | (unsigned)agg);
      for (int j = tile - 1; j >= 0;) {
        unsigned long long w = atomicAdd(&state[j], 0ull);
        int flag = (int)(w >> 32);
        if (flag == 0) continue;
        p += (int)(unsigned)w;
        if (flag == 2) break;
        j--;
      }
      atomicExch(&state[tile], 2ull << 32 | (unsigned)(p + agg));
    }
    prefix = p;
  }
  __syncthreads();
  out[i] = prefix + sh[threadIdx.x];
}

// ping_pong: two blocks take turns rounds times each: block b moves the
// ball when its count has b's parity, and logs who moved it.
extern "C" __global__ void ping_pong(int *ball, int *log, int rounds) {
  if (threadIdx.x != 0) return;
  int me = blockIdx.x;
  for (int r = 0; r < rounds; r++) {
    int v;
    while (((v = load_acquire(ball)) & 1) != me) {
      __nanosleep(32);
    }
    log[v] = me;
    __threadfence();
    atomicAdd(ball, 1);
  }
}

// never_set: every thread of every block waits for a flag nothing sets.
extern "C" __global__ void never_set(int *flag) {
  while (load_acquire(flag) == 0) {
  }
}

// last_block: every block but the last waits for a flag the last one
// sets: it ends only if the whole grid is resident at once.
extern "C" __global__ void last_block(int *flag) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == gridDim.x - 1) {
    atomicExch(flag, 1);
    return;
  }
  while (load_acquire(flag) == 0) {
  }
}

// lock_held: block 0 takes a lock and ends without giving it back; the
// others spin on it forever.
extern "C" __global__ void lock_held(int *lock, int *count) {
  if (threadIdx.x != 0) return;
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  atomicAdd(count, 1);
}

// empty does nothing.
extern "C" __global__ void empty() {}

// slow_flag: block 0 waits for block 1, which first loops long in
// registers only (a state that changes every round: not a deadlock).
extern "C" __global__ void slow_flag(int *flag, unsigned *out, int n) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    while (load_acquire(flag) == 0) {
    }
    out[1] = *(volatile unsigned *)&out[0];
    return;
  }
  unsigned acc = 1;
  for (int i = 0; i < n; i++) acc = acc * 1664525u + 1013904223u;
  out[0] = acc;
  __threadfence();
  atomicExch(flag, 1);
}

// sync_spin: every thread of a block waits at a barrier in each round of
// a wait for a flag that nothing sets.
extern "C" __global__ void sync_spin(int *flag) {
  __shared__ int seen;
  do {
    if (threadIdx.x == 0) seen = load_acquire(flag);
    __syncthreads();
  } while (seen == 0);
}
