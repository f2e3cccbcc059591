package ptxexec

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// globalRecorder is a GlobalRaceObserver (and SharedRaceObserver) that
// keeps what it is told.
type globalRecorder struct {
	mu        sync.Mutex
	races     []GlobalRace
	shared    []SharedRace
	unwritten []Access
}

func (r *globalRecorder) Global(a Access) {
	if a.Unwritten {
		r.mu.Lock()
		r.unwritten = append(r.unwritten, a)
		r.mu.Unlock()
	}
}

func (r *globalRecorder) GlobalRace(g GlobalRace) {
	r.mu.Lock()
	r.races = append(r.races, g)
	r.mu.Unlock()
}

func (r *globalRecorder) SharedRace(s SharedRace) {
	r.mu.Lock()
	r.shared = append(r.shared, s)
	r.mu.Unlock()
}

// grLaunch is one run of a kernel of globalraces.cu.
type grLaunch struct {
	grid, block uint32
	workers     int
	coop        bool
	args        func(mem *testMem) []any
}

// runGlobal runs kernel name of globalraces.cu (sm_arch) with the race
// checks on and returns what the observer was told and the memory.
func runGlobal(t *testing.T, arch, name string, gl grLaunch) (*globalRecorder, error) {
	t.Helper()
	src, err := os.ReadFile("testdata/globalraces_" + arch + ".ptx")
	require.NoError(t, err)
	p, err := Compile(string(src))
	require.NoError(t, err)
	mem := newMem()
	mem.bind(p)
	k := p.Kernels[name]
	require.NotNil(t, k, name)
	rec := &globalRecorder{}
	l := &Launch{Grid: dim(gl.grid), Block: dim(gl.block), Params: params(t, k, gl.args(mem)...), Mem: mem, SMs: 132,
		Observe: rec, SharedRaces: true, GlobalRaces: true, Workers: gl.workers, Cooperative: gl.coop}
	return rec, k.Run(l)
}

// zeroed allocates n zeroed int32 words.
func zeroed(n int) func(*testMem) uint64 {
	return func(m *testMem) uint64 { return m.i32s(make([]int32, n)) }
}

func args(fs ...func(*testMem) uint64) func(*testMem) []any {
	return func(m *testMem) []any {
		out := make([]any, len(fs))
		for i, f := range fs {
			out[i] = f(m)
		}
		return out
	}
}

// grLine is the line of globalraces.cu holding text (the first after
// one holding after, if given).
func grLine(t *testing.T, text string, after ...string) int {
	src, err := os.ReadFile("testdata/globalraces.cu")
	require.NoError(t, err)
	from := len(after) == 0
	for i, l := range strings.Split(string(src), "\n") {
		from = from || strings.Contains(l, after[0])
		if from && strings.Contains(l, text) {
			return i + 1
		}
	}
	t.Fatalf("no %q in globalraces.cu", text)
	return 0
}

