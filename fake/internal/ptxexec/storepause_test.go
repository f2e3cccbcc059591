package ptxexec

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// warLoopPTX: thread 0 stores 7 to s, a barrier, then every thread loads
// s and lane 0 of each warp stores 100+warp to it (a write after the other
// warps' read, with no barrier between: llm.c's blockReduce in a loop),
// a barrier, and out[tid] is what the thread loaded.
const warLoopPTX = `.version 7.8
.target sm_90
.address_size 64

.visible .entry war(.param .u64 out)
{
	.reg .pred %p<3>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<6>;
	.shared .align 4 .b8 s[4];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, s;
	setp.eq.u32 %p1, %r1, 0;
	mov.u32 %r3, 7;
	@%p1 st.shared.u32 [%r2], %r3;
	bar.sync 0;
	ld.shared.u32 %r4, [%r2];
	and.b32 %r5, %r1, 31;
	setp.eq.u32 %p2, %r5, 0;
	shr.u32 %r6, %r1, 5;
	add.u32 %r7, %r6, 100;
	@%p2 st.shared.u32 [%r2], %r7;
	bar.sync 0;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd2, %rd1;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	st.global.u32 [%rd4], %r4;
	ret;
}
`

// TestLoadAfterBarrierBeforeOtherWarpsStore: every warp's load that
// follows a barrier sees the value from before it, not the store another
// warp makes later in the phase (as on the GPU, where the warps leave the
// barrier together), in lockstep, with the race checks on (thread by
// thread through the observer), and on parallel workers.
func TestLoadAfterBarrierBeforeOtherWarpsStore(t *testing.T) {
	p, err := Compile(warLoopPTX)
	require.NoError(t, err)
	for _, c := range []struct {
		name    string
		threads uint32
		races   bool
		workers int
	}{
		{"2 warps", 64, false, 0},
		{"8 warps", 256, false, 0},
		{"1 warp and a part", 40, false, 0},
		{"race checks on", 256, true, 0},
		{"2 workers", 256, false, 2},
	} {
		mem := newMem()
		mem.bind(p)
		const blocks = 3
		out := mem.alloc(4 * int(c.threads))
		k := p.Kernels["war"]
		l := &Launch{Grid: dim(blocks), Block: dim(c.threads), Params: params(t, k, out), Mem: mem, SMs: 132, Workers: c.workers}
		if c.races {
			l.Observe, l.SharedRaces = &raceRecorder{}, true
		}
		require.NoError(t, k.Run(l), c.name)
		got := mem.readI32(out, int(c.threads)) // every block writes out[tid]: the last one's
		for tid, v := range got {
			require.Equal(t, int32(7), v, "%s: thread %d loaded another warp's later store", c.name, tid)
		}
	}
}
