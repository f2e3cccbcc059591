package fake_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
)

// inKernelRaceSrc: each thread writes its element and reads the next
// thread's, with no barrier (a race between the warps at each warp's
// last lane, and at the block's end), in one kernel; and the same with
// __syncthreads between.
const inKernelRaceSrc = `extern "C" __global__ void shift(int *a, int *out, int sync) {
    int i = threadIdx.x;
    int v = a[(i + 1) % blockDim.x];
    if (sync) __syncthreads();
    a[i] = i + 1;
    out[i] = v;
}
`

// A race between two threads of one launch is one GlobalMemoryRace per
// pair of instructions, naming both accesses, their threads and blocks,
// the PTX instructions, the .cu lines, the bytes and the kernel; the
// read that ran before the write it races with and found nothing written
// is folded into it (Hazard.Unwritten), not a second UninitializedRead.
// With the barrier (and a zeroed a, so that the read reads what a memset
// wrote), nothing is reported.
func TestGlobalMemoryRaceReport(t *testing.T) {
	for _, sync := range []int32{0, 1} {
		ctx, got := raceContext(t)
		m, err := module.Compile(ctx, inKernelRaceSrc, module.Options{NoCache: true, LineInfo: true})
		if err != nil {
			if os.Getenv("NOCGO_CUDA_REQUIRE_NVRTC") == "1" {
				t.Fatal(err)
			}
			t.Skipf("no NVRTC: %v", err)
		}
		defer m.Close()
		f, err := m.Function("shift")
		require.NoError(t, err)
		s := named(t, ctx, "work")
		alloc := memory.Alloc[int32]
		if sync == 1 {
			alloc = memory.AllocZeroed[int32]
		}
		a, err := alloc(ctx, 64)
		require.NoError(t, err)
		defer a.Close()
		out, err := memory.Alloc[int32](ctx, 64)
		require.NoError(t, err)
		defer out.Close()
		require.NoError(t, f.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(64)}, a, out, sync))
		require.NoError(t, s.Synchronize())
		if sync == 1 {
			assert.Empty(t, *got, "race-free with __syncthreads")
			continue
		}
		// One pair of sites (thread i reads what thread i+1 writes): the
		// reads run first and find nothing written. No UninitializedRead
		// besides.
		require.Len(t, *got, 1, "one report a pair of sites: %v", *got)
		h := (*got)[0]
		assert.Equal(t, fake.GlobalMemoryRace, h.Kind)
		assert.True(t, h.Unwritten, "the read found what nothing had written: folded in")
		assert.Equal(t, uintptr(4), h.Size)
		assert.Equal(t, a.Ptr(), h.Alloc)
		assert.Equal(t, "read", h.Previous.Kind)
		assert.Equal(t, "write", h.Current.Kind)
		require.NotNil(t, h.Previous.Kernel)
		require.NotNil(t, h.Current.Kernel)
		// The reader is the thread before the writer's (i reads i+1).
		assert.Equal(t, h.Current.Kernel.Thread[0], (h.Previous.Kernel.Thread[0]+1)%64)
		assert.Equal(t, [3]uint32{}, h.Current.Kernel.Block)
		assert.Contains(t, h.Previous.Kernel.Instr, "ld.global")
		assert.Contains(t, h.Current.Kernel.Instr, "st.global")
		assert.True(t, strings.HasSuffix(h.Previous.Kernel.Source, ":3"), "the read's .cu line: %s", h.Previous.Kernel.Source)
		assert.True(t, strings.HasSuffix(h.Current.Kernel.Source, ":5"), "the write's .cu line: %s", h.Current.Kernel.Source)
		str := h.String()
		for _, want := range []string{"GLOBAL MEMORY RACE", "kernel shift", "Write of 4 bytes", "Previous read", "ld.global", "st.global",
			"block (0,0,0) thread", `stream "work"`, "found bytes nothing had written yet"} {
			assert.Contains(t, str, want)
		}
	}
}

// lockSrc takes a lock word with atomicCAS, as a spin lock's first try.
const lockSrc = `extern "C" __global__ void take(int *lock, int *out) {
    if (threadIdx.x == 0) out[0] = atomicCAS(lock, 0, 1);
}
`

// An atomicCAS on a lock word nothing wrote (as cudaMalloc left it: the
// fake's poison would make a spin on it never end) is one
// UninitializedRead naming the kernel's atomic; with the word zeroed
// first on the same stream, nothing is reported.
func TestRaceUnwrittenLockWord(t *testing.T) {
	for _, zeroed := range []bool{false, true} {
		ctx, got := raceContext(t)
		m, err := module.Compile(ctx, lockSrc, module.Options{NoCache: true, LineInfo: true})
		if err != nil {
			if os.Getenv("NOCGO_CUDA_REQUIRE_NVRTC") == "1" {
				t.Fatal(err)
			}
			t.Skipf("no NVRTC: %v", err)
		}
		defer m.Close()
		f, err := m.Function("take")
		require.NoError(t, err)
		s := named(t, ctx, "locks")
		lock, err := memory.Alloc[int32](ctx, 1)
		require.NoError(t, err)
		defer lock.Close()
		out, err := memory.Alloc[int32](ctx, 1)
		require.NoError(t, err)
		defer out.Close()
		if zeroed {
			require.NoError(t, memory.Fill(s, lock, 0))
		}
		require.NoError(t, f.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(32)}, lock, out))
		require.NoError(t, s.Synchronize())
		if zeroed {
			assert.Empty(t, *got, "the lock word was written first")
			continue
		}
		require.Len(t, *got, 1, "%v", *got)
		h := (*got)[0]
		assert.Equal(t, fake.UninitializedRead, h.Kind)
		assert.Equal(t, lock.Ptr(), h.Alloc)
		require.NotNil(t, h.Current.Kernel)
		assert.Contains(t, h.Current.Kernel.Instr, "atom.global")
		assert.Contains(t, h.Current.Stream, `stream "locks"`)
	}
}
