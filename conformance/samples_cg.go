package conformance

import (
	"testing"

	"github.com/nocgo/cuda/conformance/samples"
	"github.com/nocgo/cuda/module"
)

// testSampleCG runs the cooperative-groups kernels (simpleCG's group
// reductions, cg::reduce and cg::inclusive_scan on warp tiles,
// warpAggregatedAtomicsCG's coalesced_threads and labeled_partition),
// exact; the filters' kept elements compared sorted. reductionMultiBlockCG
// (grid.sync) is testSampleCGGrid.
func testSampleCG(t *testing.T, r sampleRig) {
	m := r.compile(t, "samples_cg.cu", samples.CGSource, module.Options{IncludePaths: cudaHeaders(t), Std: "c++17"})
	const block = samples.ReduceBlock
	t.Run("group-reductions", func(t *testing.T) {
		const n = 5000
		grid := (n + block - 1) / block
		in := sampleInts(n)
		dbs := deviceCopy(t, r.ctx, make([]int32, grid))
		d32 := deviceCopy(t, r.ctx, make([]int32, grid*block/32))
		d16 := deviceCopy(t, r.ctx, make([]int32, grid*block/16))
		must(t, fn(t, m, samples.CGReduce).Launch(r.s, module.Config{Grid: module.Dim(grid), Block: module.Dim(block)},
			deviceCopy(t, r.ctx, in), int32(n), dbs, d32, d16))
		padded := append(in, make([]int32, grid*block-n)...)
		sameInts(t, "thread_block sums", hostCopy(t, r.s, dbs), samples.BlockSums(padded, block))
		sameInts(t, "cg::reduce of tiled_partition<32>", hostCopy(t, r.s, d32), samples.BlockSums(padded, 32))
		sameInts(t, "tiled_partition(block, 16) sums", hostCopy(t, r.s, d16), samples.BlockSums(padded, 16))
	})
	t.Run("inclusive-scan", func(t *testing.T) {
		const n = 3000
		in := sampleInts(n)
		dout := deviceCopy(t, r.ctx, make([]int32, n))
		must(t, fn(t, m, samples.CGScan).Launch(r.s, module.Config{Grid: module.Dim((n + 127) / 128), Block: module.Dim(128)},
			deviceCopy(t, r.ctx, in), dout, int32(n)))
		sameInts(t, "warp scans", hostCopy(t, r.s, dout), samples.InclusiveScan(in, 32))
	})
	t.Run("warp-aggregated-atomics", func(t *testing.T) {
		const n = 10000
		in := sampleInts(n)
		want := samples.Positives(in)
		ddst := deviceCopy(t, r.ctx, make([]int32, n))
		dcount := deviceCopy(t, r.ctx, []int32{0})
		must(t, fn(t, m, samples.CGFilter).Launch(r.s, module.Config{Grid: module.Dim((n + 127) / 128), Block: module.Dim(128)},
			ddst, deviceCopy(t, r.ctx, in), int32(n), dcount))
		count := hostCopy(t, r.s, dcount)[0]
		equal(t, count, int32(len(want)), "count")
		sameInts(t, "kept (sorted)", sortedPrefix(t, hostCopy(t, r.s, ddst), count), want)
	})
	t.Run("labeled-partition", func(t *testing.T) {
		const n = 4000
		in := sampleInts(n)
		want := samples.Buckets(in)
		ddst := deviceCopy(t, r.ctx, make([]int32, samples.CGBuckets*n))
		dcounts := deviceCopy(t, r.ctx, make([]int32, samples.CGBuckets))
		must(t, fn(t, m, samples.CGBucketsKernel).Launch(r.s, module.Config{Grid: module.Dim((n + 127) / 128), Block: module.Dim(128)},
			ddst, deviceCopy(t, r.ctx, in), int32(n), dcounts))
		dst, counts := hostCopy(t, r.s, ddst), hostCopy(t, r.s, dcounts)
		for k := range samples.CGBuckets {
			if !equal(t, counts[k], int32(len(want[k])), "bucket %d's count", k) {
				continue
			}
			sameInts(t, "bucket (sorted)", sortedPrefix(t, dst[k*n:(k+1)*n], counts[k]), want[k])
		}
	})
}
