package ptxexec

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// warpRunPTX: every warp stores VALUE at s[lane] (a full warp's coalesced
// store, the warp-wide path's run of lanes) with no barrier between the
// warps, then, after a barrier, each thread reads s[lane] into out[tid].
const warpRunPTX = `.version 7.8
.target sm_90
.address_size 64

.visible .entry store_run(.param .u64 out)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.shared .align 4 .b8 s[128];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 31;
	shl.b32 %r3, %r2, 2;
	mov.u32 %r4, s;
	add.u32 %r5, %r4, %r3;
	st.shared.u32 [%r5], VALUE;
	bar.sync 0;
	ld.shared.u32 %r6, [%r5];
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd2, %rd1;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	st.global.u32 [%rd4], %r6;
	ret;
}
`

// TestSharedRaceWarpRuns: two warps' coalesced stores of one region, on
// the warp-wide path (one sharedRun a warp): different values are one
// report, at warp 0's first word, of lane 0 of each warp; the same values
// none (the held write-after-write is settled after the run's stores).
func TestSharedRaceWarpRuns(t *testing.T) {
	for _, c := range []struct {
		value string
		race  bool
	}{{"%r2", false}, {"%r1", true}} {
		p, err := Compile(strings.ReplaceAll(warpRunPTX, "VALUE", c.value))
		require.NoError(t, err)
		mem := newMem()
		mem.bind(p)
		out := mem.alloc(4 * 64)
		k := p.Kernels["store_run"]
		rec := &raceRecorder{}
		require.NoError(t, k.Run(&Launch{Grid: dim(1), Block: dim(64), Params: params(t, k, out), Mem: mem, SMs: 132, Observe: rec, SharedRaces: true}))
		got := mem.readI32(out, 64)
		for tid := range int32(64) {
			want := tid % 32
			if c.race {
				want += 32 // warp 1 stored last
			}
			require.Equal(t, want, got[tid], "%s: thread %d", c.value, tid)
		}
		if !c.race {
			assert.Empty(t, rec.races, "%s: the same values", c.value)
			continue
		}
		require.Len(t, rec.races, 1, "one pair of instructions")
		r := rec.races[0]
		assert.Equal(t, Write, r.First.Kind)
		assert.Equal(t, Write, r.Second.Kind)
		assert.Equal(t, uint32(0), r.Offset)
		assert.Equal(t, [3]uint32{0, 0, 0}, r.First.Thread)
		assert.Equal(t, [3]uint32{32, 0, 0}, r.Second.Thread)
		assert.Contains(t, r.Second.Instr, "st.shared.u32")
	}
}