// TestGlobalRaceTwins runs each racy kernel and its race-free twin, one
// after another and with parallel workers: the racy one is reported, the
// twin is not.
func TestGlobalRaceTwins(t *testing.T) {
	one := func(int) func(*testMem) uint64 { return zeroed(1) }
	vals := func(m *testMem) uint64 {
		v := make([]int32, 8*64)
		for i := range v {
			v[i] = int32(1000 - i)
		}
		return m.i32s(v)
	}
	big := zeroed(8 * 64)
	flag := zeroed(1)
	cases := []struct {
		racy, free string
		gl         grLaunch
	}{
		{"incr_plain", "incr_atomic", grLaunch{grid: 4, block: 64, args: args(one(0))}},
		{"min_plain", "min_atomic", grLaunch{grid: 8, block: 64, args: args(big, vals)}},
		{"read_of_atomic", "atomic_read_of_atomic", grLaunch{grid: 4, block: 64, args: args(flag, big)}},
		{"next_block", "own_block", grLaunch{grid: 8, block: 64, args: args(big, big)}},
		{"own_block_nosync", "own_block", grLaunch{grid: 2, block: 64, args: args(big, big)}},
		{"warp_nosync", "warp_sync", grLaunch{grid: 2, block: 64, args: args(big, big)}},
		{"message_nofence", "message_fence", grLaunch{grid: 2, block: 64, args: args(big, flag, big)}},
		{"message_nosync", "message_fence", grLaunch{grid: 2, block: 64, args: args(big, flag, big)}},
		{"message_nosync", "message_syncwarp", grLaunch{grid: 2, block: 32, args: args(big, flag, big)}},
		{"atomic_block_scope", "atomic_block_scope_own", grLaunch{grid: 4, block: 32, args: args(big)}},
		{"lock_unfenced", "lock_fenced", grLaunch{grid: 8, block: 32, args: args(flag, big)}},
		{"next_block", "grid_sync", grLaunch{grid: 8, block: 64, coop: true, args: args(big, big)}},
		{"other_value", "same_value", grLaunch{grid: 4, block: 64, args: args(flag)}},
		// Releases are per thread: one thread's fence does not release
		// its block's other writes, unless a barrier or a warp collective
		// ordered them before it.
		{"message_writer_nosync", "message_fence", grLaunch{grid: 2, block: 64, args: args(big, flag, big)}},
		{"message_writer_nosync", "message_writer_syncwarp", grLaunch{grid: 2, block: 32, args: args(big, flag, big)}},
	}
	for _, arch := range []string{"80", "90"} {
		for _, c := range cases {
			for _, workers := range []int{1, 2, 4} {
				if workers > 1 && goRace {
					continue // the racy kernels race in Go's memory too
				}
				gl := c.gl
				gl.workers = workers
				t.Run(fmt.Sprintf("%s/%s/w%d", arch, c.racy, workers), func(t *testing.T) {
					rec, err := runGlobal(t, arch, c.racy, gl)
					require.NoError(t, err)
					assert.NotEmpty(t, rec.races, "%s races", c.racy)
					rec, err = runGlobal(t, arch, c.free, gl)
					require.NoError(t, err)
					assert.Empty(t, rec.races, "%s is race-free", c.free)
				})
			}
		}
	}
}

// TestGlobalRaceIncrement: the plain increment of one word by many threads
// is one report per pair of instructions, naming both accesses, threads,
// blocks, instructions and .cu lines.
func TestGlobalRaceIncrement(t *testing.T) {
	rec, err := runGlobal(t, "80", "incr_plain", grLaunch{grid: 4, block: 64, args: args(zeroed(1))})
	require.NoError(t, err)
	require.NotEmpty(t, rec.races)
	assert.LessOrEqual(t, len(rec.races), 4, "one report per pair of sites: %v", rec.races)
	r := rec.races[0]
	line := grLine(t, "void incr_plain(int *x) { x[0]++; }")
	assert.Equal(t, line, r.First.FileLine)
	assert.Equal(t, line, r.Second.FileLine)
	assert.Equal(t, "globalraces.cu", filepath.Base(r.First.File))
	assert.Equal(t, uint32(4), r.Size)
	assert.NotEqual(t, r.First.Thread, r.Second.Thread)
	kinds := map[string]bool{}
	for _, r := range rec.races {
		kinds[r.First.Kind.String()+"-"+r.Second.Kind.String()] = true
		assert.Contains(t, r.First.Instr+r.Second.Instr, "st.global")
	}
	assert.True(t, kinds["read-write"] || kinds["write-read"], "a read and another thread's write: %v", kinds)
}

// TestGlobalRaceFarBlocks: blocks 0 and 899 never run together, and
// their race is found.
func TestGlobalRaceFarBlocks(t *testing.T) {
	rec, err := runGlobal(t, "80", "next_block", grLaunch{grid: 900, block: 32, args: args(zeroed(900*32), zeroed(900*32))})
	require.NoError(t, err)
	// Block b reads block b+1's row, block 899 reads block 0's: one pair
	// of sites, one report, whichever order its accesses ran in.
	require.Len(t, rec.races, 1, "%v", rec.races)
	r := rec.races[0]
	assert.ElementsMatch(t, []AccessKind{Read, Write}, []AccessKind{r.First.Kind, r.Second.Kind})
	assert.Equal(t, r.First.Thread, r.Second.Thread)

	// Block 0 and block 899 alone race: a write then a read, and a read
	// then a write, 899 blocks apart.
	for _, c := range []struct {
		kernel string
		first  AccessKind
	}{{"first_last", Write}, {"last_first", Read}} {
		rec, err := runGlobal(t, "80", c.kernel, grLaunch{grid: 900, block: 32, args: args(zeroed(32), zeroed(32))})
		require.NoError(t, err)
		require.Len(t, rec.races, 1, "%s: %v", c.kernel, rec.races)
		r := rec.races[0]
		assert.Equal(t, c.first, r.First.Kind, c.kernel)
		assert.Equal(t, [3]uint32{0, 0, 0}, r.First.Block, c.kernel)
		assert.Equal(t, [3]uint32{899, 0, 0}, r.Second.Block, c.kernel)
		assert.Equal(t, r.First.Thread, r.Second.Thread, c.kernel)
	}
}

