package ptxexec

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loadAsync compiles testdata/async_<arch>.ptx (async.cu: grid.sync and
// cp.async kernels) and binds its globals in a fresh memory.
func loadAsync(t testing.TB, arch string) (*Program, *testMem) {
	src, err := os.ReadFile("testdata/async_" + arch + ".ptx")
	require.NoError(t, err)
	p, err := Compile(string(src))
	require.NoError(t, err)
	mem := newMem()
	mem.bind(p)
	return p, mem
}

func TestGridSync(t *testing.T) {
	for _, arch := range []string{"80", "90"} {
		p, mem := loadAsync(t, arch)
		const n = 3000
		xs := make([]float32, n)
		var want float32
		for i := range xs {
			xs[i] = float32(i % 7)
			want += xs[i]
		}
		in, part, out := mem.f32s(xs), mem.f32s(make([]float32, 4)), mem.f32s([]float32{-1, -1})
		k := p.Kernels["grid_sum"]
		l := &Launch{Grid: dim(12), Block: dim(256), Params: params(t, k, in, part, out, int32(n)), Mem: mem, SMs: 132, Cooperative: true}
		require.NoError(t, k.Run(l), arch)
		assert.Equal(t, []float32{want, want}, mem.readF32(out, 2), "sm_%s: the total after grid.sync, and after a second one", arch)
	}
}

// TestGridSyncNotCooperative: grid.sync in a launch that is not
// cooperative finds no grid workspace (%envreg1:%envreg2 are 0) and
// cooperative_groups' code traps, as on the GPU.
func TestGridSyncNotCooperative(t *testing.T) {
	p, mem := loadAsync(t, "80")
	in, part, out := mem.f32s(make([]float32, 64)), mem.f32s(make([]float32, 4)), mem.f32s([]float32{-1, -1})
	k := p.Kernels["grid_sum"]
	err := k.Run(&Launch{Grid: dim(2), Block: dim(32), Params: params(t, k, in, part, out, int32(64)), Mem: mem, SMs: 132})
	var f *Fault
	require.True(t, errors.As(err, &f), "%v", err)
	assert.Equal(t, CodeLaunchFailed, f.Code)
	assert.Equal(t, "trap", f.Msg)
	assert.Equal(t, []float32{-1, -1}, mem.readF32(out, 2), "nothing past the trap ran")
}

// TestReductionMultiBlockCG runs NVIDIA's reductionMultiBlockCG pattern:
// a grid-stride loop, a tree in shared memory, grid.sync, then block 0
// reduces the blocks' partials.
func TestReductionMultiBlockCG(t *testing.T) {
	p, mem := loadAsync(t, "90")
	const n = 1 << 16
	xs := make([]float32, n)
	var want float32
	for i := range xs {
		xs[i] = float32(i % 5)
		want += xs[i]
	}
	const blocks, threads = 20, 128
	in, partials, out := mem.f32s(xs), mem.f32s(make([]float32, blocks)), mem.f32s([]float32{0})
	k := p.Kernels["reduce_multi_block"]
	l := &Launch{Grid: dim(blocks), Block: dim(threads), DynShared: 4 * threads, Params: params(t, k, in, partials, out, int32(n)), Mem: mem, SMs: 132, Cooperative: true}
	require.NoError(t, k.Run(l))
	assert.Equal(t, want, mem.readF32(out, 1)[0])
}

func TestPipelineCopy(t *testing.T) {
	for _, arch := range []string{"80", "90"} {
		p, mem := loadAsync(t, arch)
		const n = 512
		xs := make([]float32, n)
		for i := range xs {
			xs[i] = float32(i)
		}
		in, out := mem.f32s(xs), mem.alloc(4*n)
		k := p.Kernels["pipe_copy"]
		require.NoError(t, k.Run(&Launch{Grid: dim(2), Block: dim(256), Params: params(t, k, in, out), Mem: mem, SMs: 132}))
		got := mem.readF32(out, n)
		for i := range got {
			b, th := i/256, i%256
			require.Equal(t, 2*xs[b*256+255-th], got[i], "sm_%s element %d", arch, i)
		}
	}
}

// TestPipelineStages: two committed groups of 16-byte copies, the second
// zero-filled for the threads that ask for 16 bytes of zero fill (a
// source size of 0).
func TestPipelineStages(t *testing.T) {
	p, mem := loadAsync(t, "80")
	xs := make([]float32, 4*128)
	for i := range xs {
		xs[i] = float32(i + 1)
	}
	in, out := mem.f32s(xs), mem.alloc(4*len(xs))
	k := p.Kernels["pipe_stages"]
	require.NoError(t, k.Run(&Launch{Grid: dim(1), Block: dim(64), Params: params(t, k, in, out), Mem: mem, SMs: 132}))
	got := mem.readF32(out, len(xs))
	for t4 := 0; t4 < 64; t4++ {
		for c := 0; c < 4; c++ {
			require.Equal(t, xs[4*(63-t4)+c], got[4*t4+c], "first stage, element %d.%d", t4, c)
			src := 63 - t4 // the thread that copied b[63-t4]
			want := xs[4*(64+src)+c]
			if src >= 32 {
				want = 0 // zfill 16: a source size of 0
			}
			require.Equal(t, want, got[4*(64+t4)+c], "second stage, element %d.%d", t4, c)
		}
	}
}

// TestPipelineCopyFault: a cp.async from outside any allocation fails the
// launch with CUDA_ERROR_ILLEGAL_ADDRESS and names the instruction.
func TestPipelineCopyFault(t *testing.T) {
	p, mem := loadAsync(t, "80")
	out := mem.alloc(4 * 256)
	k := p.Kernels["pipe_copy"]
	err := k.Run(&Launch{Grid: dim(1), Block: dim(256), Params: params(t, k, uint64(0x10), out), Mem: mem, SMs: 132})
	var f *Fault
	require.True(t, errors.As(err, &f), "%v", err)
	assert.Equal(t, CodeIllegalAddress, f.Code)
	assert.Contains(t, f.Instr, "cp.async")
}

// TestFaultSourceLine: in a kernel compiled with -lineinfo, a fault names
// the CUDA C file and line of the faulting statement (the caller's line
// when the instruction comes from an inlined header function), besides
// the PTX line.
func TestFaultSourceLine(t *testing.T) {
	p, mem := loadAsync(t, "80")
	out := mem.alloc(4 * 256)
	k := p.Kernels["pipe_copy"]
	err := k.Run(&Launch{Grid: dim(1), Block: dim(256), Params: params(t, k, uint64(0x10), out), Mem: mem, SMs: 132})
	var f *Fault
	require.True(t, errors.As(err, &f), "%v", err)
	assert.True(t, strings.HasSuffix(f.File, "async.cu"), f.File)
	assert.Equal(t, asyncLine(t, "__pipeline_memcpy_async(&s[t]"), f.FileLine)
	assert.Contains(t, f.Error(), fmt.Sprintf("async.cu:%d)", f.FileLine))
	assert.Contains(t, f.Error(), fmt.Sprintf("ptx line %d", f.Line))
}

// asyncLine returns the line of testdata/async.cu that contains text.
func asyncLine(t *testing.T, text string) int {
	src, err := os.ReadFile("testdata/async.cu")
	require.NoError(t, err)
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, text) {
			return i + 1
		}
	}
	t.Fatalf("no %q in async.cu", text)
	return 0
}

