package ptxexec

import (
	"encoding/binary"
	"math"
	"math/bits"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/fake/internal/fpu"
)

var archs = []string{"80", "90"}

func TestAxpy(t *testing.T) {
	for _, arch := range archs {
		p, mem := load(t, arch)
		const n = 1000
		x, y := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], y[i] = float32(i)*0.5, float32(n-i)
		}
		px, py, out := mem.f32s(x), mem.f32s(y), mem.f32s(make([]float32, n+8))
		require.NoError(t, run(t, p, mem, "axpy", dim((n+255)/256), dim(256), 0, float32(3), px, py, out, int32(n)))
		got := mem.readF32(out, n+8)
		for i := 0; i < n; i++ {
			// ptxas may contract a*x+y into an fma; NVRTC emitted fma.rn here.
			require.Equal(t, fpu.FmaF32(3, x[i], y[i], fpu.Nearest), got[i], "element %d", i)
		}
		for i := n; i < n+8; i++ {
			assert.Zero(t, got[i], "element %d past n written", i)
		}
	}
}

func TestBlockSum(t *testing.T) {
	for _, arch := range archs {
		p, mem := load(t, arch)
		const n = 1000
		in := make([]float32, n)
		want := float32(0)
		for i := range in {
			in[i] = float32(i % 17)
			want += in[i]
		}
		pin, total := mem.f32s(in), mem.f32s([]float32{0})
		require.NoError(t, run(t, p, mem, "block_sum", dim((n+255)/256), dim(256), 0, pin, total, int32(n)))
		assert.Equal(t, want, mem.readF32(total, 1)[0]) // small integers: exact in any order
		assert.Equal(t, 1024, p.Kernels["block_sum"].StaticShared)
	}
}

func TestWarpSum(t *testing.T) {
	for _, arch := range archs {
		p, mem := load(t, arch)
		const n = 200 // the last warp is partly past n
		in := make([]int32, n)
		var want int32
		for i := range in {
			in[i] = int32(i*7 - 300)
			want += in[i]
		}
		pin, out := mem.i32s(in), mem.i32s([]int32{0, 0})
		require.NoError(t, run(t, p, mem, "warp_sum", dim(2), dim(128), 0, pin, out, int32(n)))
		got := mem.readI32(out, 2)
		assert.Equal(t, want, got[0])
		// The ballot of lanes whose partial sum is nonzero, or-ed over warps.
		assert.NotZero(t, got[1])
	}
}

func TestMatmul(t *testing.T) {
	for _, arch := range archs {
		p, mem := load(t, arch)
		const n = 37 // not a multiple of the tile
		a, b := make([]float32, n*n), make([]float32, n*n)
		for i := range a {
			a[i] = float32(i%11) - 5
			b[i] = float32(i%7) * 0.25
		}
		pa, pb, pc := mem.f32s(a), mem.f32s(b), mem.f32s(make([]float32, n*n))
		g := uint32((n + 15) / 16)
		require.NoError(t, run(t, p, mem, "matmul", [3]uint32{g, g, 1}, [3]uint32{16, 16, 1}, 0, pa, pb, pc, int32(n)))
		got := mem.readF32(pc, n*n)
		for r := 0; r < n; r++ {
			for c := 0; c < n; c++ {
				var acc float32
				for k := 0; k < n; k++ {
					acc = fpu.FmaF32(a[r*n+k], b[k*n+c], acc, fpu.Nearest)
				}
				require.Equal(t, acc, got[r*n+c], "C[%d][%d]", r, c)
			}
		}
	}
}

func TestSoftmax(t *testing.T) {
	for _, arch := range archs {
		p, mem := load(t, arch)
		const rows, cols = 3, 300
		in := make([]float32, rows*cols)
		for i := range in {
			in[i] = float32(i%23)*0.37 - 4
		}
		pin, out := mem.f32s(in), mem.f32s(make([]float32, rows*cols))
		require.NoError(t, run(t, p, mem, "softmax", dim(rows), dim(128), 128*4, pin, out, int32(cols)))
		got := mem.readF32(out, rows*cols)
		for r := 0; r < rows; r++ {
			row := in[r*cols : (r+1)*cols]
			m := row[0]
			for _, v := range row {
				m = max(m, v)
			}
			var sum float64
			for _, v := range row {
				sum += math.Exp(float64(v - m))
			}
			var total float32
			for j, v := range row {
				want := math.Exp(float64(v-m)) / sum
				assert.InEpsilon(t, want, float64(got[r*cols+j]), 1e-5, "row %d col %d", r, j)
				total += got[r*cols+j]
			}
			assert.InDelta(t, 1, total, 1e-4)
		}
	}
}

func TestTemplates(t *testing.T) {
	p, mem := load(t, "90")
	const n = 1000
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i)
	}
	px := mem.f32s(x)
	// A grid smaller than n: the grid-stride loop covers the rest.
	require.NoError(t, run(t, p, mem, "_Z5scaleIfEvPT_S0_x", dim(2), dim(64), 0, px, float32(1.5), int64(n)))
	for i, v := range mem.readF32(px, n) {
		require.Equal(t, float32(i)*1.5, v, "element %d", i)
	}
	pd := mem.alloc(8 * n)
	b := mem.bytes(pd)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(float64(i)/3))
	}
	require.NoError(t, run(t, p, mem, "_Z5scaleIdEvPT_S0_x", dim(3), dim(32), 0, pd, 0.1, int64(n)))
	for i := 0; i < n; i++ {
		require.Equal(t, float64(i)/3*0.1, math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])), "element %d", i)
	}
}

