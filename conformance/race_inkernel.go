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
}
