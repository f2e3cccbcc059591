package ptxexec

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkRecorder keeps every Access and race a launch's checks report.
type checkRecorder struct {
	mu       sync.Mutex
	accesses []Access
	pairs    []string // a race's two sites, in either order
}

func (r *checkRecorder) Global(a Access) {
	r.mu.Lock()
	r.accesses = append(r.accesses, a)
	r.mu.Unlock()
}

func (r *checkRecorder) pair(a, b string) {
	r.mu.Lock()
	r.pairs = append(r.pairs, min(a, b)+" | "+max(a, b))
	r.mu.Unlock()
}

func (r *checkRecorder) GlobalRace(g GlobalRace) {
	r.pair(fmt.Sprint(g.First.Kind, g.First.Line), fmt.Sprint(g.Second.Kind, g.Second.Line))
}

func (r *checkRecorder) SharedRace(s SharedRace) {
	r.pair(fmt.Sprint(s.First.Kind, s.First.Line), fmt.Sprint(s.Second.Kind, s.Second.Line))
}

// threadWord is one thread's part of a recorded Access.
type threadWord struct {
	addr       uint64
	size       uint32
	kind       AccessKind
	line       int
	unwritten  bool
	block, thr [3]uint32
}

// words returns the recorded accesses one thread's part at a time (an
// Access of Lanes threads stands for each of them: Access.Lanes), in
// address order (the two paths run a block's warps in different orders
// and group them in different Accesses).
func (r *checkRecorder) words() []threadWord {
	var out []threadWord
	for _, a := range r.accesses {
		n := max(a.Lanes, 1)
		for j := range n {
			th := a.Thread
			th[0] += j // (the kernels' blocks are 1-D)
			out = append(out, threadWord{a.Addr + uint64(j*(a.Size/n)), a.Size / n, a.Kind, a.Line, a.Unwritten, a.Block, th})
		}
	}
	slices.SortFunc(out, func(a, b threadWord) int {
		return cmp.Or(cmp.Compare(a.addr, b.addr), cmp.Compare(a.kind, b.kind), cmp.Compare(a.line, b.line),
			slices.Compare(a.block[:], b.block[:]), slices.Compare(a.thr[:], b.thr[:]))
	})
	return out
}

// TestChecksMatchScheduler runs kernels whose addresses are affine in
// the thread index (coalesced loads and stores of whole blocks, partial
// last warps, shared tiles) with an Observer and the shared- and
// global-memory race checks on, on their block program (affine runs,
// told warp by warp: affinecheck.go) and on the general scheduler: the
// same accesses, thread by thread, for a race-free kernel, the same racing pairs of
// sites for a racy one, the same memory.
func TestChecksMatchScheduler(t *testing.T) {
	kernels, _ := load(t, "90")
	src, err := os.ReadFile("testdata/globalraces_90.ptx")
	require.NoError(t, err)
	globals, err := Compile(string(src))
	require.NoError(t, err)
	src, err = os.ReadFile("testdata/races_90.ptx")
	require.NoError(t, err)
	shared, err := Compile(string(src))
	require.NoError(t, err)
	far, err := Compile(farWritePTX)
	require.NoError(t, err)
	cases := []struct {
		p           *Program
		name        string
		grid, block uint32
		racy        bool
		args        func(m *testMem) []any
	}{
		{kernels, "axpy", 4, 256, false, func(m *testMem) []any {
			return []any{float32(2), m.f32s(f32Ramp(1000, 0.37, -3)), m.f32s(f32Ramp(1000, 0.11, 1)), m.alloc(4 * 1024), int32(1000)}
		}},
		{kernels, "axpy", 3, 200, false, func(m *testMem) []any { // partial last warps
			return []any{float32(2), m.f32s(f32Ramp(600, 0.37, -3)), m.f32s(f32Ramp(600, 0.11, 1)), m.alloc(4 * 600), int32(600)}
		}},
		{kernels, "block_sum", 5, 256, false, func(m *testMem) []any {
			return []any{m.f32s(f32Ramp(1200, 0.5, 0)), m.f32s([]float32{0}), int32(1200)}
		}},
		{kernels, "early_exit", 2, 64, false, func(m *testMem) []any { return []any{m.i32s(make([]int32, 64)), int32(50)} }},
		{globals, "next_block", 8, 64, true, args(zeroed(8*64), zeroed(8*64))},
		{globals, "own_block", 8, 64, false, args(zeroed(8*64), zeroed(8*64))},
		{globals, "own_block_nosync", 2, 64, true, args(zeroed(2*64), zeroed(2*64))},
		{globals, "first_last", 40, 32, true, args(zeroed(32), zeroed(32))},
		{globals, "last_first", 40, 32, true, args(zeroed(32), zeroed(32))},
		{globals, "read_before_write", 1, 128, true, args(zeroed(128), zeroed(128))},
		// A thread's store, then another block's coalesced store of the
		// word (another value): the held write settles after the store.
		{far, "far_write", 16, 256, true, func(m *testMem) []any { return []any{m.i32s(make([]int32, 16*256)), uint32(0), uint32(12*256 + 5)} }},
		{shared, "neighbour_nosync", 2, 128, true, func(m *testMem) []any { return []any{m.alloc(4 * 128)} }},
		{shared, "neighbour_sync", 2, 128, false, func(m *testMem) []any { return []any{m.alloc(4 * 128)} }},
		// A shared store that meets another thread's read: checked and
		// stored lane by lane.
		{shared, "shift_shared", 2, 256, true, func(m *testMem) []any { return []any{m.alloc(4 * 256)} }},
	}
	for _, c := range cases {
		for _, workers := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/%dx%d/w%d", c.name, c.grid, c.block, workers), func(t *testing.T) {
				if workers > 1 && c.racy && goRace {
					t.Skip("the racy kernels race in Go's memory too")
				}
				k := c.p.Kernels[c.name]
				require.NotNil(t, k)
				require.NotNil(t, k.blockProgram(&Launch{}), "a block program")
				run := func(scheduler bool) (*checkRecorder, *testMem) {
					mem := newMem()
					mem.bind(c.p)
					rec := &checkRecorder{}
					l := &Launch{Grid: dim(c.grid), Block: dim(c.block), Params: params(t, k, c.args(mem)...), Mem: mem, SMs: 132,
						Workers: workers, Observe: rec, SharedRaces: true, GlobalRaces: true, scheduler: scheduler}
					require.NoError(t, k.Run(l))
					slices.Sort(rec.pairs)
					rec.pairs = slices.Compact(rec.pairs) // (shared races: once per worker)
					return rec, mem
				}
				fast, fastMem := run(false)
				general, generalMem := run(true)
				assert.Equal(t, general.pairs, fast.pairs, "the racing pairs of sites")
				assert.Equal(t, c.racy, len(fast.pairs) > 0, "racy")
				if !c.racy && workers == 1 { // (with 2, which atomic finds the word unwritten is the workers' order)
					assert.Equal(t, general.words(), fast.words(), "the accesses told, thread by thread")
					assert.LessOrEqual(t, len(fast.accesses), len(general.accesses), "no more Accesses than the scheduler's")
					if c.name == "axpy" && c.block == 256 { // (200: a partial warp in each block, told lane by lane)
						assert.Less(t, len(fast.accesses), len(general.accesses), "a block's warps in one Access")
					}
					for i := range fastMem.allocs {
						assert.Equal(t, generalMem.allocs[i].data, fastMem.allocs[i].data, "allocation %d", i)
					}
				}
			})
		}
	}
}
