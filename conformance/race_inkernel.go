package conformance

import (
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// inKernelRaceSource holds racy kernels beside their race-free twins, for
// the in-kernel race checks: each twin computes a result the case checks
// on every backend; a racy one runs only where a race detector is on, and
// must be reported.
const inKernelRaceSource = `
extern "C" __global__ void incr_plain(int *x) { x[0]++; }
extern "C" __global__ void incr_atomic(int *x) { atomicAdd(x, 1); }

extern "C" __global__ void next_block(int *a, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = i;
    out[i] = a[((blockIdx.x + 1) % gridDim.x) * blockDim.x + threadIdx.x];
}
extern "C" __global__ void own_block(int *a, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = i;
    __syncthreads();
    out[i] = a[blockIdx.x * blockDim.x + (threadIdx.x + 1) % blockDim.x];
}
extern "C" __global__ void warp_nosync(int *a, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = i;
    out[i] = a[(i & ~31) + (i + 1) % 32];
}
extern "C" __global__ void warp_sync(int *a, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = i;
    __syncwarp();
    out[i] = a[(i & ~31) + (i + 1) % 32];
}

// threadFenceReduction's last-block pattern; fence 0 drops the fence.
extern "C" __global__ void fence_reduction(const int *in, int *partial, unsigned *ticket, int *result, int fence) {
    __shared__ bool last;
    if (threadIdx.x == 0) {
        int s = 0;
        for (int j = 0; j < blockDim.x; j++) s += in[blockIdx.x * blockDim.x + j];
        partial[blockIdx.x] = s;
        if (fence) __threadfence();
        last = atomicInc(ticket, gridDim.x) == gridDim.x - 1;
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
    unsigned long long *p = (unsigned long long *)address;
    unsigned long long old = *p, assumed;
    do {
        assumed = old;
        old = atomicCAS(p, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));
    } while (assumed != old);
    return __longlong_as_double(old);
}
extern "C" __global__ void cas_loop(double *sum) { cas_add(sum, 1.0); }

// Block-scope atomics on one word from several blocks, and on a word per block.
extern "C" __global__ void atomic_block_shared_word(int *x) { atomicAdd_block(x, 1); }
extern "C" __global__ void atomic_block_own_word(int *x) { atomicAdd_block(&x[blockIdx.x], 1); }

// Message passing between blocks by a flag: the release fence belongs on
// the writer's side, between the data and the flag (the reader's strong
// loads acquire); without it the data races.
extern "C" __global__ void message_fence(int *data, volatile int *flag, int *out, int fence) {
    if (blockIdx.x == 0) {
        data[threadIdx.x] = threadIdx.x + 1;
        __syncthreads();
        if (threadIdx.x == 0) { if (fence) __threadfence(); *flag = 1; }
    } else {
        if (threadIdx.x == 0) while (*flag == 0) {}
        __syncthreads();
        out[threadIdx.x] = data[threadIdx.x];
    }
}

// A worklist whose counter is bumped with x++, and with atomicAdd.
extern "C" __global__ void worklist(int *count, int *items, int atomic) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i % 4 != 0) return;
    int slot;
    if (atomic) slot = atomicAdd(count, 1);
    else { slot = count[0]; count[0] = slot + 1; }
    items[slot % (blockDim.x * gridDim.x)] = i;
}

// A spin lock taken with atomicCAS, released with a fence and atomicExch,
// or with a plain (volatile) store and no fence.
extern "C" __global__ void lock_count(int *lock, int *counter, int fenced) {
    if (threadIdx.x == 0) {
        while (atomicCAS(lock, 0, 1) != 0) {}
        __threadfence();
        counter[0] = counter[0] + 1;
        if (fenced) { __threadfence(); atomicExch(lock, 0); }
        else *(volatile int *)lock = 0;
    }
}
`

// inKernelGridSource: grid.sync orders the blocks of a cooperative
// launch; without it a block's read of the next block's row races.
const inKernelGridSource = `#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void rotate_rows(int *a, int *out, int sync) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = i;
    if (sync) cg::this_grid().sync();
    out[i] = a[((blockIdx.x + 1) % gridDim.x) * blockDim.x + threadIdx.x];
}
`

// testRacesInKernel runs the in-kernel race twins: each race-free kernel's
// result is checked on every backend (and, the suite's race check being
// on, must raise no report on the fake); each racy one, where a race
// detector is on, must be reported as a race inside the kernel.
func testRacesInKernel(t *testing.T, drv *driver.Driver) {
	NVIDIACompiler(t, drv)
	ctx := streamContext(t, drv, 0)
	s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	must(t, err)
	t.Cleanup(func() { s.Close() })
	r := sampleRig{ctx: ctx, s: s}
	m := r.compile(t, "inkernel_races.cu", inKernelRaceSource, module.Options{})
	_, detector := raceDetector(t, drv)
	racy := func(t *testing.T, name string, cfg module.Config, args ...any) {
		t.Helper()
		if !detector {
			return
		}
		must(t, fn(t, m, name).Launch(s, cfg, args...))
		must(t, s.Synchronize())
		expectRace(t, drv, "GLOBAL MEMORY RACE", "kernel "+name)
	}
	const blocks, threads = 8, 64
	cfg := module.Config{Grid: module.Dim(blocks), Block: module.Dim(threads)}
	iota := func(n int) []int32 {
		v := make([]int32, n)
		for i := range v {
			v[i] = int32(i)
		}
		return v
	}
	t.Run("plain increment", func(t *testing.T) {
		x := deviceCopy(t, ctx, []int32{0})
		must(t, fn(t, m, "incr_atomic").Launch(s, cfg, x))
		sameInts(t, "count", hostCopy(t, s, x), []int32{blocks * threads})
		racy(t, "incr_plain", cfg, x)
	})
	t.Run("blocks", func(t *testing.T) {
		a, out := deviceCopy(t, ctx, make([]int32, blocks*threads)), deviceCopy(t, ctx, make([]int32, blocks*threads))
		must(t, fn(t, m, "own_block").Launch(s, cfg, a, out))
		want := make([]int32, blocks*threads)
		for i := range want {
			want[i] = int32(i/threads*threads + (i%threads+1)%threads)
		}
		sameInts(t, "out", hostCopy(t, s, out), want)
		racy(t, "next_block", cfg, a, out)
	})
	t.Run("warp", func(t *testing.T) {
		a, out := deviceCopy(t, ctx, make([]int32, blocks*threads)), deviceCopy(t, ctx, make([]int32, blocks*threads))
		must(t, fn(t, m, "warp_sync").Launch(s, cfg, a, out))
		want := make([]int32, blocks*threads)
		for i := range want {
			want[i] = int32(i&^31 + (i+1)%32)
		}
		sameInts(t, "out", hostCopy(t, s, out), want)
		racy(t, "warp_nosync", cfg, a, out)
	})
	t.Run("threadFenceReduction", func(t *testing.T) {
		in := deviceCopy(t, ctx, iota(blocks*threads))
		partial := deviceCopy(t, ctx, make([]int32, blocks))
		ticket := deviceCopy(t, ctx, []uint32{0})
		result := deviceCopy(t, ctx, []int32{0})
		must(t, fn(t, m, "fence_reduction").Launch(s, cfg, in, partial, ticket, result, int32(1)))
		n := int32(blocks * threads)
		sameInts(t, "sum", hostCopy(t, s, result), []int32{n * (n - 1) / 2})
		racy(t, "fence_reduction", cfg, in, partial, deviceCopy(t, ctx, []uint32{0}), result, int32(0))
	})
	t.Run("atomicCAS loop", func(t *testing.T) {
		sum := deviceCopy(t, ctx, []float64{0})
		must(t, fn(t, m, "cas_loop").Launch(s, cfg, sum))
		if got := hostCopy(t, s, sum)[0]; got != blocks*threads {
			t.Errorf("sum = %v, want %d", got, blocks*threads)
		}
	})
	t.Run("block-scope atomics", func(t *testing.T) {
		x := deviceCopy(t, ctx, make([]int32, blocks))
		must(t, fn(t, m, "atomic_block_own_word").Launch(s, cfg, x))
		want := make([]int32, blocks)
		for i := range want {
			want[i] = threads
		}
		sameInts(t, "counts", hostCopy(t, s, x), want)
		racy(t, "atomic_block_shared_word", cfg, x)
	})
	t.Run("message passing", func(t *testing.T) {
		two := module.Config{Grid: module.Dim(2), Block: module.Dim(threads)}
		data, flag, out := deviceCopy(t, ctx, make([]int32, threads)), deviceCopy(t, ctx, []int32{0}), deviceCopy(t, ctx, make([]int32, threads))
		must(t, fn(t, m, "message_fence").Launch(s, two, data, flag, out, int32(1)))
		want := make([]int32, threads)
		for i := range want {
			want[i] = int32(i + 1)
		}
		sameInts(t, "out", hostCopy(t, s, out), want)
		racy(t, "message_fence", two, data, deviceCopy(t, ctx, []int32{0}), out, int32(0))
	})
	t.Run("worklist", func(t *testing.T) {
		count, items := deviceCopy(t, ctx, []int32{0}), deviceCopy(t, ctx, make([]int32, blocks*threads))
		must(t, fn(t, m, "worklist").Launch(s, cfg, count, items, int32(1)))
		sameInts(t, "count", hostCopy(t, s, count), []int32{blocks * threads / 4})
		racy(t, "worklist", cfg, deviceCopy(t, ctx, []int32{0}), items, int32(0))
	})
	t.Run("lock", func(t *testing.T) {
		lock, counter := deviceCopy(t, ctx, []int32{0}), deviceCopy(t, ctx, []int32{0})
		must(t, fn(t, m, "lock_count").Launch(s, cfg, lock, counter, int32(1)))
		sameInts(t, "counter", hostCopy(t, s, counter), []int32{blocks})
		racy(t, "lock_count", cfg, deviceCopy(t, ctx, []int32{0}), counter, int32(0))
	})
	t.Run("grid.sync", func(t *testing.T) {
		g := r.compile(t, "inkernel_grid.cu", inKernelGridSource, module.Options{IncludePaths: cudaHeaders(t), Std: "c++17"})
		coop := module.Config{Grid: module.Dim(blocks), Block: module.Dim(threads), Cooperative: true}
		a, out := deviceCopy(t, ctx, make([]int32, blocks*threads)), deviceCopy(t, ctx, make([]int32, blocks*threads))
		must(t, fn(t, g, "rotate_rows").Launch(s, coop, a, out, int32(1)))
		want := make([]int32, blocks*threads)
		for i := range want {
			want[i] = int32((i/threads+1)%blocks*threads + i%threads)
		}
		sameInts(t, "out", hostCopy(t, s, out), want)
		if detector {
			must(t, fn(t, g, "rotate_rows").Launch(s, coop, a, out, int32(0)))
			must(t, s.Synchronize())
			expectRace(t, drv, "GLOBAL MEMORY RACE", "kernel rotate_rows")
		}
	})
}
