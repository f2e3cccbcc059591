package ptxexec

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBlockPrograms checks which kernels translate into block programs:
// those with only bar.sync 0, plain control flow and loops that count;
// not those with warp collectives, calls (printf, assert, recursion) or
// loops that wait on memory (spin.cu's flags, locks and queues).
func TestBlockPrograms(t *testing.T) {
	p, _ := load(t, "90")
	for _, name := range []string{"axpy", "block_sum", "matmul", "softmax", "early_exit", "oob_write", "sines", "dmath", "int64_math", "_Z5scaleIfEvPT_S0_x"} {
		assert.NotNil(t, translate(p.Kernels[name].fn), name)
	}
	for _, name := range []string{"warp_sum", "deadlock", "warp_intrinsics", "local_array", "hello", "checked"} {
		assert.Nil(t, translate(p.Kernels[name].fn), name)
	}
	sp, _ := spinProgram(t)
	for _, name := range []string{"flag_wait", "lock_sum", "work_queue", "lookback_scan", "ping_pong", "never_set", "last_block", "lock_held", "slow_flag"} {
		assert.Nil(t, translate(sp.Kernels[name].fn), name)
	}
	// block_sum's address of its shared slot and the tree's first step
	// are the same in every block: they run once per launch.
	bp := translate(p.Kernels["block_sum"].fn)
	n := 0
	for _, h := range bp.hoisted {
		if h {
			n++
		}
	}
	assert.Positive(t, n)
	// A cooperative launch (grid.sync) runs on the general scheduler; an
	// observer and the race checks run on the block program.
	k := p.Kernels["block_sum"]
	for _, l := range []*Launch{{Workers: 2}, {Observe: nopObserver{}}, {Observe: nopObserver{}, SharedRaces: true, GlobalRaces: true}} {
		assert.NotNil(t, k.blockProgram(l))
	}
	for _, l := range []*Launch{{Cooperative: true}, {scheduler: true}} {
		assert.Nil(t, k.blockProgram(l))
	}
}

// blockCase is a launch run both on its block program and on the
// general scheduler by TestBlockProgramMatchesScheduler.
type blockCase struct {
	name        string
	grid, block [3]uint32
	dyn         uint32
	args        func(m *testMem) []any
	wantFault   bool
	workersToo  bool
}

func f32Ramp(n int, scale float32, off float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i%97)*scale + off
	}
	return v
}

