package conformance

import (
	"math"
	"testing"

	"github.com/nocgo/cuda/conformance/samples"
	"github.com/nocgo/cuda/module"
)

// sampleInts returns n varied int32 in -1000..1000, with some large ones
// whose sums wrap (int32 addition wraps alike in every order).
func sampleInts(n int) []int32 {
	in := make([]int32, n)
	for i := range in {
		in[i] = int32((i*7919+13)%2001) - 1000
		if i%997 == 0 {
			in[i] = math.MaxInt32 - int32(i)
		}
	}
	return in
}

// testSampleReductions runs the reduction sample's variants: each block's
// sum, exact.
func testSampleReductions(t *testing.T, r sampleRig) {
	m := r.src
	const n, block = 100003, samples.ReduceBlock
	in := sampleInts(n)
	din := deviceCopy(t, r.ctx, in)
	for _, c := range []struct {
		name string
		per  int // elements a block sums
	}{
		{samples.ReduceInterleaved, block},
		{samples.ReduceStrided, block},
		{samples.ReduceSequential, block},
		{samples.ReduceFirstAdd, 2 * block},
		{samples.ReduceLastWarp, 2 * block},
		{samples.ReduceWarpSync, 2 * block},
		{samples.ReduceUnrolled, 2 * block},
		{samples.ReduceShuffle, block},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := samples.BlockSums(in, c.per)
			dout := deviceCopy(t, r.ctx, make([]int32, len(want)))
			must(t, fn(t, m, c.name).Launch(r.s, module.Config{Grid: module.Dim(len(want)), Block: module.Dim(block)}, din, dout, uint32(n)))
			sameInts(t, "block sums", hostCopy(t, r.s, dout), want)
		})
	}
	t.Run(samples.ReduceMulti, func(t *testing.T) {
		const grid = 24
		dout := deviceCopy(t, r.ctx, make([]int32, grid))
		must(t, fn(t, m, samples.ReduceMulti).Launch(r.s, module.Config{Grid: module.Dim(grid), Block: module.Dim(block)}, din, dout, uint32(n)))
		sameInts(t, "block sums", hostCopy(t, r.s, dout), samples.MultiBlockSums(in, grid))
	})
	t.Run(samples.ReduceRedux, func(t *testing.T) {
		u := make([]uint32, n)
		var total uint32
		for i, v := range in {
			u[i] = uint32(v)
			total += u[i]
		}
		want := make([]uint32, (n+block-1)/block)
		for i, v := range u {
			want[i/block] += v
		}
		du := deviceCopy(t, r.ctx, u)
		dout := deviceCopy(t, r.ctx, make([]uint32, len(want)))
		dtotal := deviceCopy(t, r.ctx, []uint32{0})
		must(t, fn(t, m, samples.ReduceRedux).Launch(r.s, module.Config{Grid: module.Dim(len(want)), Block: module.Dim(block)}, du, dout, uint32(n), dtotal))
		sameInts(t, "block sums", hostCopy(t, r.s, dout), want)
		equal(t, hostCopy(t, r.s, dtotal)[0], total, "atomicAdd of the blocks' __reduce_add_sync sums")
	})
	t.Run(samples.ReduceFloat, func(t *testing.T) {
		f := make([]float32, n)
		for i := range f {
			f[i] = float32(math.Sin(float64(i)*0.61)) * float32(1+i%17) // rounding in every add
		}
		want := samples.FloatTreeSums(f)
		df := deviceCopy(t, r.ctx, f)
		dout := deviceCopy(t, r.ctx, make([]float32, len(want)))
		must(t, fn(t, m, samples.ReduceFloat).Launch(r.s, module.Config{Grid: module.Dim(len(want)), Block: module.Dim(block)}, df, dout, uint32(n)))
		sameFloats(t, "block sums", hostCopy(t, r.s, dout), want)
	})
}

