package ptxexec

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// farWritePTX: every thread i writes a[i] = i (full warps, coalesced: the
// shadow records each warp's store as one segment record), and thread
// who also writes a[idx] = i with a store of its own (lane by lane).
const farWritePTX = `
.version 7.8
.target sm_80
.address_size 64

.visible .entry far_write(.param .u64 a, .param .u32 who, .param .u32 idx)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [a];
	ld.param.u32 %r1, [who];
	ld.param.u32 %r6, [idx];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %tid.x;
	mad.lo.s32 %r5, %r2, %r3, %r4;
	mul.wide.s32 %rd3, %r5, 4;
	add.s64 %rd4, %rd2, %rd3;
	st.global.u32 [%rd4], %r5;
	setp.ne.s32 %p1, %r5, %r1;
	@%p1 bra DONE;
	mul.wide.u32 %rd5, %r6, 4;
	add.s64 %rd6, %rd2, %rd5;
	st.global.u32 [%rd6], %r5;
DONE:
	ret;
}
`

// TestGlobalRaceRunsMeetLanes: a word that a warp's coalesced store
// recorded as one segment record, and another thread's single store to
// it, race whichever comes first, also megabytes into the array (pages
// made a chunk at a time, past the first page directory); the thread that
// owns the word storing it twice is program order.
func TestGlobalRaceRunsMeetLanes(t *testing.T) {
	p, err := Compile(farWritePTX)
	require.NoError(t, err)
	k := p.Kernels["far_write"]
	const n = 1 << 20 // 4 MiB: four page directories
	run := func(who, idx uint32, workers int) *globalRecorder {
		mem := newMem()
		a := mem.i32s(make([]int32, n))
		rec := &globalRecorder{}
		l := &Launch{Grid: dim(n / 256), Block: dim(256), Params: params(t, k, a, who, idx), Mem: mem, SMs: 132,
			Observe: rec, GlobalRaces: true, Workers: workers}
		require.NoError(t, k.Run(l))
		return rec
	}
	for _, workers := range []int{1, 4} {
		for _, c := range []struct {
			name     string
			who, idx uint32
			race     bool
		}{
			{"run then lane", n - 1, 3*n/4 + 5, true},
			{"lane then run", 0, 3*n/4 + 5, true},
			{"lane then run, first directory", 0, 1000, true},
			{"run then lane, same warp", 3*n/4 + 7, 3*n/4 + 5, true},
			{"own word twice", 3*n/4 + 5, 3*n/4 + 5, false},
		} {
			rec := run(c.who, c.idx, workers)
			if !c.race {
				assert.Empty(t, rec.races, "%s, %d workers", c.name, workers)
				continue
			}
			require.Len(t, rec.races, 1, "%s, %d workers: %v", c.name, workers, rec.races)
			r := rec.races[0]
			assert.Equal(t, uint32(4), r.Size)
			assert.Equal(t, Write, r.First.Kind)
			assert.Equal(t, Write, r.Second.Kind)
			assert.NotEqual(t, r.First.Thread, r.Second.Thread)
		}
	}
}
