package ptxexec

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allStore has every thread store its warp index to one shared word, with
// one st instruction.
const allStore = header + `.visible .entry all_store()
{
	.reg .b32 %r<4>;
	.shared .align 4 .b32 word;
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	st.shared.u32 [word], %r2;
	ret;
}
`

// TestSharedRacesOneWarpStore: the lanes of one warp storing to one byte
// with one instruction are one warp-wide store (cooperative groups' tile
// reductions have every lane write the shared result), not a race; two
// warps doing so race.
func TestSharedRacesOneWarpStore(t *testing.T) {
	p, err := Compile(allStore)
	require.NoError(t, err)
	k := p.Kernels["all_store"]
	for _, c := range []struct {
		threads uint32
		races   bool
	}{{32, false}, {20, false}, {64, true}} {
		rec := &raceRecorder{}
		require.NoError(t, k.Run(&Launch{Grid: dim(1), Block: dim(c.threads), Params: params(t, k), Mem: newMem(), SMs: 132, Observe: rec, SharedRaces: true}))
		if !c.races {
			assert.Empty(t, rec.races, "%d threads: one warp's store", c.threads)
			continue
		}
		require.NotEmpty(t, rec.races, "%d threads: two warps' stores", c.threads)
		assert.NotEqual(t, rec.races[0].First.Thread[0]/32, rec.races[0].Second.Thread[0]/32, "the race is between warps")
	}
}