// TestGlobalRaceIdioms: the Programming Guide's atomicCAS loop for
// atomicAdd(double) and threadFenceReduction (a fence on the writers'
// side only) are not reported; threadFenceReduction without its fence is.
func TestGlobalRaceIdioms(t *testing.T) {
	sum := func(m *testMem) uint64 { return m.alloc(8) }
	rec, err := runGlobal(t, "80", "cas_loop", grLaunch{grid: 4, block: 64, args: args(sum)})
	require.NoError(t, err)
	assert.Empty(t, rec.races, "the CAS loop's first plain read")

	in := func(m *testMem) uint64 {
		v := make([]int32, 8*32)
		for i := range v {
			v[i] = int32(i)
		}
		return m.i32s(v)
	}
	for _, fence := range []int32{1, 0} {
		rec, err := runGlobal(t, "80", "fence_reduction", grLaunch{grid: 8, block: 32, args: func(m *testMem) []any {
			return []any{in(m), zeroed(8)(m), zeroed(1)(m), fence}
		}})
		require.NoError(t, err)
		if fence == 1 {
			assert.Empty(t, rec.races, "threadFenceReduction")
		} else {
			require.NotEmpty(t, rec.races, "threadFenceReduction without its fence")
			assert.Equal(t, grLine(t, "partial[blockIdx.x] = s;"), rec.races[0].First.FileLine)
			assert.Equal(t, grLine(t, "for (int b = 0; b < gridDim.x; b++) s += partial[b];"), rec.races[0].Second.FileLine)
		}
	}
}

// TestGlobalRaceStrong: volatile accesses are strong and never race with
// each other; a plain flag write read by volatile loads races, once, on
// the flag only (the fence before it still releases the data).
func TestGlobalRaceStrong(t *testing.T) {
	rec, err := runGlobal(t, "80", "volatile_flag", grLaunch{grid: 4, block: 32, args: args(zeroed(1), zeroed(128))})
	require.NoError(t, err)
	assert.Empty(t, rec.races)

	rec, err = runGlobal(t, "80", "message_plain_flag", grLaunch{grid: 2, block: 32, args: args(zeroed(32), zeroed(1), zeroed(32))})
	require.NoError(t, err)
	require.Len(t, rec.races, 1, "%v", rec.races)
	r := rec.races[0]
	assert.Equal(t, grLine(t, "if (threadIdx.x == 0) { __threadfence(); *flag = 1; }", "message_plain_flag"), r.First.FileLine)
	assert.False(t, r.First.Strong)
	assert.True(t, r.Second.Strong)
	assert.Contains(t, r.Second.Instr, "volatile")
}

// TestGlobalRaceInlined: a store inlined from a __device__ function names
// its own line.
func TestGlobalRaceInlined(t *testing.T) {
	rec, err := runGlobal(t, "80", "inlined_put", grLaunch{grid: 1, block: 64, args: args(zeroed(1))})
	require.NoError(t, err)
	require.NotEmpty(t, rec.races)
	assert.Equal(t, grLine(t, "p[0] = v;"), rec.races[0].First.FileLine)
}

