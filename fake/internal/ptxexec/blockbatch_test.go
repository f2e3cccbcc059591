package ptxexec

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests of batches of blocks (blockbatch.go). Each launch runs on
// the block program as translated (batches where they apply), on the
// same block program without its batch plan (bp.batch nil: block after
// block, the reference the file's comment promises to equal) and on the
// general scheduler: the same error (a Fault: its code, thread, block,
// address, instruction and line) every way, and the same bytes as the
// reference.

// batchPrograms compiles fusedSrc twice: as translated, and without
// batch plans (its fused windows kept).
func batchPrograms(t *testing.T) (batched, blocks *Program) {
	t.Helper()
	batched, err := Compile(fusedSrc)
	require.NoError(t, err)
	blocks, err = Compile(fusedSrc)
	require.NoError(t, err)
	for _, k := range blocks.Kernels {
		if bp := k.blockProgram(&Launch{}); bp != nil {
			bp.batch = nil
		}
	}
	return batched, blocks
}

// compareBatch runs c on pb (batched), pr (the reference) and the
// scheduler as the file's comment says, and returns pb's memory and
// error.
func compareBatch(t *testing.T, pb, pr *Program, c fusedCase, workers int) (*testMem, error) {
	t.Helper()
	run := func(k *Kernel, scheduler bool) (*testMem, error) {
		mem := newMem()
		l := &Launch{Grid: dim(c.grid), Block: dim(c.block), Params: params(t, k, c.args(mem)...), Mem: mem, SMs: 132, Workers: workers, scheduler: scheduler}
		return mem, k.Run(l)
	}
	got, err := run(pb.Kernels[c.kernel], false)
	want, errWant := run(pr.Kernels[c.kernel], false)
	assert.Equal(t, errWant, err, "batched and block after block")
	_, errGeneral := run(pb.Kernels[c.kernel], true)
	assert.Equal(t, errGeneral, err, "batched and the scheduler")
	if c.fault {
		require.Error(t, err)
	} else {
		require.NoError(t, err)
	}
	// With Workers 2 a fault stops the other worker wherever it is: the
	// bytes are compared without one, or with Workers 1.
	if !c.fault || workers == 1 {
		require.Len(t, got.allocs, len(want.allocs))
		for i := range want.allocs {
			assert.True(t, bytes.Equal(want.allocs[i].data, got.allocs[i].data), "allocation %d differs", i)
		}
	}
	return got, err
}

// TestBatchFound checks which kernels findBatch takes: the elementwise
// ones whose position is only blockIdx.x*blockDim.x+threadIdx.x, not
// those with shared memory, barriers, loops, atomics, a window not right
// before the end, code after it, or another read of a position.
func TestBatchFound(t *testing.T) {
	pb, _ := batchPrograms(t)
	for name, want := range map[string]bool{
		"ew_add": true, "ew_axpy": true, "ew_interleaved": true, "ew_two": true, "ew_stencil": true, "ew_inplace2": true,
		"ew_loadafter": false, // two windows
		"ew_early":     false, // code after the window
		"ew_ftz":       false, // no window
		"tree_sum":     false, // shared memory, barriers
		"scale_loop":   false, // a loop
		"if_atom":      false,
	} {
		k := pb.Kernels[name]
		require.NotNil(t, k, name)
		bp := k.blockProgram(&Launch{})
		require.NotNil(t, bp, name)
		assert.Equal(t, want, bp.batch != nil, name)
	}
	// A kernel that reads a position elsewhere: %tid.x (its address
	// i + tid), %laneid, %ctaid.x (a store of the block's index), or
	// %ntid.x*%ctaid.x+%tid.x built of a mul and an add.
	for name, body := range map[string]string{
		"pos_tid": `
	add.s32 %r7, %r1, %r5;
	mul.wide.s32 %rd17, %r7, 4;
	add.s64 %rd18, %rd6, %rd17;
	ld.global.f32 %f1, [%rd18];
	add.f32 %f2, %f1, %f9;
	st.global.f32 [%rd15], %f2;`,
		"pos_lane": `
	mov.u32 %r7, %laneid;
	add.s32 %r8, %r1, %r7;
	mul.wide.s32 %rd17, %r8, 4;
	add.s64 %rd18, %rd6, %rd17;
	ld.global.f32 %f1, [%rd18];
	add.f32 %f2, %f1, %f9;
	st.global.f32 [%rd15], %f2;`,
		"pos_ctaid": `
	cvt.rn.f32.u32 %f3, %r3;
	ld.global.f32 %f1, [%rd12];
	add.f32 %f2, %f1, %f3;
	st.global.f32 [%rd15], %f2;`,
	} {
		p, err := Compile(header + ewEntry(name, body))
		require.NoError(t, err, name)
		bp := p.Kernels[name].blockProgram(&Launch{})
		require.NotNil(t, bp, name)
		assert.Nil(t, bp.batch, name)
	}
	p, _ := load(t, "90")
	assert.NotNil(t, p.Kernels["axpy"].blockProgram(&Launch{}).batch, "axpy")
	assert.Nil(t, p.Kernels["block_sum"].blockProgram(&Launch{}).batch, "block_sum")
}

