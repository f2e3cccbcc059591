package conformance

import (
	"math/rand"
	"testing"
	"time"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// The inter-block group: kernels whose blocks wait for other blocks of the
// same launch (a flag, a lock taken with atomicCAS, a persistent work
// queue, a decoupled look-back scan, two blocks taking turns), each with a
// grid that is resident at once on the H200, so they end there; the fake
// runs such blocks as resident blocks and must end them with the same
// exact results. And an empty kernel on 2^31-1 blocks, which the H200
// runs in well under a second. Kernels that can never end (a flag nothing
// sets) are the fake's own tests: on a GPU they hang.

// InterBlockSource is the CUDA C of the group's kernels.
const InterBlockSource = `__device__ int ib_load_acquire(int *p) { return atomicAdd(p, 0); }

// flag_wait: block 0 waits for a flag that the grid's last block sets,
// then reads the value published before it.
extern "C" __global__ void ib_flag_wait(int *flag, int *out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    while (ib_load_acquire(&flag[0]) == 0) {
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
extern "C" __global__ void ib_lock_sum(int *lock, int *arrived, int *sum, int *order) {
  if (threadIdx.x != 0) return;
  atomicAdd(arrived, 1);
  while (ib_load_acquire(arrived) < gridDim.x) {
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
extern "C" __global__ void ib_work_queue(int *q, int *head, int *tail, int *pending, int *leaves, int *done) {
  if (threadIdx.x != 0) return;
  for (;;) {
    int t = atomicAdd(head, 1);
    int n;
    while ((n = ib_load_acquire(&q[t])) == 0) {
      if (ib_load_acquire(pending) == 0) return;
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
extern "C" __global__ void ib_lookback_scan(const int *in, int *out, unsigned long long *state, int *ticket) {
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
extern "C" __global__ void ib_ping_pong(int *ball, int *log, int rounds) {
  if (threadIdx.x != 0) return;
  int me = blockIdx.x;
  for (int r = 0; r < rounds; r++) {
    int v;
    while (((v = ib_load_acquire(ball)) & 1) != me) {
      __nanosleep(32);
    }
    log[v] = me;
    __threadfence();
    atomicAdd(ball, 1);
  }
}

extern "C" __global__ void ib_empty() {}
`

// testInterBlock is the inter-block group.
func testInterBlock(t *testing.T, drv *driver.Driver) {
	NVIDIACompiler(t, drv)
	dev, err := drv.Device(0)
	must(t, err)
	ctx, err := dev.PrimaryContext()
	must(t, err)
	t.Cleanup(func() { ctx.Close() })
	s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	must(t, err)
	t.Cleanup(func() { s.Close() })
	m, err := module.Compile(ctx, InterBlockSource, module.Options{Name: "conformance_interblock.cu", NoCache: true})
	must(t, err)
	t.Cleanup(func() { m.Close() })
	fn := func(name string) *module.Function {
		f, err := m.Function(name)
		must(t, err)
		return f
	}
	cfg := func(grid, block int) module.Config {
		return module.Config{Grid: module.Dim(grid), Block: module.Dim(block)}
	}

	t.Run("flag", func(t *testing.T) {
		flag, out := deviceCopy(t, ctx, []int32{0, 0}), deviceCopy(t, ctx, []int32{0})
		must(t, fn("ib_flag_wait").Launch(s, cfg(64, 64), flag, out))
		equal(t, hostCopy(t, s, out)[0], int32(42), "block 0 read what the last block published before its flag")
	})
	t.Run("lock", func(t *testing.T) {
		const blocks = 24
		lock, arrived, sum := deviceCopy(t, ctx, []int32{0}), deviceCopy(t, ctx, []int32{0}), deviceCopy(t, ctx, []int32{0, 0})
		order := deviceCopy(t, ctx, make([]int32, 1024))
		must(t, fn("ib_lock_sum").Launch(s, cfg(blocks, 32), lock, arrived, sum, order))
		equal(t, hostCopy(t, s, sum), []int32{blocks, blocks * (blocks + 1) / 2}, "adds under the lock")
		seen := map[int32]bool{}
		for _, b := range hostCopy(t, s, order)[:blocks] {
			seen[b] = true
		}
		equal(t, len(seen), blocks, "each block took the lock once")
		equal(t, hostCopy(t, s, lock)[0], int32(0), "the lock is free")
	})
	t.Run("work-queue", func(t *testing.T) {
		const n, blocks = 300, 6
		q := make([]int32, 2*n+blocks+8)
		q[0] = n
		dq := deviceCopy(t, ctx, q)
		head, tail, pending := deviceCopy(t, ctx, []int32{0}), deviceCopy(t, ctx, []int32{1}), deviceCopy(t, ctx, []int32{1})
		leaves, done := deviceCopy(t, ctx, []int32{0}), deviceCopy(t, ctx, make([]int32, blocks))
		must(t, fn("ib_work_queue").Launch(s, cfg(blocks, 32), dq, head, tail, pending, leaves, done))
		equal(t, hostCopy(t, s, leaves)[0], int32(n), "leaves")
		var tasks int32
		for _, d := range hostCopy(t, s, done) {
			tasks += d
		}
		equal(t, tasks, int32(2*n-1), "tasks done")
	})
	t.Run("lookback-scan", func(t *testing.T) {
		const tiles, bs = 40, 128
		in := make([]int32, tiles*bs)
		want := make([]int32, len(in))
		r := rand.New(rand.NewSource(1))
		var sum int32
		for i := range in {
			in[i] = int32(r.Intn(200) - 100)
			sum += in[i]
			want[i] = sum
		}
		din, out := deviceCopy(t, ctx, in), deviceCopy(t, ctx, make([]int32, len(in)))
		state, ticket := deviceCopy(t, ctx, make([]uint64, tiles)), deviceCopy(t, ctx, []int32{0})
		must(t, fn("ib_lookback_scan").Launch(s, cfg(tiles, bs), din, out, state, ticket))
		equal(t, hostCopy(t, s, out), want, "inclusive scan")
	})
	t.Run("ping-pong", func(t *testing.T) {
		const rounds = 50
		ball, log := deviceCopy(t, ctx, []int32{0}), deviceCopy(t, ctx, make([]int32, 2*rounds))
		must(t, fn("ib_ping_pong").Launch(s, cfg(2, 32), ball, log, int32(rounds)))
		equal(t, hostCopy(t, s, ball)[0], int32(2*rounds), "moves")
		want := make([]int32, 2*rounds)
		for i := range want {
			want[i] = int32(i % 2)
		}
		equal(t, hostCopy(t, s, log), want, "the blocks alternate")
	})
	t.Run("empty-largest-grid", func(t *testing.T) {
		start := time.Now()
		must(t, fn("ib_empty").Launch(s, cfg(1<<31-1, 1)))
		must(t, s.Synchronize())
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("an empty kernel on 2^31-1 blocks took %v", d)
		}
	})
}
