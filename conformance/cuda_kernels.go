package conformance

import (
	"math"
	"math/big"
	"testing"

	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// The CUDA C group: kernels as users write them (shared memory, barriers,
// warp shuffles and votes, atomics, a tiled matmul), compiled with
// module.Compile and run on whatever backend the suite gets, their results
// compared with a reference computed in Go. Their names have no Go body in
// cudatest/fakekernels, so on the fake they run in its PTX interpreter; the
// group needs NVIDIA's NVRTC (see NVIDIACompiler) and skips without it.
//
// Every comparison is bit for bit: the kernels are built so that the
// instruction sequence fixes the result. Integer sums are exact in any
// order; the float atomics add integer-valued floats whose partial sums stay
// below 2^24, so every order gives the same float; the warp reduction is a
// fixed tree of single additions (no contraction possible), which the
// reference repeats; and the matmul's inner product is contracted by NVRTC
// to fma.rn.f32 (the default --fmad=true) in a fixed order, which the
// reference repeats with a correctly rounded float32 fma.

// CUDAKernelSource is the CUDA C of the group's kernels.
const CUDAKernelSource = `#define TILE 16

extern "C" __global__ void cc_block_sum(const int* in, int n, int* blockSums,
                                        unsigned long long* total, float* ftotal, int* maxBlock)
{
    __shared__ int s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        blockSums[blockIdx.x] = s[0];
        atomicAdd(total, (unsigned long long)(long long)s[0]);
        atomicAdd(ftotal, (float)s[0]);
        atomicMax(maxBlock, s[0]);
    }
}

extern "C" __global__ void cc_warp_sum(const float* in, int n, float* warpSums, unsigned int* positives)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    unsigned int ballot = __ballot_sync(0xffffffffu, v > 0.0f);
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if ((threadIdx.x & 31) == 0) {
        warpSums[i / 32] = v;
        positives[i / 32] = __popc(ballot);
    }
}

extern "C" __global__ void cc_matmul(const float* a, const float* b, float* c, int m, int n, int k)
{
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0.0f;
    for (int t = 0; t < (k + TILE - 1) / TILE; t++) {
        int ac = t * TILE + threadIdx.x, br = t * TILE + threadIdx.y;
        as[threadIdx.y][threadIdx.x] = row < m && ac < k ? a[row * k + ac] : 0.0f;
        bs[threadIdx.y][threadIdx.x] = br < k && col < n ? b[br * n + col] : 0.0f;
        __syncthreads();
        for (int j = 0; j < TILE; j++)
            sum += as[threadIdx.y][j] * bs[j][threadIdx.x];
        __syncthreads();
    }
    if (row < m && col < n) c[row * n + col] = sum;
}
`

// testCUDAKernels is the CUDA C group.
func testCUDAKernels(t *testing.T, drv *driver.Driver) {
	NVIDIACompiler(t, drv)
	dev, err := drv.Device(0)
	must(t, err)
	ctx, err := dev.PrimaryContext()
	must(t, err)
	t.Cleanup(func() { ctx.Close() })
	s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	must(t, err)
	t.Cleanup(func() { s.Close() })
	m, err := module.Compile(ctx, CUDAKernelSource, module.Options{Name: "conformance_cuda.cu", NoCache: true})
	must(t, err)
	t.Cleanup(func() { m.Close() })

	t.Run("segment-scale", func(t *testing.T) { testCUDASegmentScale(t, ctx, s) })
	t.Run("block-reduction", func(t *testing.T) { testCUDABlockSum(t, ctx, s, m) })
	t.Run("warp-shuffle", func(t *testing.T) { testCUDAWarpSum(t, ctx, s, m) })
	t.Run("tiled-matmul", func(t *testing.T) { testCUDAMatmul(t, ctx, s, m) })
}

// deviceCopy allocates a buffer holding host and frees it when the test ends.
func deviceCopy[T any](t *testing.T, ctx *driver.Context, host []T) *memory.Buffer[T] {
	t.Helper()
	b, err := memory.Alloc[T](ctx, len(host))
	must(t, err)
	t.Cleanup(func() { b.Close() })
	must(t, memory.CopyToDevice(b, host))
	return b
}

// hostCopy synchronises s and copies b to the host.
func hostCopy[T any](t *testing.T, s *stream.Stream, b *memory.Buffer[T]) []T {
	t.Helper()
	must(t, s.Synchronize())
	out := make([]T, b.Len())
	must(t, memory.CopyToHost(out, b))
	return out
}

// sameFloats reports the first element where got and want differ in their
// bits.
func sameFloats(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Errorf("%s[%d] = %v (%#08x), want %v (%#08x)", what, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
			return
		}
	}
}

// testCUDASegmentScale runs the seed's segment_scale, renamed by a macro so
// that no Go body of the fake stands in for it.
func testCUDASegmentScale(t *testing.T, ctx *driver.Context, s *stream.Stream) {
	m, err := module.Compile(ctx, segscale.Source, module.Options{
		Name: "segscale.cu", NoCache: true, Defines: map[string]string{segscale.Name: "cc_segment_scale"},
	})
	must(t, err)
	defer m.Close()
	f, err := m.Function("cc_segment_scale")
	must(t, err)
	const n = 10007
	in := segscale.Input(n)
	din := deviceCopy(t, ctx, in)
	dout := deviceCopy(t, ctx, make([]float32, n))
	must(t, f.Launch(s, module.Config{Grid: module.Dim((n + 255) / 256), Block: module.Dim(256)}, dout, din, int32(n)))
	want := make([]float32, n)
	segscale.Reference(want, in)
	sameFloats(t, "out", hostCopy(t, s, dout), want)
}