// TestBlockProgramMatchesScheduler runs kernels with divergence,
// barriers reached at different instructions, early exits, partial
// warps, grid-stride loops and a fault, once on their block program and
// once on the general scheduler, without and with the race checks (an
// observer that does nothing), and checks that every byte of memory and
// the fault (its thread, address, instruction and line) are the same.
func TestBlockProgramMatchesScheduler(t *testing.T) {
	cases := []blockCase{
		{name: "axpy", grid: dim(4), block: dim(256), workersToo: true, args: func(m *testMem) []any {
			return []any{float32(2), m.f32s(f32Ramp(1000, 0.37, -3)), m.f32s(f32Ramp(1000, 0.11, 1)), m.alloc(4 * 1024), int32(1000)}
		}},
		{name: "block_sum", grid: dim(5), block: dim(256), args: func(m *testMem) []any {
			return []any{m.f32s(f32Ramp(1200, 0.5, 0)), m.f32s([]float32{0}), int32(1200)}
		}},
		{name: "block_sum", grid: dim(3), block: dim(200), args: func(m *testMem) []any { // a partial last warp
			return []any{m.f32s(f32Ramp(600, 0.25, 1)), m.f32s([]float32{0}), int32(555)}
		}},
		{name: "matmul", grid: [3]uint32{3, 3, 1}, block: [3]uint32{16, 16, 1}, workersToo: true, args: func(m *testMem) []any {
			const n = 37
			return []any{m.f32s(f32Ramp(n*n, 1, -5)), m.f32s(f32Ramp(n*n, 0.25, 0)), m.alloc(4 * n * n), int32(n)}
		}},
		{name: "softmax", grid: dim(3), block: dim(128), dyn: 128 * 4, args: func(m *testMem) []any {
			return []any{m.f32s(f32Ramp(3*300, 0.37, -4)), m.alloc(4 * 3 * 300), int32(300)}
		}},
		{name: "early_exit", grid: dim(2), block: dim(64), args: func(m *testMem) []any {
			return []any{m.i32s(make([]int32, 64)), int32(50)}
		}},
		{name: "_Z5scaleIfEvPT_S0_x", grid: dim(2), block: dim(64), args: func(m *testMem) []any {
			return []any{m.f32s(f32Ramp(1000, 0.5, -2)), float32(1.5), int64(1000)}
		}},
		{name: "sines", grid: dim(2), block: dim(96), args: func(m *testMem) []any {
			return []any{m.f32s(f32Ramp(150, 0.7, -30)), m.alloc(4 * 150), int32(150)}
		}},
		{name: "oob_write", grid: dim(2), block: dim(64), wantFault: true, args: func(m *testMem) []any {
			return []any{m.i32s(make([]int32, 64)), int32(32)}
		}},
		{name: "oob_write", grid: dim(2), block: dim(256), wantFault: true, args: func(m *testMem) []any {
			// The block's coalesced store runs past the allocation in
			// warp 6 (thread 200): warps 0..5 store, the fault is lane 8's.
			return []any{m.i32s(make([]int32, 300)), int32(100)}
		}},
	}
	p, _ := load(t, "90")
	for _, c := range cases {
		workers := []int{1}
		if c.workersToo {
			workers = append(workers, 2)
		}
		for _, w := range workers {
			t.Run(fmt.Sprintf("%s/%d/workers=%d", c.name, c.block[0], w), func(t *testing.T) {
				k := p.Kernels[c.name]
				require.NotNil(t, k.blockProgram(&Launch{}))
				run := func(scheduler, checks bool) (*testMem, error) {
					mem := newMem()
					mem.bind(p)
					args := c.args(mem)
					l := &Launch{Grid: c.grid, Block: c.block, DynShared: c.dyn, Params: params(t, k, args...), Mem: mem, SMs: 132, Workers: w, scheduler: scheduler}
					if checks {
						l.Observe, l.SharedRaces, l.GlobalRaces = nopObserver{}, true, true
					}
					err := k.Run(l)
					return mem, err
				}
				for _, checks := range []bool{false, true} {
					fast, errFast := run(false, checks)
					general, errGeneral := run(true, checks)
					if c.wantFault {
						require.Error(t, errFast)
					} else {
						require.NoError(t, errFast)
					}
					assert.Equal(t, errGeneral, errFast, "checks %v", checks)
					require.Len(t, fast.allocs, len(general.allocs))
					for i := range fast.allocs {
						assert.True(t, bytes.Equal(general.allocs[i].data, fast.allocs[i].data), "allocation %d differs (checks %v)", i, checks)
					}
				}
			})
		}
	}
}

// divergentUniform's threads below 32 wait at a barrier while the others
// run on past it: the block's uniform values (r6, from %ctaid.x, kept as
// a scalar only, and the loop's counter and sum) are computed first by
// every thread, then by some only, so they must move to the warps'
// registers when the group splits.
const divergentUniform = `.visible .entry k(.param .u64 out)
{
	.reg .pred %p<4>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r5, %ctaid.x;
	add.s32 %r6, %r5, 7;
	setp.lt.u32 %p1, %r1, 32;
	@!%p1 bra SKIP;
	bar.sync 0;
SKIP:
	add.s32 %r7, %r6, 100;
	mov.u32 %r2, 0;
	mov.u32 %r3, 0;
LOOP:
	add.s32 %r2, %r2, %r3;
	add.s32 %r3, %r3, 1;
	setp.lt.u32 %p2, %r3, 10;
	@%p2 bra LOOP;
	add.s32 %r4, %r2, %r7;
	add.s32 %r4, %r4, %r1;
	mov.u32 %r8, %ntid.x;
	mad.lo.s32 %r9, %r5, %r8, %r1;
	mul.wide.u32 %rd2, %r9, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r4;
	ret;
}
`