// TestBatchRuns checks that runBatch runs a batch where it applies (on a
// machine run by hand: a block first, then the batch of the others), and
// declines where a guard splits the batch's threads or a run leaves its
// allocation, writing no memory then.
func TestBatchRuns(t *testing.T) {
	pb, _ := batchPrograms(t)
	k := pb.Kernels["ew_add"]
	const grid, block = 16, 64
	for _, c := range []struct {
		name string
		n    int // threads that run the body
		size int // elements of out
		ok   bool
	}{
		{"all", grid * block, grid * block, true},
		{"none", block, grid * block, true}, // every thread of blocks 1.. goes to the ret
		{"split", grid*block - 5, grid * block, false},
		{"short", grid * block, grid*block - 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			mem := newMem()
			x, y := mem.f32s(f32Ramp(grid*block, 0.5, 1)), mem.f32s(f32Ramp(grid*block, 0.25, 2))
			out := mem.alloc(4 * c.size)
			l := &Launch{Grid: dim(grid), Block: dim(block), Params: params(t, k, ewArgs(x, y, 0, out, 0, 0, int32(c.n), 0)...), Mem: mem, SMs: 132}
			m := k.newMachine(l, block, nil)
			require.NotNil(t, m.bp)
			m.setBlock(0)
			m.startBlock()
			require.NoError(t, m.runBlock())
			before := bytes.Clone(mem.bytes(out))
			require.Equal(t, c.ok, m.runBatch(1, grid-1))
			got := mem.readF32(out, c.size)
			xs, ys := f32Ramp(grid*block, 0.5, 1), f32Ramp(grid*block, 0.25, 2)
			switch {
			case !c.ok:
				assert.Equal(t, before, mem.bytes(out), "a declined batch wrote memory")
			default:
				for i := range c.size {
					want := float32(0)
					if i < c.n {
						want = xs[i] + ys[i]
					}
					require.Equal(t, math.Float32bits(want), math.Float32bits(got[i]), "out[%d]", i)
				}
			}
			assert.Equal(t, block, m.nt, "the machine's threads after the batch")
		})
	}
}

// TestBatchMatchesBlocks runs the batched kernels over grids and blocks
// of many shapes, with whole, partial and empty last blocks, with Workers
// 1 and 2: as block after block, as the scheduler, and as a reference.
func TestBatchMatchesBlocks(t *testing.T) {
	pb, pr := batchPrograms(t)
	const a = float32(1.75)
	// ew_stores' second store overlaps the next thread's first: a batch
	// declines it (crossThread), and the blocks run one by one.
	for _, name := range []string{"ew_add", "ew_axpy", "ew_interleaved", "ew_chain", "ew_two", "ew_mixed", "ew_inplace", "ew_inplace2", "ew_stencil", "ew_stores"} {
		for _, s := range []struct{ grid, block uint32 }{{8, 256}, {37, 64}, {100, 32}, {9, 1024}, {64, 100}, {300, 1}, {20, 33}} {
			total := int(s.grid * s.block)
			for _, n := range []int{total, total - 1, total - int(s.block) - 3, 17, 0} {
				if n < 0 {
					continue
				}
				xs, ys, zs := f32Ramp(total+2, 0.37, -3), f32Ramp(total+1, 0.11, 1), f32Ramp(total, -0.7, 2)
				var pout uint64
				c := fusedCase{kernel: name, grid: s.grid, block: s.block, args: func(m *testMem) []any {
					px, py := m.f32s(xs), m.f32s(ys)
					pout = m.alloc(4 * (total + 1))
					x := px
					if name == "ew_stencil" {
						x += 4
					}
					return ewArgs(x, py, m.f32s(zs), pout, m.alloc(4*total), a, int32(n), 0)
				}}
				for _, w := range []int{1, 2} {
					if name == "ew_stores" && w == 2 {
						// A block's second store writes what the next
						// block's first store writes: with two workers
						// which is last varies from run to run.
						continue
					}
					t.Run(fmt.Sprintf("%s/%dx%d/n=%d/workers=%d", name, s.grid, s.block, n, w), func(t *testing.T) {
						mem, _ := compareBatch(t, pb, pr, c, w)
						if name == "ew_add" {
							out := mem.readF32(pout, total)
							for i := range total {
								want := float32(0)
								if i < n {
									want = xs[i] + ys[i]
								}
								require.Equal(t, math.Float32bits(want), math.Float32bits(out[i]), "out[%d]", i)
							}
						}
					})
				}
			}
		}
	}
}