func testCUDABlockSum(t *testing.T, ctx *driver.Context, s *stream.Stream, m *module.Module) {
	f, err := m.Function("cc_block_sum")
	must(t, err)
	const n, block = 100003, 256
	grid := (n + block - 1) / block
	in := make([]int32, n)
	for i := range in {
		in[i] = int32((i*7919)%201) - 100 // -100..100
	}
	din := deviceCopy(t, ctx, in)
	dsums := deviceCopy(t, ctx, make([]int32, grid))
	dtotal := deviceCopy(t, ctx, []uint64{0})
	dftotal := deviceCopy(t, ctx, []float32{0})
	dmax := deviceCopy(t, ctx, []int32{math.MinInt32})
	must(t, f.Launch(s, module.Config{Grid: module.Dim(grid), Block: module.Dim(block)}, din, int32(n), dsums, dtotal, dftotal, dmax))

	sums := make([]int32, grid)
	var total int64
	maxBlock := int32(math.MinInt32)
	for i, v := range in {
		sums[i/block] += v
	}
	for _, v := range sums {
		total += int64(v)
		maxBlock = max(maxBlock, v)
	}
	got := hostCopy(t, s, dsums)
	for i := range sums {
		if got[i] != sums[i] {
			t.Errorf("block %d sums to %d, want %d", i, got[i], sums[i])
			break
		}
	}
	equal(t, int64(hostCopy(t, s, dtotal)[0]), total, "atomicAdd of unsigned long long")
	equal(t, hostCopy(t, s, dftotal)[0], float32(total), "atomicAdd of float (exact: every partial sum is an integer below 2^24)")
	equal(t, hostCopy(t, s, dmax)[0], maxBlock, "atomicMax of int")
}

func testCUDAWarpSum(t *testing.T, ctx *driver.Context, s *stream.Stream, m *module.Module) {
	f, err := m.Function("cc_warp_sum")
	must(t, err)
	const n, block = 5000, 128 // the last warp is partly past n
	grid := (n + block - 1) / block
	warps := grid * block / 32
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(math.Sin(float64(i)*0.37)) * float32(1+i%13) // varied signs, rounding in every add
	}
	din := deviceCopy(t, ctx, in)
	dsums := deviceCopy(t, ctx, make([]float32, warps))
	dpos := deviceCopy(t, ctx, make([]uint32, warps))
	must(t, f.Launch(s, module.Config{Grid: module.Dim(grid), Block: module.Dim(block)}, din, int32(n), dsums, dpos))

	want := make([]float32, warps)
	wantPos := make([]uint32, warps)
	for w := range warps {
		var v [32]float32
		for l := range v {
			if i := w*32 + l; i < n {
				v[l] = in[i]
				if in[i] > 0 {
					wantPos[w]++
				}
			}
		}
		// __shfl_down_sync: lane l reads lane l+offset, or its own value
		// past the warp's end; only lane 0's sum is kept.
		for offset := 16; offset > 0; offset >>= 1 {
			var next [32]float32
			for l := range v {
				o := v[l]
				if l+offset < 32 {
					o = v[l+offset]
				}
				next[l] = v[l] + o
			}
			v = next
		}
		want[w] = v[0]
	}
	sameFloats(t, "warpSums", hostCopy(t, s, dsums), want)
	got := hostCopy(t, s, dpos)
	for w := range wantPos {
		if got[w] != wantPos[w] {
			t.Errorf("warp %d: __popc(__ballot_sync) = %d, want %d", w, got[w], wantPos[w])
			break
		}
	}
}

// fma32 is float32's fused multiply-add, correctly rounded: a*b+c exactly,
// then one rounding to nearest even.
func fma32(a, b, c float32) float32 {
	// 1024 bits hold any float32 product plus any float32 exactly.
	var x, y big.Float
	x.SetPrec(1024).SetFloat64(float64(a))
	x.Mul(&x, y.SetFloat64(float64(b)))
	x.Add(&x, y.SetFloat64(float64(c)))
	f, _ := x.Float32()
	return f
}

func testCUDAMatmul(t *testing.T, ctx *driver.Context, s *stream.Stream, m *module.Module) {
	f, err := m.Function("cc_matmul")
	must(t, err)
	const rows, cols, inner, tile = 37, 45, 50, 16 // no multiple of the tile
	a := make([]float32, rows*inner)
	b := make([]float32, inner*cols)
	for i := range a {
		a[i] = float32(math.Cos(float64(i)*0.11)) * 1.5
	}
	for i := range b {
		b[i] = float32(math.Sin(float64(i)*0.23)) / 3
	}
	da, db := deviceCopy(t, ctx, a), deviceCopy(t, ctx, b)
	dc := deviceCopy(t, ctx, make([]float32, rows*cols))
	cfg := module.Config{Grid: module.Dim((cols+tile-1)/tile, (rows+tile-1)/tile), Block: module.Dim(tile, tile)}
	must(t, f.Launch(s, cfg, da, db, dc, int32(rows), int32(cols), int32(inner)))

	want := make([]float32, rows*cols)
	for r := range rows {
		for c := range cols {
			var sum float32
			// Tiles of the inner dimension padded with zeros, as the
			// kernel loads them: fma(0, 0, sum) is sum.
			for j := 0; j < (inner+tile-1)/tile*tile; j++ {
				var x, y float32
				if j < inner {
					x, y = a[r*inner+j], b[j*cols+c]
				}
				sum = fma32(x, y, sum)
			}
			want[r*cols+c] = sum
		}
	}
	sameFloats(t, "c", hostCopy(t, s, dc), want)
}
