package ptxexec

import (
	"errors"
	"math/rand"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// spinProgram compiles testdata/spin_90.ptx (spin.cu) into a fresh memory.
func spinProgram(t testing.TB) (*Program, *testMem) {
	src, err := os.ReadFile("testdata/spin_90.ptx")
	require.NoError(t, err)
	p, err := Compile(string(src))
	require.NoError(t, err)
	mem := newMem()
	mem.bind(p)
	return p, mem
}

// spinLaunch runs kernel name of spin.cu with the given workers and
// resident limit (0: 32 per SM of 132).
func spinLaunch(t *testing.T, p *Program, mem *testMem, name string, grid, block uint32, workers, resident int, args ...any) error {
	t.Helper()
	k := p.Kernels[name]
	require.NotNil(t, k, name)
	return k.Run(&Launch{Grid: dim(grid), Block: dim(block), Params: params(t, k, args...), Mem: mem, SMs: 132, Workers: workers, Resident: resident})
}

var workerCounts = []int{1, 2, 4}

// TestResidentFlag: block 0 spins until the last block sets a flag; run
// one after another, block 0 never ended.
func TestResidentFlag(t *testing.T) {
	p, mem := spinProgram(t)
	for _, w := range workerCounts {
		flag, out := mem.i32s([]int32{0, 0}), mem.i32s([]int32{0})
		require.NoError(t, spinLaunch(t, p, mem, "flag_wait", 64, 64, w, 0, flag, out), "workers %d", w)
		assert.Equal(t, int32(42), mem.readI32(out, 1)[0], "workers %d", w)
	}
}

// TestResidentLock: blocks meet at a software grid barrier, then add
// under an atomicCAS lock; every block adds once, in some order.
func TestResidentLock(t *testing.T) {
	p, mem := spinProgram(t)
	const blocks = 24
	for _, w := range workerCounts {
		lock, arrived, sum, order := mem.i32s([]int32{0}), mem.i32s([]int32{0}), mem.i32s([]int32{0, 0}), mem.i32s(make([]int32, 1024))
		require.NoError(t, spinLaunch(t, p, mem, "lock_sum", blocks, 32, w, 0, lock, arrived, sum, order), "workers %d", w)
		assert.Equal(t, []int32{blocks, blocks * (blocks + 1) / 2}, mem.readI32(sum, 2), "workers %d", w)
		seen := map[int32]bool{}
		for _, b := range mem.readI32(order, blocks) {
			seen[b] = true
		}
		assert.Len(t, seen, blocks, "each block took the lock once")
		assert.Equal(t, int32(0), mem.readI32(lock, 1)[0])
	}
}

// TestResidentWorkQueue: a persistent kernel whose blocks end when no
// task is pending; a task of n ends as n leaves, 2n-1 tasks in all.
func TestResidentWorkQueue(t *testing.T) {
	p, mem := spinProgram(t)
	const n, blocks = 300, 6
	for _, w := range workerCounts {
		q := make([]int32, 2*n+blocks+8)
		q[0] = n
		pq := mem.i32s(q)
		head, tail, pending := mem.i32s([]int32{0}), mem.i32s([]int32{1}), mem.i32s([]int32{1})
		leaves, done := mem.i32s([]int32{0}), mem.i32s(make([]int32, blocks))
		require.NoError(t, spinLaunch(t, p, mem, "work_queue", blocks, 32, w, 0, pq, head, tail, pending, leaves, done), "workers %d", w)
		assert.Equal(t, int32(n), mem.readI32(leaves, 1)[0])
		var tasks int32
		for _, d := range mem.readI32(done, blocks) {
			tasks += d
		}
		assert.Equal(t, int32(2*n-1), tasks)
		assert.Equal(t, int32(0), mem.readI32(pending, 1)[0])
	}
}

// TestResidentLookbackScan: a decoupled look-back scan gives the serial
// inclusive scan, with more tiles than resident blocks and fewer.
func TestResidentLookbackScan(t *testing.T) {
	p, mem := spinProgram(t)
	const tiles, bs = 40, 128
	in := make([]int32, tiles*bs)
	want := make([]int32, len(in))
	r := rand.New(rand.NewSource(1))
	var s int32
	for i := range in {
		in[i] = int32(r.Intn(200) - 100)
		s += in[i]
		want[i] = s
	}
	pin := mem.i32s(in)
	for _, resident := range []int{0, 3} {
		for _, w := range workerCounts {
			out, state, ticket := mem.i32s(make([]int32, len(in))), mem.alloc(8*tiles), mem.i32s([]int32{0})
			require.NoError(t, spinLaunch(t, p, mem, "lookback_scan", tiles, bs, w, resident, pin, out, state, ticket), "workers %d resident %d", w, resident)
			assert.Equal(t, want, mem.readI32(out, len(in)), "workers %d resident %d", w, resident)
		}
	}
}

// TestResidentPingPong: two blocks take turns on one counter (with
// nanosleep in the wait), 2*rounds moves in strict alternation.
func TestResidentPingPong(t *testing.T) {
	p, mem := spinProgram(t)
	const rounds = 50
	for _, w := range workerCounts {
		ball, log := mem.i32s([]int32{0}), mem.i32s(make([]int32, 2*rounds))
		require.NoError(t, spinLaunch(t, p, mem, "ping_pong", 2, 32, w, 0, ball, log, int32(rounds)), "workers %d", w)
		assert.Equal(t, int32(2*rounds), mem.readI32(ball, 1)[0])
		for i, b := range mem.readI32(log, 2*rounds) {
			require.Equal(t, int32(i%2), b, "move %d", i)
		}
	}
}

// deadlockReport runs a kernel that can never finish and returns its
// fault, checking that it is the deadlock report.
func deadlockReport(t *testing.T, p *Program, mem *testMem, name string, grid uint32, workers, resident int, args ...any) *Fault {
	t.Helper()
	err := spinLaunch(t, p, mem, name, grid, 64, workers, resident, args...)
	var f *Fault
	require.True(t, errors.As(err, &f), "%v", err)
	assert.Equal(t, CodeLaunchFailed, f.Code)
	assert.Contains(t, f.Msg, "deadlock: ")
	return f
}

// TestResidentDeadlock: waits no schedule can end are reported, naming
// the blocks, threads and lines, the same with 1, 2 and 4 workers and on
// every run.
func TestResidentDeadlock(t *testing.T) {
	p, mem := spinProgram(t)
	t.Run("flag never set", func(t *testing.T) {
		var first string
		for _, w := range workerCounts {
			for range 2 {
				f := deadlockReport(t, p, mem, "never_set", 4, w, 0, mem.i32s([]int32{0}))
				assert.True(t, strings.HasSuffix(f.File, "spin.cu"), f.File)
				assert.Equal(t, 5, f.FileLine, "load_acquire's atomicAdd, inlined into the loop (inlined_at lines name the inner function's line)")
				assert.Equal(t, [3]uint32{0, 0, 0}, f.Block)
				assert.Contains(t, f.Msg, "block [3 0 0] thread [0 0 0] at ptx line")
				if first == "" {
					first = f.Error()
				}
				assert.Equal(t, first, f.Error(), "workers %d", w)
			}
		}
	})
	t.Run("more blocks than resident", func(t *testing.T) {
		var first string
		for _, w := range workerCounts {
			f := deadlockReport(t, p, mem, "last_block", 9, w, 8, mem.i32s([]int32{0}))
			assert.Contains(t, f.Msg, "holds 8 blocks of this launch at once; 1 of its 9 blocks never started")
			assert.Contains(t, f.Msg, "block [7 0 0] thread [0 0 0] at ptx line")
			assert.Contains(t, f.Msg, "spin.cu:5)", "load_acquire's line, inlined into the loop at spin.cu:139")
			if first == "" {
				first = f.Error()
			}
			assert.Equal(t, first, f.Error(), "workers %d", w)
		}
	})
	t.Run("lock never given back", func(t *testing.T) {
		for _, w := range workerCounts {
			lock, count := mem.i32s([]int32{0}), mem.i32s([]int32{0})
			f := deadlockReport(t, p, mem, "lock_held", 3, w, 0, lock, count)
			assert.Equal(t, int32(1), mem.readI32(count, 1)[0], "one block took the lock")
			if w == 1 {
				// Block 0 took it; with parallel workers, whichever came first.
				assert.Equal(t, [3]uint32{1, 0, 0}, f.Block)
				assert.Contains(t, f.Msg, "block [2 0 0] thread [0 0 0]")
			}
			assert.Equal(t, 2, strings.Count(f.Msg, " thread [0 0 0] at ptx line"), "the two blocks that spin")
		}
	})
}

// TestResidentFits: the grid that deadlocked with 8 resident blocks ends
// with 9.
func TestResidentFits(t *testing.T) {
	p, mem := spinProgram(t)
	for _, w := range workerCounts {
		flag := mem.i32s([]int32{0})
		require.NoError(t, spinLaunch(t, p, mem, "last_block", 9, 64, w, 9, flag))
		assert.Equal(t, int32(1), mem.readI32(flag, 1)[0])
	}
}

// TestEmptyKernelLargestGrid: an empty kernel on the largest grid ends at
// once (it took about a minute on 2^31-1 blocks, block by block); a kernel
// with an effect still runs its blocks.
func TestEmptyKernelLargestGrid(t *testing.T) {
	p, mem := spinProgram(t)
	k := p.Kernels["empty"]
	require.True(t, k.noEffect())
	for _, w := range workerCounts {
		start := time.Now()
		require.NoError(t, k.Run(&Launch{Grid: [3]uint32{1<<31 - 1, 65535, 65535}, Block: [3]uint32{1024, 1, 1}, Params: params(t, k), Mem: mem, SMs: 132, Workers: w}))
		assert.Less(t, time.Since(start), time.Second)
	}
	assert.False(t, p.Kernels["never_set"].noEffect())
	flag := mem.i32s([]int32{0})
	require.NoError(t, spinLaunch(t, p, mem, "last_block", 1000, 32, 1, 0, flag))
	assert.Equal(t, int32(1), mem.readI32(flag, 1)[0])
}

// TestResidentDeterministic: with one worker, the order in which blocks
// take a contended lock is the same on every run.
func TestResidentDeterministic(t *testing.T) {
	p, mem := spinProgram(t)
	const blocks = 24
	var first []int32
	for range 3 {
		lock, arrived, sum, order := mem.i32s([]int32{0}), mem.i32s([]int32{0}), mem.i32s([]int32{0, 0}), mem.i32s(make([]int32, 1024))
		require.NoError(t, spinLaunch(t, p, mem, "lock_sum", blocks, 32, 1, 0, lock, arrived, sum, order))
		got := mem.readI32(order, blocks)
		if first == nil {
			first = got
		}
		assert.Equal(t, first, got)
	}
}

// TestResidentLongWaitIsNoDeadlock: a block that waits while the block it
// waits for loops long in registers is not reported; the wait ends.
func TestResidentLongWaitIsNoDeadlock(t *testing.T) {
	p, mem := spinProgram(t)
	const n = 300000
	want := uint32(1)
	for range n {
		want = want*1664525 + 1013904223
	}
	for _, w := range workerCounts {
		flag, out := mem.i32s([]int32{0}), mem.i32s([]int32{0, 0})
		require.NoError(t, spinLaunch(t, p, mem, "slow_flag", 2, 32, w, 0, flag, out, int32(n)), "workers %d", w)
		got := mem.readI32(out, 2)
		assert.Equal(t, []uint32{want, want}, []uint32{uint32(got[0]), uint32(got[1])}, "workers %d", w)
	}
}

// TestResidentBarrierSpinDeadlock: a wait whose rounds pass a barrier is
// still a wait no schedule ends.
func TestResidentBarrierSpinDeadlock(t *testing.T) {
	p, mem := spinProgram(t)
	for _, w := range workerCounts {
		f := deadlockReport(t, p, mem, "sync_spin", 3, w, 0, mem.i32s([]int32{0}))
		assert.Contains(t, f.Msg, "block [2 0 0]")
	}
}

// TestCooperativeDeadlock: a cooperative launch whose blocks wait forever
// is reported as well (it used to run forever).
func TestCooperativeDeadlock(t *testing.T) {
	p, mem := spinProgram(t)
	k := p.Kernels["never_set"]
	err := k.Run(&Launch{Grid: dim(4), Block: dim(64), Params: params(t, k, mem.i32s([]int32{0})), Mem: mem, SMs: 132, Cooperative: true})
	var f *Fault
	require.True(t, errors.As(err, &f), "%v", err)
	assert.Equal(t, CodeLaunchFailed, f.Code)
	assert.Contains(t, f.Msg, "deadlock: every resident block spins")
	assert.Contains(t, f.Msg, "block [3 0 0] thread [0 0 0]")
}
