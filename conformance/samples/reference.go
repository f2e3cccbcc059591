package samples

import (
	"math"
	"slices"
)

// BlockSums returns the sums of in's consecutive chunks of per elements
// (the last one partial), with int32's wrapping addition: the per-block
// results of the reductions that sum per elements a block (ReduceBlock for
// #0-#2, the shuffle and the redux kernels; 2*ReduceBlock for #3-#5).
func BlockSums(in []int32, per int) []int32 {
	out := make([]int32, (len(in)+per-1)/per)
	for i, v := range in {
		out[i/per] += v
	}
	return out
}

// MultiBlockSums returns the per-block results of ReduceMulti launched on
// grid blocks of ReduceBlock threads: block b sums the elements whose index
// modulo 2*ReduceBlock*grid falls in [2*ReduceBlock*b, 2*ReduceBlock*(b+1)).
func MultiBlockSums(in []int32, grid int) []int32 {
	out := make([]int32, grid)
	span := 2 * ReduceBlock
	for i, v := range in {
		out[i%(span*grid)/span] += v
	}
	return out
}

// FloatTreeSums repeats ReduceFloat: for each chunk of ReduceBlock floats
// (zero-padded), the sequential-addressing tree of float32 additions.
func FloatTreeSums(in []float32) []float32 {
	out := make([]float32, (len(in)+ReduceBlock-1)/ReduceBlock)
	for b := range out {
		var s [ReduceBlock]float32
		copy(s[:], in[b*ReduceBlock:min(len(in), (b+1)*ReduceBlock)])
		for stride := ReduceBlock / 2; stride > 0; stride >>= 1 {
			for t := range stride {
				s[t] += s[t+stride]
			}
		}
		out[b] = s[0]
	}
	return out
}

// InclusiveScan returns, for each element, the sum of its chunk of width
// elements up to and including it (ScanHillisSteele with width
// ReduceBlock, CGScan with width 32).
func InclusiveScan(in []int32, width int) []int32 {
	out := make([]int32, len(in))
	var sum int32
	for i, v := range in {
		if i%width == 0 {
			sum = 0
		}
		sum += v
		out[i] = sum
	}
	return out
}

// ExclusiveScan returns, for each element, the sum of its chunk of width
// elements before it, and each chunk's total (ScanBlelloch with width
// 2*ReduceBlock).
func ExclusiveScan(in []int32, width int) (out, sums []int32) {
	out = make([]int32, len(in))
	sums = make([]int32, (len(in)+width-1)/width)
	for i, v := range in {
		out[i] = sums[i/width]
		sums[i/width] += v
	}
	return out, sums
}

// Histogram counts the four bytes of each word of data into 256 bins.
func Histogram(data []uint32) [256]uint32 {
	var h [256]uint32
	for _, w := range data {
		h[w&0xff]++
		h[w>>8&0xff]++
		h[w>>16&0xff]++
		h[w>>24]++
	}
	return h
}

// TransposeRef returns the transpose (w rows of h) of in (h rows of w).
func TransposeRef(in []float32, w, h int) []float32 {
	out := make([]float32, len(in))
	for y := range h {
		for x := range w {
			out[x*h+y] = in[y*w+x]
		}
	}
	return out
}

// Positives returns the positive elements of in, sorted: what the filter
// kernels leave in dst[:count], once sorted.
func Positives(in []int32) []int32 {
	var out []int32
	for _, v := range in {
		if v > 0 {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// Buckets returns the positive elements of in by bucket (v mod CGBuckets),
// each bucket sorted: what CGBucketsKernel leaves in its buckets, once
// sorted.
func Buckets(in []int32) [CGBuckets][]int32 {
	var out [CGBuckets][]int32
	for _, v := range in {
		if v > 0 {
			out[v%CGBuckets] = append(out[v%CGBuckets], v)
		}
	}
	for i := range out {
		slices.Sort(out[i])
	}
	return out
}

// ULPs returns how many float32 values lie between a and b (0 when their
// bits are equal; +0 and -0 are 0 apart), or MaxInt64 when either is NaN.
func ULPs(a, b float32) int64 {
	if a != a || b != b {
		return math.MaxInt64
	}
	key := func(f float32) int64 {
		u := int64(math.Float32bits(f))
		if u&(1<<31) != 0 {
			return -(u &^ (1 << 31))
		}
		return u
	}
	d := key(a) - key(b)
	if d < 0 {
		d = -d
	}
	return d
}
