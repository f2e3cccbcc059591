package ptxexec

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCollectiveGroupsAtOneInstruction: the lanes of a warp that reach one
// redux.sync or vote.sync together with different member masks (the groups
// of cooperative_groups' labeled_partition or binary_partition, as
// warpAggregatedAtomicsCG's cg::reduce over a labeled group compiles to)
// form one collective per mask, each over its own lanes only.
func TestCollectiveGroupsAtOneInstruction(t *testing.T) {
	// Even lanes take the mask of the even lanes, odd lanes of the odd.
	const byParity = `and.b32 %w5, %w4, 1;
	setp.eq.u32 %p1, %w5, 0;
	selp.b32 %w6, 0x55555555, 0xaaaaaaaa, %p1;
	`
	cases := []struct {
		name string
		body string
		want func(tid uint64) uint64
	}{
		// max of the group's thread indices: 30 (62) for the even lanes,
		// 31 (63) for the odd ones.
		{"redux.sync.max", byParity + "redux.sync.max.u32 %w3, %w4, %w6;" + out32, func(tid uint64) uint64 { return tid | 30 }},
		{"redux.sync.add", byParity + "and.b32 %w7, %w4, 31;\n\tredux.sync.add.u32 %w3, %w7, %w6;" + out32, func(tid uint64) uint64 {
			if tid%2 == 0 {
				return 240 // 0+2+...+30
			}
			return 256 // 1+3+...+31
		}},
		// a ballot of true is the group's own mask.
		{"vote.sync.ballot", byParity + "setp.ne.u32 %p2, %w4, 999;\n\tvote.sync.ballot.b32 %w3, %p2, %w6;" + out32, func(tid uint64) uint64 {
			if tid%2 == 0 {
				return 0x55555555
			}
			return 0xaaaaaaaa
		}},
		// all lanes of the even group have tid < 1000, the odd group holds
		// lane 31 whose predicate is false.
		{"vote.sync.all", byParity + "and.b32 %w7, %w4, 31;\n\tsetp.ne.u32 %p2, %w7, 31;\n\tvote.sync.all.pred %p3, %p2, %w6;\n\tselp.u32 %w3, 1, 0, %p3;" + out32, func(tid uint64) uint64 {
			return 1 - tid%2
		}},
	}
	for _, c := range cases {
		for _, threads := range []uint32{32, 64} {
			got, err := runSnippet(t, c.body, threads)
			require.NoError(t, err, c.name)
			for i, v := range got {
				require.Equal(t, c.want(uint64(i)), v, "%s, %d threads: thread %d", c.name, threads, i)
			}
		}
	}
}