// TestGlobalUnwritten: a read of a word that another thread writes only
// later reads what the launch found (Access.Unwritten), and so does a CAS
// on a lock word nothing wrote; reads after the writes do not.
func TestGlobalUnwritten(t *testing.T) {
	rec, err := runGlobal(t, "80", "read_before_write", grLaunch{grid: 1, block: 64, args: args(zeroed(64), zeroed(64))})
	require.NoError(t, err)
	require.NotEmpty(t, rec.unwritten)
	assert.Equal(t, grLine(t, "out[i] = a[(i + 1) % blockDim.x];"), rec.unwritten[0].FileLine)
	assert.NotEmpty(t, rec.races, "and it races with the write")

	rec, err = runGlobal(t, "80", "lock_uninit", grLaunch{grid: 2, block: 32, args: args(zeroed(1))})
	require.NoError(t, err)
	require.NotEmpty(t, rec.unwritten)
	assert.Equal(t, Atomic, rec.unwritten[0].Kind)
	assert.Len(t, rec.unwritten, 1, "block 1's CAS reads block 0's exch")

	rec, err = runGlobal(t, "80", "own_block", grLaunch{grid: 2, block: 64, args: args(zeroed(128), zeroed(128))})
	require.NoError(t, err)
	assert.Empty(t, rec.unwritten)
}

// TestGlobalRaceThenFault: a race before an out-of-bounds store is
// reported, and the launch fails with the fault.
func TestGlobalRaceThenFault(t *testing.T) {
	rec, err := runGlobal(t, "80", "race_then_fault", grLaunch{grid: 1, block: 64, args: args(zeroed(1), zeroed(1))})
	var f *Fault
	require.ErrorAs(t, err, &f)
	assert.Equal(t, CodeIllegalAddress, f.Code)
	require.NotEmpty(t, rec.races)
	assert.Equal(t, grLine(t, "x[0] = threadIdx.x;"), rec.races[0].Second.FileLine)
}

// TestGlobalRaceOff: without GlobalRaces nothing is checked.
func TestGlobalRaceOff(t *testing.T) {
	src, err := os.ReadFile("testdata/globalraces_80.ptx")
	require.NoError(t, err)
	p, err := Compile(string(src))
	require.NoError(t, err)
	mem := newMem()
	mem.bind(p)
	k := p.Kernels["incr_plain"]
	x := mem.i32s([]int32{0})
	rec := &globalRecorder{}
	require.NoError(t, k.Run(&Launch{Grid: dim(2), Block: dim(32), Params: params(t, k, x), Mem: mem, Observe: rec}))
	assert.Empty(t, rec.races)
	assert.Equal(t, int32(2), int32(binary.LittleEndian.Uint32(mem.bytes(x))), "one increment per warp: lanes in lockstep")
}

// TestSharedReaderForgotten: two warps read s[0], a shuffle, lane 0
// writes s[0] with no barrier: the other warp's read races with the write
// (llm.c's softmax_forward_kernel4), though the first two readers are
// lanes of the writer's warp.
func TestSharedReaderForgotten(t *testing.T) {
	for _, arch := range []string{"80", "90"} {
		for _, sync := range []int32{0, 1} {
			rec, err := runGlobal(t, arch, "shared_reader_forgotten", grLaunch{grid: 1, block: 64, args: func(m *testMem) []any { return []any{zeroed(64)(m), sync} }})
			require.NoError(t, err)
			if sync == 1 {
				assert.Empty(t, rec.shared, "sm_%s: a barrier before the write", arch)
				continue
			}
			require.NotEmpty(t, rec.shared, "sm_%s", arch)
			r := rec.shared[0]
			assert.Equal(t, Read, r.First.Kind)
			assert.Equal(t, Write, r.Second.Kind)
			assert.GreaterOrEqual(t, r.First.Thread[0], uint32(32), "the reader of the other warp")
			assert.Equal(t, uint32(0), r.Second.Thread[0])
		}
	}
}