// testSampleScans runs the two block scans, exact.
func testSampleScans(t *testing.T, r sampleRig) {
	m := r.src
	const n, block = 5000, samples.ReduceBlock
	in := sampleInts(n)
	din := deviceCopy(t, r.ctx, in)
	t.Run("hillis-steele", func(t *testing.T) {
		dout := deviceCopy(t, r.ctx, make([]int32, n))
		must(t, fn(t, m, samples.ScanHillisSteele).Launch(r.s, module.Config{Grid: module.Dim((n + block - 1) / block), Block: module.Dim(block)}, din, dout, int32(n)))
		sameInts(t, "inclusive scan", hostCopy(t, r.s, dout), samples.InclusiveScan(in, block))
	})
	t.Run("blelloch", func(t *testing.T) {
		want, wantSums := samples.ExclusiveScan(in, 2*block)
		dout := deviceCopy(t, r.ctx, make([]int32, n))
		dsums := deviceCopy(t, r.ctx, make([]int32, len(wantSums)))
		must(t, fn(t, m, samples.ScanBlelloch).Launch(r.s, module.Config{Grid: module.Dim(len(wantSums)), Block: module.Dim(block)}, din, dout, dsums, int32(n)))
		sameInts(t, "exclusive scan", hostCopy(t, r.s, dout), want)
		sameInts(t, "block totals", hostCopy(t, r.s, dsums), wantSums)
	})
}

// testSampleHistogram runs the 256-bin histogram, exact.
func testSampleHistogram(t *testing.T, r sampleRig) {
	m := r.src
	const n = 40000
	data := make([]uint32, n)
	x := uint32(2463534242)
	for i := range data {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		data[i] = x
		if i%3 == 0 {
			data[i] &= 0x0f0f0f0f // crowd some bins: contended atomics
		}
	}
	want := samples.Histogram(data)
	dd := deviceCopy(t, r.ctx, data)
	dh := deviceCopy(t, r.ctx, make([]uint32, 256))
	must(t, fn(t, m, samples.Histogram256).Launch(r.s, module.Config{Grid: module.Dim(30), Block: module.Dim(samples.ReduceBlock)}, dd, uint32(n), dh))
	sameInts(t, "bins", hostCopy(t, r.s, dh), want[:])
}

// testSampleTranspose runs the padded tiled transpose on a matrix of no
// multiple of the tile, exact.
func testSampleTranspose(t *testing.T, r sampleRig) {
	m := r.src
	const w, h, tile = 77, 45, samples.TransposeTile
	in := make([]float32, w*h)
	for i := range in {
		in[i] = float32(i) + 0.25
	}
	din := deviceCopy(t, r.ctx, in)
	dout := deviceCopy(t, r.ctx, make([]float32, w*h))
	cfg := module.Config{Grid: module.Dim((w+tile-1)/tile, (h+tile-1)/tile), Block: module.Dim(tile, samples.TransposeRows)}
	must(t, fn(t, m, samples.Transpose).Launch(r.s, cfg, dout, din, int32(w), int32(h)))
	sameFloats(t, "out", hostCopy(t, r.s, dout), samples.TransposeRef(in, w, h))
}

// testSampleFilter runs the warp-aggregated filter (__activemask form): the
// count exact, the kept elements the positives in some order.
func testSampleFilter(t *testing.T, r sampleRig) {
	m := r.src
	const n = 10000
	in := sampleInts(n)
	want := samples.Positives(in)
	din := deviceCopy(t, r.ctx, in)
	ddst := deviceCopy(t, r.ctx, make([]int32, n))
	dcount := deviceCopy(t, r.ctx, []int32{0})
	must(t, fn(t, m, samples.FilterAggregated).Launch(r.s, module.Config{Grid: module.Dim((n + 127) / 128), Block: module.Dim(128)}, ddst, din, int32(n), dcount))
	count := hostCopy(t, r.s, dcount)[0]
	equal(t, count, int32(len(want)), "count")
	sameInts(t, "kept (sorted)", sortedPrefix(t, hostCopy(t, r.s, ddst), count), want)
}
