package conformance

import (
	"math"
	"testing"

	"github.com/nocgo/cuda/conformance/samples"
	"github.com/nocgo/cuda/module"
)

// testSampleCGPartition runs the kernels that split warps by a value
// (warpAggregatedAtomicsCG's labeled_partition max, binaryPartitionCG's
// parity sums), whose cg::reduce is one redux.sync reached together by
// groups of different member masks; exact. It runs them compiled as usual
// and with -G, which keeps cooperative groups' fns and cluster barrier.
func testSampleCGPartition(t *testing.T, r sampleRig) {
	t.Run("optimised", func(t *testing.T) { testSampleCGPartitionBuild(t, r, false) })
	t.Run("debug", func(t *testing.T) { testSampleCGPartitionBuild(t, r, true) })
}

// testSampleCGPartitionBuild runs testSampleCGPartition's kernels compiled
// with -G (debug) or without.
func testSampleCGPartitionBuild(t *testing.T, r sampleRig, debug bool) {
	m := r.compile(t, "samples_cg_partition.cu", samples.CGPartitionSource, module.Options{IncludePaths: cudaHeaders(t), Std: "c++17", Debug: debug})
	t.Run("labeled-partition-max", func(t *testing.T) {
		const n = 6000
		keys := sampleInts(n)
		vals := make([]int32, n)
		for i := range vals {
			vals[i] = int32(uint32(i)*2654435761>>1) - 1<<29
		}
		want := samples.BucketMax(keys, vals, math.MinInt32)
		init := make([]int32, samples.CGBuckets)
		for k := range init {
			init[k] = math.MinInt32
		}
		dmax := deviceCopy(t, r.ctx, init)
		must(t, fn(t, m, samples.CGBucketMax).Launch(r.s, module.Config{Grid: module.Dim((n + 127) / 128), Block: module.Dim(128)},
			deviceCopy(t, r.ctx, keys), deviceCopy(t, r.ctx, vals), int32(n), dmax))
		sameInts(t, "bucket maxima", hostCopy(t, r.s, dmax), want[:])
	})
	t.Run("binary-partition-sums", func(t *testing.T) {
		const n = 7777
		in := sampleInts(n)
		sums, odds := samples.ParitySums(in)
		dsums := deviceCopy(t, r.ctx, []int32{0, 0})
		dodds := deviceCopy(t, r.ctx, []int32{0})
		must(t, fn(t, m, samples.CGParitySums).Launch(r.s, module.Config{Grid: module.Dim(5), Block: module.Dim(96)},
			deviceCopy(t, r.ctx, in), int32(n), dsums, dodds))
		sameInts(t, "even and odd sums", hostCopy(t, r.s, dsums), sums[:])
		equal(t, hostCopy(t, r.s, dodds)[0], odds, "odd elements")
	})
}