// TestGlobalRaceClassics: the classics of the race benchmarks (HiRace's
// and the scoped suites'), each racy kernel reported on several inputs
// (grid sizes, data) and with 1, 2 and 4 workers, its race-free twin
// never.
func TestGlobalRaceClassics(t *testing.T) {
	ints := func(v []int32) func(*testMem) uint64 { return func(m *testMem) uint64 { return m.i32s(v) } }
	val := func(v any) func(*testMem) any { return func(*testMem) any { return v } }
	ptr := func(f func(*testMem) uint64) func(*testMem) any { return func(m *testMem) any { return f(m) } }
	// A forest of chains for union-find: parent[x] = x-1 within chains
	// of length k.
	forest := func(n, k int) []int32 {
		p := make([]int32, n)
		for x := range p {
			p[x] = int32(x)
			if x%k != 0 {
				p[x] = int32(x - 1)
			}
		}
		return p
	}
	// Edges of a graph: e -> (e*7+1) % v, from e % v.
	edges := func(e, v int) (src, dst []int32) {
		for i := range e {
			src, dst = append(src, int32(i%v)), append(dst, int32((i*7+1)%v))
		}
		return src, dst
	}
	dist := func(v int) []int32 {
		d := make([]int32, v)
		for i := range d {
			d[i] = 1 << 20
		}
		d[0] = 0
		return d
	}
	type input struct {
		grid, block uint32
		args        []func(*testMem) any
	}
	cases := []struct {
		racy, free string
		inputs     []input
		freeArgs   func(in input) []func(*testMem) any // the twin's, when they differ
	}{
		{"worklist_plain", "worklist_atomic", []input{
			{1, 64, []func(*testMem) any{ptr(zeroed(1)), ptr(zeroed(64)), val(int32(64))}},
			{4, 128, []func(*testMem) any{ptr(zeroed(1)), ptr(zeroed(512)), val(int32(500))}},
		}, nil},
		{"compress_plain", "compress_free", []input{
			{1, 64, []func(*testMem) any{ptr(ints(forest(64, 8))), val(int32(64))}},
			{4, 96, []func(*testMem) any{ptr(ints(forest(384, 50))), val(int32(384))}},
		}, func(in input) []func(*testMem) any {
			return []func(*testMem) any{in.args[0], ptr(zeroed(int(in.grid * in.block))), in.args[1]}
		}},
		{"spin_plain_flag", "spin_volatile_flag", []input{
			{2, 32, []func(*testMem) any{ptr(zeroed(1)), ptr(zeroed(1)), ptr(zeroed(2))}},
			{6, 64, []func(*testMem) any{ptr(zeroed(1)), ptr(zeroed(1)), ptr(zeroed(6))}},
		}, nil},
		{"lock_plain_release", "lock_fenced", []input{
			{4, 32, []func(*testMem) any{ptr(zeroed(1)), ptr(zeroed(1))}},
			{12, 64, []func(*testMem) any{ptr(zeroed(1)), ptr(zeroed(1))}},
		}, nil},
		{"message_fence_block", "message_fence", []input{
			{2, 64, []func(*testMem) any{ptr(zeroed(64)), ptr(zeroed(1)), ptr(zeroed(64))}},
			{2, 256, []func(*testMem) any{ptr(zeroed(256)), ptr(zeroed(1)), ptr(zeroed(256))}},
		}, nil},
		{"relax_plain", "relax_atomic", []input{
			func() input {
				s, d := edges(256, 40)
				return input{2, 128, []func(*testMem) any{ptr(ints(dist(40))), ptr(ints(s)), ptr(ints(d)), val(int32(256))}}
			}(),
			func() input {
				s, d := edges(1000, 300)
				return input{8, 128, []func(*testMem) any{ptr(ints(dist(300))), ptr(ints(s)), ptr(ints(d)), val(int32(1000))}}
			}(),
		}, nil},
		{"atomic_block_scope", "atomic_block_scope_own", []input{
			{2, 32, []func(*testMem) any{ptr(zeroed(2))}},
			{16, 128, []func(*testMem) any{ptr(zeroed(16))}},
		}, nil},
		{"read_of_atomic", "atomic_read_of_atomic", []input{
			{2, 32, []func(*testMem) any{ptr(zeroed(1)), ptr(zeroed(64))}},
			{9, 96, []func(*testMem) any{ptr(zeroed(1)), ptr(zeroed(9 * 96))}},
		}, nil},
	}
	build := func(fs []func(*testMem) any) func(*testMem) []any {
		return func(m *testMem) []any {
			out := make([]any, len(fs))
			for i, f := range fs {
				out[i] = f(m)
			}
			return out
		}
	}
	for _, c := range cases {
		for i, in := range c.inputs {
			for _, workers := range []int{1, 2, 4} {
				if workers > 1 && goRace {
					continue // the racy kernels race in Go's memory too
				}
				t.Run(fmt.Sprintf("%s/in%d/w%d", c.racy, i, workers), func(t *testing.T) {
					gl := grLaunch{grid: in.grid, block: in.block, workers: workers, args: build(in.args)}
					rec, err := runGlobal(t, "80", c.racy, gl)
					require.NoError(t, err)
					assert.NotEmpty(t, rec.races, "%s races", c.racy)
					if c.freeArgs != nil {
						gl.args = build(c.freeArgs(in))
					}
					rec, err = runGlobal(t, "80", c.free, gl)
					require.NoError(t, err)
					assert.Empty(t, rec.races, "%s is race-free", c.free)
				})
			}
		}
	}
}

