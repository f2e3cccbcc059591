package ptxexec

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// raceRecorder is a SharedRaceObserver that keeps what it is told.
type raceRecorder struct {
	mu      sync.Mutex
	races   []SharedRace
	globals int
}

func (r *raceRecorder) Global(Access) {
	r.mu.Lock()
	r.globals++
	r.mu.Unlock()
}

func (r *raceRecorder) SharedRace(s SharedRace) {
	r.mu.Lock()
	r.races = append(r.races, s)
	r.mu.Unlock()
}

func loadRaces(t *testing.T, arch string) (*Program, *testMem) {
	src, err := os.ReadFile("testdata/races_" + arch + ".ptx")
	require.NoError(t, err)
	p, err := Compile(string(src))
	require.NoError(t, err)
	mem := newMem()
	mem.bind(p)
	return p, mem
}

// runRaces runs kernel name of races.cu on one block of threads with the
// race checks on and returns the reports.
func runRaces(t *testing.T, arch, name string, threads uint32) []SharedRace {
	p, mem := loadRaces(t, arch)
	out := mem.alloc(4 * 128)
	k := p.Kernels[name]
	require.NotNil(t, k, name)
	rec := &raceRecorder{}
	require.NoError(t, k.Run(&Launch{Grid: dim(2), Block: dim(threads), Params: params(t, k, out), Mem: mem, SMs: 132, Observe: rec, SharedRaces: true}))
	assert.NotZero(t, rec.globals, "the global accesses still reach the observer")
	return rec.races
}

func TestSharedRaces(t *testing.T) {
	for _, arch := range []string{"80", "90"} {
		races := runRaces(t, arch, "neighbour_nosync", 128)
		require.NotEmpty(t, races, "sm_%s: a read of another warp's write with no barrier", arch)
		// Thread t reads s[(t+64)%128], which thread (t+64)%128 writes:
		// one pair of instructions, one report, whichever ran first (on a
		// block program every thread writes before any reads).
		require.Len(t, races, 1, "one report per pair of instructions and block")
		r := races[0]
		rd, wr := r.First, r.Second
		if rd.Kind == Write {
			rd, wr = wr, rd
		}
		assert.Equal(t, Read, rd.Kind)
		assert.Equal(t, Write, wr.Kind)
		assert.NotEqual(t, rd.Thread, wr.Thread)
		assert.Contains(t, rd.Instr, "ld.shared")
		assert.Contains(t, wr.Instr, "st.shared")
		assert.Equal(t, "races.cu", filepath.Base(rd.File))
		assert.Equal(t, raceLine(t, "out[t] = s[(t + 64) % 128];"), rd.FileLine)
		assert.Equal(t, raceLine(t, "s[t] = t;"), wr.FileLine)
		assert.Equal(t, 4*wr.Thread[0], r.Offset&^3, "the byte is the writer's element")
		assert.Equal(t, (rd.Thread[0]+64)%128, wr.Thread[0], "the reader read the writer's element")

		assert.Empty(t, runRaces(t, arch, "neighbour_sync", 128), "sm_%s: __syncthreads orders them", arch)

		races = runRaces(t, arch, "warp_nosync", 32)
		require.NotEmpty(t, races, "sm_%s: lanes of one warp with no __syncwarp", arch)
		assert.Equal(t, Write, races[0].First.Kind)
		assert.Equal(t, Read, races[0].Second.Kind)
		assert.Empty(t, runRaces(t, arch, "warp_syncwarp", 32), "sm_%s: __syncwarp orders them", arch)

		races = runRaces(t, arch, "write_write", 128)
		require.NotEmpty(t, races, "sm_%s: two writes of the flag", arch)
		for _, r := range races {
			assert.Equal(t, Write, r.First.Kind)
			assert.Equal(t, Write, r.Second.Kind, "atomics on count race with nothing")
		}

		races = runRaces(t, arch, "read_then_write", 128)
		require.NotEmpty(t, races, "sm_%s: a write after other threads' reads", arch)
		assert.Equal(t, Read, races[0].First.Kind)
		assert.Equal(t, Write, races[0].Second.Kind)
		assert.Equal(t, [3]uint32{64, 0, 0}, races[0].Second.Thread)
	}
}

// TestSharedRacesOff: without SharedRaces (or with an observer that does
// not take reports) nothing is checked, and results are the same.
func TestSharedRacesOff(t *testing.T) {
	p, mem := loadRaces(t, "80")
	out := mem.alloc(4 * 128)
	k := p.Kernels["neighbour_nosync"]
	rec := &raceRecorder{}
	require.NoError(t, k.Run(&Launch{Grid: dim(1), Block: dim(128), Params: params(t, k, out), Mem: mem, Observe: rec}))
	assert.Empty(t, rec.races)
	m := k.newMachine(&Launch{Block: dim(128), Params: params(t, k, out), Observe: globalsOnly{}, SharedRaces: true}, 128, nil)
	assert.Nil(t, m.races, "an observer without SharedRace gets no checks")
}

type globalsOnly struct{}

func (globalsOnly) Global(Access) {}

// TestSharedRacesNoneInKernels: the golden kernels (tree reductions with
// __syncthreads, warp shuffles, tiled matmul) report nothing.
func TestSharedRacesNoneInKernels(t *testing.T) {
	p, mem := load(t, "90")
	const n = 1000
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = 1
	}
	rec := &raceRecorder{}
	k := p.Kernels["block_sum"]
	require.NoError(t, k.Run(&Launch{Grid: dim(4), Block: dim(256), Params: params(t, k, mem.f32s(xs), mem.f32s([]float32{0}), int32(n)), Mem: mem, Observe: rec, SharedRaces: true}))
	ins := make([]int32, n)
	k = p.Kernels["warp_sum"]
	require.NoError(t, k.Run(&Launch{Grid: dim(8), Block: dim(128), Params: params(t, k, mem.i32s(ins), mem.i32s([]int32{0, 0}), int32(n)), Mem: mem, Observe: rec, SharedRaces: true}))
	const dimN = 40
	k = p.Kernels["matmul"]
	a := mem.f32s(make([]float32, dimN*dimN))
	require.NoError(t, k.Run(&Launch{Grid: [3]uint32{3, 3, 1}, Block: [3]uint32{16, 16, 1}, Params: params(t, k, a, a, mem.alloc(4*dimN*dimN), int32(dimN)), Mem: mem, Observe: rec, SharedRaces: true}))
	assert.Empty(t, rec.races)
}

func raceLine(t *testing.T, text string) int {
	src, err := os.ReadFile("testdata/races.cu")
	require.NoError(t, err)
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, text) {
			return i + 1
		}
	}
	t.Fatalf("no %q in races.cu", text)
	return 0
}

// TestSpinLockInWarp: lanes of one warp spinning on a lock another lane
// holds let it run (a spinning thread yields), as independent thread
// scheduling guarantees on sm_70 and later.
func TestSpinLockInWarp(t *testing.T) {
	p, mem := loadRaces(t, "80")
	lock, count := mem.i32s([]int32{0}), mem.i32s([]int32{0})
	k := p.Kernels["spin_lock"]
	require.NoError(t, k.Run(&Launch{Grid: dim(3), Block: dim(64), Params: params(t, k, lock, count), Mem: mem, SMs: 132}))
	assert.Equal(t, []int32{0, 3 * 64}, []int32{mem.readI32(lock, 1)[0], mem.readI32(count, 1)[0]})
}
