package fpu

import (
	"math"
	"testing"
)

// The operands cycle through a small table so that the compiler cannot fold
// them and the branch predictor sees ordinary data.
var benchA = []float32{1.5, -2.25, 3.0e-3, 7, 0x1p-20, -1e10, 0.1, 42}
var benchB = []float32{0.75, 1e-5, -3, 2.5, 1e20, -0.5, 0.3, -7}

var sink32 float32
var sinkBool bool
var sink64 float64

func BenchmarkAddF32Nearest(b *testing.B) {
	var s float32
	for i := 0; i < b.N; i++ {
		s += AddF32(benchA[i&7], benchB[i&7], Nearest)
	}
	sink32 = s
}

func BenchmarkAddF32Down(b *testing.B) {
	var s float32
	for i := 0; i < b.N; i++ {
		s += AddF32(benchA[i&7], benchB[i&7], Down)
	}
	sink32 = s
}

func BenchmarkMulF32Nearest(b *testing.B) {
	var s float32
	for i := 0; i < b.N; i++ {
		s += MulF32(benchA[i&7], benchB[i&7], Nearest)
	}
	sink32 = s
}

func BenchmarkFmaF32Nearest(b *testing.B) {
	var s float32
	for i := 0; i < b.N; i++ {
		s += FmaF32(benchA[i&7], benchB[i&7], benchA[(i+3)&7], Nearest)
	}
	sink32 = s
}

func BenchmarkFmaF32Down(b *testing.B) {
	var s float32
	for i := 0; i < b.N; i++ {
		s += FmaF32(benchA[i&7], benchB[i&7], benchA[(i+3)&7], Down)
	}
	sink32 = s
}

func BenchmarkDivF32Nearest(b *testing.B) {
	var s float32
	for i := 0; i < b.N; i++ {
		s += DivF32(benchA[i&7], benchB[i&7], Nearest)
	}
	sink32 = s
}

func BenchmarkCompareF32(b *testing.B) {
	n := 0
	for i := 0; i < b.N; i++ {
		if CompareF32(Compare(i%14), benchA[i&7], benchB[i&7]) {
			n++
		}
	}
	sinkBool = n > 0
}

func BenchmarkMinF32(b *testing.B) {
	var s float32
	for i := 0; i < b.N; i++ {
		s += MinF32(benchA[i&7], benchB[i&7])
	}
	sink32 = s
}

func BenchmarkFmaF64Nearest(b *testing.B) {
	var s float64
	for i := 0; i < b.N; i++ {
		s += FmaF64(float64(benchA[i&7]), float64(benchB[i&7]), s, Nearest)
	}
	sink64 = s
}

func BenchmarkEx2ApproxF32(b *testing.B) {
	var s float32
	for i := 0; i < b.N; i++ {
		s += Ex2ApproxF32(benchA[i&7] * 1e-3)
	}
	sink32 = s
}

func BenchmarkF32ToInt(b *testing.B) {
	var s uint64
	for i := 0; i < b.N; i++ {
		s += F32ToInt(benchA[i&7], Zero, 32, true)
	}
	sink64 = float64(s)
}

// TestHotPathsAllocateNothing keeps the interpreter's per-instruction path
// free of allocation.
func TestHotPathsAllocateNothing(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		for _, r := range modes {
			sink32 = AddF32(1, 1e-30, r) + MulF32(3, 1e-3, r) + DivF32(1, 3, r) + SqrtF32(2, r) + FmaF32(1, 2, 1e-30, r)
			sink64 = AddF64(1, 1e-300, r) + MulF64(3, 1e-300, r) + DivF64(1e-310, 3, r) + SqrtF64(1e-310, r)
			sink64 += float64(F64ToF32(1/3.0, r)) + IntToF64(math.MaxUint64, false, r)
		}
		sink64 += FmaF64(1, 2, 3, Nearest) + MinF64(1, 2)
		sinkBool = CompareF32(Ltu, 1, 2)
		sink32 = Ex2ApproxF32(1) + SinApproxF32(1) + float32(F32ToF16(1, Zero))
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run", allocs)
	}
}
