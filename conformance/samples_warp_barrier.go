package conformance

import (
	"testing"

	"github.com/nocgo/cuda/conformance/samples"
	"github.com/nocgo/cuda/module"
)

// testSampleWarpBarrier runs the block sum whose warps meet at a software
// barrier of shared-memory atomics and a volatile spin (cooperative groups'
// multi-warp tile sync): exact, and on the fake with no shared-memory race
// reported (the barrier's strong accesses order the warps' sums).
func testSampleWarpBarrier(t *testing.T, r sampleRig) {
	m := r.compile(t, "samples_warp_barrier.cu", samples.WarpBarrierSource, module.Options{})
	const n, block = 20000, samples.ReduceBlock
	in := sampleInts(n)
	grid := (n + block - 1) / block
	dout := deviceCopy(t, r.ctx, make([]int32, grid))
	must(t, fn(t, m, samples.WarpBarrierReduce).Launch(r.s, module.Config{Grid: module.Dim(grid), Block: module.Dim(block)},
		deviceCopy(t, r.ctx, in), dout, uint32(n)))
	sameInts(t, "block sums", hostCopy(t, r.s, dout), samples.BlockSums(in, block))
}