// TestBlockProgramUniformFallback runs divergentUniform on its block
// program and on the general scheduler: each thread stores 45 + its
// block's index + 107 + its own index.
func TestBlockProgramUniformFallback(t *testing.T) {
	p, err := Compile(header + divergentUniform)
	require.NoError(t, err)
	k := p.Kernels["k"]
	bp := k.blockProgram(&Launch{})
	require.NotNil(t, bp)
	require.NotEmpty(t, bp.scalarOnly)
	const blocks, threads = 3, 64
	for _, obs := range []Observer{nil, nopObserver{}} {
		mem := newMem()
		out := mem.alloc(4 * blocks * threads)
		require.NoError(t, k.Run(&Launch{Grid: dim(blocks), Block: dim(threads), Params: params(t, k, out), Mem: mem, Observe: obs}))
		got := mem.readI32(out, blocks*threads)
		for b := range blocks {
			for i := range threads {
				assert.Equal(t, int32(45+b+107+i), got[b*threads+i], "block %d thread %d (observer %v)", b, i, obs != nil)
			}
		}
	}
}

// TestValueOps checks that valueOps lists exactly the opcodes machine.value
// computes: lanesPure runs those lane by lane, slow the others.
func TestValueOps(t *testing.T) {
	m := &machine{}
	for op := 0; op < 256; op++ {
		in := &inst{op: uint8(op), kind: kU, bits: 32, b2: 32, k2: kU, mask: 0xffffffff, vec: 1}
		_, ok := m.value(in, 1, 2, 3)
		assert.Equal(t, ok, valueOps[op], "opcode %d", op)
	}
}

// TestBlockProgramWarpsSideBySide checks that a block program's warps
// keep their registers side by side in one file (machine.file), so that
// runBlock runs an instruction over all of them in one call of package
// lanes, and that the block's results are axpy's.
func TestBlockProgramWarpsSideBySide(t *testing.T) {
	p, mem := load(t, "90")
	k := p.Kernels["axpy"]
	const n = 256
	xs, ys := f32Ramp(n, 0.37, -3), f32Ramp(n, 0.11, 1)
	px, py, out := mem.f32s(xs), mem.f32s(ys), mem.alloc(4*256)
	l := &Launch{Grid: dim(1), Block: dim(256), Params: packAxpy(k, px, py, out, n), Mem: mem, SMs: 1}
	m := k.newMachine(l, 256, nil)
	require.NotNil(t, m.bp)
	m.setBlock(0)
	m.startBlock()
	require.NoError(t, m.runBlock())
	assert.Equal(t, 8, m.file.N, "the 8 warps' registers are one lanes.Warps")
	assert.Equal(t, k.fn.nslots, m.file.Slots)
	for w := range m.warps {
		assert.Same(t, &m.soaFile[w*k.fn.nslots*warpSize], &m.warps[w].soa[0], "warp %d", w)
	}
	got := mem.readF32(out, n)
	for i := range n {
		require.Equal(t, 2*xs[i]+ys[i], got[i], "element %d", i)
	}
	// Its loads and store are each one coalesced run of the block: one
	// span, 1024 bytes, the first of them element 0's.
	runs := 0
	for i := range k.fn.code {
		in := &k.fn.code[i]
		if in.op != opLdGlobal && in.op != opStGlobal {
			continue
		}
		run, ok := m.blockRun(in)
		require.True(t, ok, "instruction %d", i)
		assert.Len(t, run, 4*n)
		runs++
	}
	assert.Equal(t, 3, runs)
	assert.Equal(t, &mem.bytes(out)[0], &mustRun(t, m, k, opStGlobal)[0])
}

// mustRun returns blockRun's bytes for k's first instruction of op.
func mustRun(t *testing.T, m *machine, k *Kernel, op uint8) []byte {
	for i := range k.fn.code {
		if in := &k.fn.code[i]; in.op == op {
			run, ok := m.blockRun(in)
			require.True(t, ok)
			return run
		}
	}
	t.Fatalf("no instruction %d", op)
	return nil
}