// TestBatchFaults cuts an allocation short inside a batch (at its first
// thread, its middle, its last, one past a block's end) and misaligns
// one: the same
// fault as block after block and as the scheduler (the lowest faulting
// block's), and with Workers 1 the same bytes (the batches before it ran
// whole, as those blocks do).
func TestBatchFaults(t *testing.T) {
	pb, pr := batchPrograms(t)
	for _, kernel := range []string{"ew_add", "ew_interleaved", "ew_two"} {
		const grid, block = 40, 64
		n := grid * block
		for _, short := range []int{0, 1, 3} { // x, y, out
			for _, cut := range []int{1, 40, block, block + 3, n/2 + 1, n - 5} {
				c := fusedCase{kernel: kernel, grid: grid, block: block, fault: true, args: func(m *testMem) []any {
					sizes := [4]int{n, n, n, n}
					sizes[short] -= cut
					x, y := m.f32s(f32Ramp(sizes[0], 0.5, 1)), m.f32s(f32Ramp(sizes[1], 0.25, -2))
					return ewArgs(x, y, 0, m.alloc(4*sizes[3]), m.alloc(4*n), 0, int32(n), 0)
				}}
				for _, w := range []int{1, 2} {
					t.Run(fmt.Sprintf("%s/short=%d/cut=%d/workers=%d", kernel, short, cut, w), func(t *testing.T) {
						_, err := compareBatch(t, pb, pr, c, w)
						requireCutFault(t, err, n-cut, block, short == 3)
					})
				}
			}
		}
	}
	t.Run("misaligned", func(t *testing.T) {
		c := fusedCase{kernel: "ew_add", grid: 40, block: 64, fault: true, args: func(m *testMem) []any {
			x := m.f32s(f32Ramp(2600, 0.5, 1))
			return ewArgs(x+2, m.f32s(f32Ramp(2600, 1, 0)), 0, m.alloc(4*2600), 0, 0, 2560, 0)
		}}
		_, err := compareBatch(t, pb, pr, c, 1)
		var f *Fault
		require.ErrorAs(t, err, &f)
		assert.Equal(t, CodeMisalignedAddress, f.Code)
	})
}

// TestBatchCrossThread checks that a batch declines a window whose store
// meets another thread's access (ew_shift with out one element above or
// below x, ew_stores' two stores a word apart), so that the blocks run
// in order, and takes one whose runs coincide (ew_inplace) or only
// loads overlap (ew_stencil).
func TestBatchCrossThread(t *testing.T) {
	pb, _ := batchPrograms(t)
	const grid, block = 16, 64
	const n = grid * block
	for _, c := range []struct {
		kernel string
		shift  int // out's offset from x, in elements (0: an allocation of its own)
		ok     bool
	}{
		{"ew_shift", 1, false}, {"ew_shift", -1, false}, {"ew_shift", 0, true},
		{"ew_stores", 0, false}, {"ew_inplace", 0, true}, {"ew_stencil", 0, true},
	} {
		t.Run(fmt.Sprintf("%s/%d", c.kernel, c.shift), func(t *testing.T) {
			k := pb.Kernels[c.kernel]
			mem := newMem()
			x := mem.f32s(f32Ramp(n+4, 0.5, 1)) + 8
			out := mem.alloc(4 * (n + 1))
			if c.shift != 0 {
				out = x + uint64(4*c.shift)
			}
			l := &Launch{Grid: dim(grid), Block: dim(block), Params: params(t, k, ewArgs(x, mem.f32s(f32Ramp(n, 1, 0)), 0, out, 0, 2, int32(n), 0)...), Mem: mem, SMs: 132}
			m := k.newMachine(l, block, nil)
			m.setBlock(0)
			m.startBlock()
			require.NoError(t, m.runBlock())
			assert.Equal(t, c.ok, m.runBatch(1, grid-1))
		})
	}
}
