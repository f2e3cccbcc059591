package ptxexec

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// warpStore has every thread store VALUE (its warp index, or its thread
// index) to one shared word, with one st instruction, and read it back
// after a barrier.
const warpStore = header + `.visible .entry warp_store()
{
	.reg .b32 %r<4>;
	.shared .align 4 .b32 word;
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	st.shared.u32 [word], VALUE;
	bar.sync 0;
	ld.shared.u32 %r3, [word];
	ret;
}
`

// TestSharedRacesOneWarpStore: the lanes of one warp storing the same
// value to one word with one instruction are one warp-wide store
// (cooperative groups' tile reductions have every lane write the result
// they share), not a race; lanes storing different values race, and so do
// two warps.
func TestSharedRacesOneWarpStore(t *testing.T) {
	for _, c := range []struct {
		value   string
		threads uint32
		races   bool
	}{
		{"%r2", 32, false}, {"%r2", 20, false}, {"%r2", 64, true},
		{"%r1", 32, true}, {"%r1", 2, true},
	} {
		p, err := Compile(strings.Replace(warpStore, "VALUE", c.value, 1))
		require.NoError(t, err)
		k := p.Kernels["warp_store"]
		rec := &raceRecorder{}
		require.NoError(t, k.Run(&Launch{Grid: dim(2), Block: dim(c.threads), Params: params(t, k), Mem: newMem(), SMs: 132, Observe: rec, SharedRaces: true}))
		if !c.races {
			assert.Empty(t, rec.races, "%d threads store %s: one warp's store", c.threads, c.value)
			continue
		}
		require.NotEmpty(t, rec.races, "%d threads store %s", c.threads, c.value)
		r := rec.races[0]
		assert.Equal(t, Write, r.First.Kind)
		assert.Equal(t, Write, r.Second.Kind)
		assert.NotEqual(t, r.First.Thread, r.Second.Thread)
	}
}
