package ptxexec

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type recorder struct {
	mu   sync.Mutex
	seen []Access
}

func (r *recorder) Global(a Access) {
	r.mu.Lock()
	r.seen = append(r.seen, a)
	r.mu.Unlock()
}

// The observer sees each thread's two loads and its store, with the
// bytes the threads touched (a warp's coalesced access as one range, its
// first lane's), and nothing of the threads past n.
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
		words := map[AccessKind]int{}
		for _, a := range rec.seen {
			words[a.Kind] += int(a.Size) / 4
			assert.Zero(t, a.Size%4)
			assert.NotZero(t, a.Line)
			i := uint64(a.Block[0])*256 + uint64(a.Thread[0])
			switch a.Kind {
			case Write:
				assert.Equal(t, out+4*i, a.Addr, "store of thread %d", i)
				assert.Contains(t, a.Instr, "st.global")
			case Read:
				assert.Contains(t, []uint64{px + 4*i, py + 4*i}, a.Addr, "load of thread %d", i)
			}
		}
		assert.Equal(t, map[AccessKind]int{Read: 2 * n, Write: n}, words)
		assert.Equal(t, []byteRange{{Read, px, px + 4*n}, {Read, py, py + 4*n}, {Write, out, out + 4*n}}, ranges(rec.seen))
	}
}