func TestInt64Math(t *testing.T) {
	p, mem := load(t, "90")
	vals := []int64{0, 1, -1, 7, -7, 13, -13, math.MaxInt64, math.MinInt64, 1 << 40, -(1 << 40) + 3, 123456789012345}
	pa := mem.alloc(8 * len(vals))
	b := mem.bytes(pa)
	for i, v := range vals {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
	}
	out := mem.alloc(8 * len(vals))
	require.NoError(t, run(t, p, mem, "int64_math", dim(1), dim(5), 0, pa, out, int64(len(vals))))
	ob := mem.bytes(out)
	for i, v := range vals {
		q, r := v/7, v%7
		u := uint64(v)
		hi, _ := bits.Mul64(u, 0x9E3779B97F4A7C15)
		want := uint64(q*3+r) ^ (u >> 3) ^ hi
		assert.Equal(t, want, binary.LittleEndian.Uint64(ob[8*i:]), "value %d", v)
	}
}

func TestDoubleMath(t *testing.T) {
	p, mem := load(t, "90")
	vals := []float64{0, 1, -1, 2.5, -2.5, 1e-300, 1e300, math.Inf(1), math.NaN(), math.Copysign(0, -1), 3.14159}
	pa := mem.alloc(8 * len(vals))
	b := mem.bytes(pa)
	for i, v := range vals {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	out := mem.alloc(8 * len(vals))
	require.NoError(t, run(t, p, mem, "dmath", dim(1), dim(32), 0, pa, out, int32(len(vals))))
	ob := mem.bytes(out)
	for i, v := range vals {
		want := math.Sqrt(math.FMA(v, v, 1.0))/(v+2.5) - math.FMA(v, 0.5, -1.0)
		got := math.Float64frombits(binary.LittleEndian.Uint64(ob[8*i:]))
		if math.IsNaN(want) {
			assert.True(t, math.IsNaN(got), "value %v: got %v", v, got)
			continue
		}
		assert.Equal(t, want, got, "value %v", v)
	}
}

func TestSinf(t *testing.T) {
	for _, arch := range archs {
		p, mem := load(t, arch)
		// Large arguments take the Payne-Hanek path through the
		// __cudart_i2opi_f table in .global memory and a local array.
		in := []float32{0, 0.5, -1, 3.14159265, 100, -1000, 1e6, 1e20, -3e30, float32(math.Inf(1)), 1e-30}
		pin, out := mem.f32s(in), mem.f32s(make([]float32, len(in)))
		require.NoError(t, run(t, p, mem, "sines", dim(1), dim(32), 0, pin, out, int32(len(in))))
		got := mem.readF32(out, len(in))
		for i, x := range in {
			want := math.Sin(float64(x))
			if math.IsInf(float64(x), 0) {
				assert.True(t, math.IsNaN(float64(got[i])), "sinf(inf) = %v", got[i])
				continue
			}
			// sinf is within 2 ulp (CUDA C Programming Guide, mathematical functions).
			assert.InDelta(t, want, float64(got[i]), 2*ulp32(float32(want))+1e-45, "sinf(%v)", x)
		}
	}
}

func ulp32(f float32) float64 {
	f = float32(math.Abs(float64(f)))
	return float64(math.Nextafter32(f, float32(math.Inf(1))) - f)
}

func TestLocalArrayAndRecursion(t *testing.T) {
	for _, arch := range archs {
		p, mem := load(t, arch)
		const n = 40
		in := make([]int32, n)
		for i := range in {
			in[i] = int32(i*5 + 3)
		}
		pin, out := mem.i32s(in), mem.i32s(make([]int32, 2*n))
		require.NoError(t, run(t, p, mem, "local_array", dim(2), dim(32), 0, pin, out, int32(n)))
		got := mem.readI32(out, 2*n)
		fib := func(k int32) int32 {
			a, b := int32(0), int32(1)
			for ; k > 0; k-- {
				a, b = b, a+b
			}
			return a
		}
		for i := 0; i < n; i++ {
			var arr [16]int32
			for j := range arr {
				arr[j] = in[(i+j)%n]
			}
			k := in[i] & 15
			var s int32
			for j := int32(0); j < k+1; j++ {
				s += arr[j] * (j + 1)
			}
			assert.Equal(t, s+arr[k], got[2*i], "walk %d", i)
			assert.Equal(t, fib(in[i]&7), got[2*i+1], "fib %d", i)
		}
		assert.Positive(t, p.Kernels["local_array"].LocalSize)
	}
}

func TestEarlyExitBarrier(t *testing.T) {
	p, mem := load(t, "90")
	const n = 50
	out := mem.i32s(make([]int32, 64))
	require.NoError(t, run(t, p, mem, "early_exit", dim(1), dim(64), 0, out, int32(n)))
	got := mem.readI32(out, 64)
	for i := 0; i < n; i++ {
		assert.Equal(t, int32((i+1)%n*2), got[i], "thread %d", i)
	}
}