// TestMbarrier: threads meet at an mbarrier (arrive, spin on test_wait)
// for three phases, the first warp dropping out after the second.
func TestMbarrier(t *testing.T) {
	for _, arch := range []string{"80", "90"} {
		p, mem := loadAsync(t, arch)
		const n = 128
		xs := make([]float32, n)
		for i := range xs {
			xs[i] = float32(i)
		}
		in, out := mem.f32s(xs), mem.f32s(make([]float32, 2*(n+1)))
		k := p.Kernels["mbar_exchange"]
		for _, workers := range []int{1, 2} {
			require.NoError(t, k.Run(&Launch{Grid: dim(2), Block: dim(n), Params: params(t, k, in, out), Mem: mem, SMs: 132, Workers: workers}), arch)
			got := mem.readF32(out, 2*(n+1))
			for b := 0; b < 2; b++ {
				o := got[b*(n+1):]
				for i := 0; i < n; i++ {
					require.Equal(t, 2*xs[n-1-i], o[i], "sm_%s block %d element %d", arch, b, i)
				}
				assert.Equal(t, float32(1), o[n], "sm_%s block %d: the third phase, without the first warp", arch, b)
			}
		}
	}
}

// TestMbarrierParity: try_wait.parity, and a phase that completes only
// when its transaction bytes (expect_tx) are complete_tx'd.
func TestMbarrierParity(t *testing.T) {
	p, mem := loadAsync(t, "90")
	const n = 64
	ins := make([]int32, n)
	for i := range ins {
		ins[i] = int32(10 * i)
	}
	in, out := mem.i32s(ins), mem.i32s(make([]int32, n))
	k := p.Kernels["mbar_parity"]
	require.NoError(t, k.Run(&Launch{Grid: dim(1), Block: dim(n), Params: params(t, k, in, out), Mem: mem, SMs: 132}))
	got := mem.readI32(out, n)
	for i := range got {
		require.Equal(t, ins[(i+1)%n]+1, got[i], "element %d", i)
	}
}

// TestMbarrierMisuse: an arrive on an mbarrier that was never initialised
// (no pending arrivals) fails the launch, naming the instruction.
func TestMbarrierMisuse(t *testing.T) {
	src := `.version 7.8
.target sm_80
.address_size 64
.visible .entry k()
{
	.reg .b64 %rd<2>;
	.shared .align 8 .b64 bar;
	mbarrier.arrive.shared.b64 %rd1, [bar];
	ret;
}
`
	p, err := Compile(src)
	require.NoError(t, err)
	err = p.Kernels["k"].Run(&Launch{Grid: dim(1), Block: dim(32), Mem: newMem(), SMs: 1})
	var f *Fault
	require.True(t, errors.As(err, &f), "%v", err)
	assert.Equal(t, CodeIllegalInstr, f.Code)
	assert.Contains(t, f.Instr, "mbarrier.arrive")
}