// TestGlobalRaceChainWorkers: a chain of blocks passing messages by
// fenced volatile flags is race-free with 1, 2 and 4 workers (the flag's
// check and its memory access are one step, lockStrong), many times over.
func TestGlobalRaceChainWorkers(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		for range 5 {
			rec, err := runGlobal(t, "80", "message_chain", grLaunch{grid: 64, block: 32, workers: workers,
				args: args(zeroed(64*32), zeroed(64))})
			require.NoError(t, err)
			require.Empty(t, rec.races, "workers %d", workers)
		}
	}
}

// TestGlobalRaceMemoryBounded: the shadow of a launch is a small multiple
// of the memory it touches (here every word of one of its two arrays is
// touched by two warps, so those words get their own shadow), measured as
// what the launch allocates with the checks on beyond what it allocates
// with them off.
func TestGlobalRaceMemoryBounded(t *testing.T) {
	src, err := os.ReadFile("testdata/globalraces_80.ptx")
	require.NoError(t, err)
	p, err := Compile(string(src))
	require.NoError(t, err)
	const blocks, threads = 512, 64
	const touched = 2 * blocks * threads * 4 // a and out, 4 bytes a thread each
	allocated := func(checks bool) uint64 {
		mem := newMem()
		mem.bind(p)
		k := p.Kernels["next_block"]
		a, out := mem.i32s(make([]int32, blocks*threads)), mem.i32s(make([]int32, blocks*threads))
		rec := &globalRecorder{}
		l := &Launch{Grid: dim(blocks), Block: dim(threads), Params: params(t, k, a, out), Mem: mem, SMs: 132,
			Observe: rec, GlobalRaces: checks}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		require.NoError(t, k.Run(l))
		runtime.ReadMemStats(&after)
		if checks {
			require.NotEmpty(t, rec.races)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	off, on := allocated(false), allocated(true)
	shadow := int64(on) - int64(off)
	t.Logf("touched %d KiB, shadow %d KiB (%.1fx)", touched>>10, shadow>>10, float64(shadow)/touched)
	// At most 72 bytes a word (its last write and two reads since), 18x,
	// where other threads touch it; a segment one warp alone touched costs
	// 64 bytes for 128.
	assert.Less(t, shadow, int64(18*touched), "the shadow is a small multiple of the memory touched")
}

// TestGlobalRaceSameValueWorkers: blocks on parallel workers writing one
// value to one word are no race, whichever worker's store lands first (a
// write's check and its store are one step: the second writer compares
// with the first's bytes, not with what the word held before them).
func TestGlobalRaceSameValueWorkers(t *testing.T) {
	if goRace {
		t.Skip("the kernel's unordered stores race in Go's memory too")
	}
	for i := range 600 { // (the first two stores of the word decide: one launch in ~200 failed)
		rec, err := runGlobal(t, "90", "same_value", grLaunch{grid: 4, block: 64, workers: 4, args: args(zeroed(1))})
		require.NoError(t, err)
		require.Empty(t, rec.races, "run %d", i)
	}
	rec, err := runGlobal(t, "90", "other_value", grLaunch{grid: 64, block: 64, workers: 4, args: args(zeroed(1))})
	require.NoError(t, err)
	assert.NotEmpty(t, rec.races, "different values race")
}
