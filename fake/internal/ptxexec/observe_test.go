package ptxexec

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type recorder struct {
	mu       sync.Mutex
	seen     []Access
	warpWide int // Accesses of a warp's lanes
}

// Global keeps a, a lane at a time where a stands for a warp's coalesced
// access (Access.Lanes).
func (r *recorder) Global(a Access) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a.Lanes <= 1 {
		r.seen = append(r.seen, a)
		return
	}
	r.warpWide++
	n := a.Size / a.Lanes
	for j := range a.Lanes {
		l := a
		l.Addr, l.Size, l.Lanes = a.Addr+uint64(j*n), n, 0
		l.Thread[0] += j
		r.seen = append(r.seen, l)
	}
}

// The observer sees each thread's two loads and its store, with the
// addresses the thread touched, and nothing of the threads past n.
func TestObserverSeesEveryGlobalAccess(t *testing.T) {
	for _, workers := range []int{1, 3} {
		p, mem := load(t, "90")
		const n = 300
		px, py, out := mem.f32s(make([]float32, n)), mem.f32s(make([]float32, n)), mem.f32s(make([]float32, n))
		k := p.Kernels["axpy"]
		rec := &recorder{}
		err := k.Run(&Launch{Grid: dim(2), Block: dim(256), Params: params(t, k, float32(2), px, py, out, int32(n)),
			Mem: mem, SMs: 132, Workers: workers, Observe: rec})
		require.NoError(t, err)
		require.Len(t, rec.seen, 3*n)
		kinds := map[AccessKind]int{}
		stored := map[uint64]bool{}
		for _, a := range rec.seen {
			kinds[a.Kind]++
			assert.EqualValues(t, 4, a.Size)
			assert.NotZero(t, a.Line)
			i := uint64(a.Block[0])*256 + uint64(a.Thread[0])
			switch a.Kind {
			case Write:
				assert.Equal(t, out+4*i, a.Addr, "store of thread %d", i)
				assert.Contains(t, a.Instr, "st.global")
				stored[a.Addr] = true
			case Read:
				assert.Contains(t, []uint64{px + 4*i, py + 4*i}, a.Addr, "load of thread %d", i)
			}
		}
		assert.Equal(t, map[AccessKind]int{Read: 2 * n, Write: n}, kinds)
		assert.Len(t, stored, n)
		// One Access for each full warp's coalesced access, and for the
		// 12 lanes of the last warp.
		assert.Equal(t, 3*(n/32+1), rec.warpWide, "one Access for each warp's coalesced access")
	}
}
