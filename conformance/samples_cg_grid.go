package conformance

import (
	"testing"

	"github.com/nocgo/cuda/conformance/samples"
	"github.com/nocgo/cuda/module"
)

// testSampleCGGrid runs reductionMultiBlockCG (grid.sync between the
// blocks' partial sums and block 0's total, and again before every block
// reads the total) as a cooperative launch, exact.
func testSampleCGGrid(t *testing.T, r sampleRig) {
	m := r.compile(t, "samples_cg_grid.cu", samples.CGGridSource, module.Options{IncludePaths: cudaHeaders(t), Std: "c++17"})
	const block, grid, n = samples.ReduceBlock, 24, 50000
	in := sampleInts(n)
	var want int32
	for _, v := range in {
		want += v
	}
	partials := deviceCopy(t, r.ctx, make([]int32, grid))
	out := deviceCopy(t, r.ctx, []int32{-1})
	check := deviceCopy(t, r.ctx, make([]int32, grid))
	cfg := module.Config{Grid: module.Dim(grid), Block: module.Dim(block), SharedMem: 4 * block, Cooperative: true}
	must(t, fn(t, m, samples.CGGridReduce).Launch(r.s, cfg, deviceCopy(t, r.ctx, in), int32(n), partials, out, check))
	sameInts(t, "total", hostCopy(t, r.s, out), []int32{want})
	wantCheck := make([]int32, grid)
	for i := range wantCheck {
		wantCheck[i] = want
	}
	sameInts(t, "total read by every block after the second grid.sync", hostCopy(t, r.s, check), wantCheck)
}
