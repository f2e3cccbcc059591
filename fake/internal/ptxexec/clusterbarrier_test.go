package ptxexec

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clusterExchange has each of 64 threads store its index in shared memory,
// meet the others at WAIT, and read the slot of the thread 32 away (the
// other warp).
const clusterExchange = header + `.visible .entry cluster_exchange(.param .u64 out)
{
	.reg .b32 %r<6>;
	.reg .b64 %rd<6>;
	.shared .align 4 .b8 s[256];
	mov.u32 %r1, %tid.x;
	mov.u64 %rd1, s;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.shared.u32 [%rd3], %r1;
	WAIT
	xor.b32 %r2, %r1, 32;
	mul.wide.u32 %rd4, %r2, 4;
	add.s64 %rd5, %rd1, %rd4;
	ld.shared.u32 %r3, [%rd5];
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	add.s64 %rd1, %rd1, %rd2;
	st.global.u32 [%rd1], %r3;
	ret;
}
`

// TestClusterBarrier: barrier.cluster.arrive and barrier.cluster.wait (what
// cooperative groups' cluster sync compiles to, kept by -G in any code that
// syncs a thread_group) load, and the wait orders the block as a block
// barrier does, a cluster being one block; on a barrier of its own, apart
// from the named ones.
func TestClusterBarrier(t *testing.T) {
	for _, wait := range []string{
		"barrier.cluster.arrive;\n\tbarrier.cluster.wait;",
		"barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;",
		"barrier.cluster.arrive.relaxed;\n\tbar.sync 0;\n\tbarrier.cluster.wait;",
	} {
		p, err := Compile(strings.Replace(clusterExchange, "WAIT", wait, 1))
		require.NoError(t, err, wait)
		mem := newMem()
		out := mem.alloc(4 * 64)
		k := p.Kernels["cluster_exchange"]
		rec := &raceRecorder{}
		require.NoError(t, k.Run(&Launch{Grid: dim(2), Block: dim(64), Params: params(t, k, out), Mem: mem, SMs: 132, Observe: rec, SharedRaces: true}), wait)
		got := mem.readI32(out, 64)
		for i, v := range got {
			require.Equal(t, int32(i^32), v, "%s: thread %d", wait, i)
		}
		assert.Empty(t, rec.races, "%s: the wait orders the block", wait)
	}
	_, err := Compile(strings.Replace(clusterExchange, "WAIT", "barrier.cluster;", 1))
	require.ErrorContains(t, err, "barrier.cluster needs .arrive or .wait")
	_, err = Compile(strings.Replace(clusterExchange, "WAIT", "bar.sync 16;", 1))
	require.ErrorContains(t, err, "not 0..15", "the cluster barrier is not a named one")
}
