package conformance_test

import (
	"math"
	"testing"

	"github.com/nocgo/cuda/conformance"
	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// shuffleOutsideSource shuffles from lanes that do not take part: lanes 0..7
// of a warp shuffle down by 16 with member mask 0xff, their sources
// (lanes 16..23) existing but outside the mask and not executing it, as the
// second stage of reduce7 in NVIDIA's reduction sample does
// (shfl_outside_mask); and a block of 8 threads shuffles down by 4 with
// the full mask, lanes 4..7 reading lanes that do not exist
// (shfl_missing_lanes), as the sample's reductions do on blocks smaller
// than a warp; and reduce7's block reduction itself (shfl_reduce7_block).
const shuffleOutsideSource = `
extern "C" __global__ void shfl_outside_mask(const float* in, float* out)
{
    float v = in[threadIdx.x];
    float a = v;
    if (threadIdx.x % 32 < 8)
        a += __shfl_down_sync(0xffu, v, 16);
    out[threadIdx.x] = a;
}

extern "C" __global__ void shfl_missing_lanes(const float* in, float* out)
{
    float v = in[threadIdx.x];
    out[threadIdx.x] = v + __shfl_down_sync(0xffffffffu, v, 4);
}

// reduce7's shape on one block of 256 threads: each warp's sum with full
// shuffles, then warp 0's first 8 lanes add the 8 sums with a shuffle loop
// from offset 16 under the ballot of those lanes.
extern "C" __global__ void shfl_reduce7_block(const float* in, float* out)
{
    __shared__ float sdata[8];
    unsigned int tid = threadIdx.x;
    float sum = in[tid];
    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (tid % 32 == 0) sdata[tid / 32] = sum;
    __syncthreads();
    unsigned int ballot = __ballot_sync(0xffffffffu, tid < 8);
    if (tid < 8) {
        sum = sdata[tid];
        for (int offset = 16; offset > 0; offset /= 2)
            sum += __shfl_down_sync(ballot, sum, offset);
    }
    if (tid == 0) out[0] = sum;
}
`

// shuffleOutside runs the kernels on api and returns what each thread
// stored.
func shuffleOutside(t *testing.T, api backend.API) (outside, missing, reduce7 []float32) {
	drv := conformance.Open(t, api)
	conformance.NVIDIACompiler(t, drv)
	dev, err := drv.Device(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := dev.PrimaryContext()
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	s, err := stream.New(ctx, stream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m, err := module.Compile(ctx, shuffleOutsideSource, module.Options{Name: "shuffle_outside.cu", NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	in := make([]float32, 256)
	for i := range in {
		in[i] = float32(i + 1)
	}
	run := func(name string, threads, outs int) []float32 {
		din, err := memory.FromSlice(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		defer din.Close()
		dout, err := memory.FromSlice(ctx, make([]float32, outs))
		if err != nil {
			t.Fatal(err)
		}
		defer dout.Close()
		f, err := m.Function(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(threads)}, din, dout); err != nil {
			t.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
		out := make([]float32, outs)
		if err := memory.CopyToHost(out, dout); err != nil {
			t.Fatal(err)
		}
		return out
	}
	return run("shfl_outside_mask", 32, 32), run("shfl_missing_lanes", 8, 8), run("shfl_reduce7_block", 256, 1)
}

// TestShuffleOutsideTheGroupAsOnTheGPU: CUDA leaves undefined what a
// shfl.sync reads from a lane outside the member mask or from a lane that
// does not exist, yet NVIDIA's reduction sample does both (reduce7's
// second stage, the reductions on blocks smaller than a warp); the fake
// must read there what the GPU reads. It runs the two shuffles on the GPU
// and on the fake and compares what every thread got. It needs a GPU and
// NVRTC (skipped without them, failed with NOCGO_CUDA_REQUIRE_GPU=1).
func TestShuffleOutsideTheGroupAsOnTheGPU(t *testing.T) {
	gpu := cudatest.RealBackend(t)
	gpuOutside, gpuMissing, gpuReduce7 := shuffleOutside(t, gpu)
	fakeOutside, fakeMissing, fakeReduce7 := shuffleOutside(t, fake.NewBackend())
	// 1+2+...+256: what the reduction sample expects of reduce7.
	t.Logf("reduce7's shape on the GPU: %v (the exact sum is 32896), on the fake: %v", gpuReduce7[0], fakeReduce7[0])
	for _, c := range []struct {
		name      string
		gpu, fake []float32
	}{{"shfl_outside_mask", gpuOutside, fakeOutside}, {"shfl_missing_lanes", gpuMissing, fakeMissing}, {"shfl_reduce7_block", gpuReduce7, fakeReduce7}} {
		for i := range c.gpu {
			if math.Float32bits(c.gpu[i]) != math.Float32bits(c.fake[i]) {
				t.Errorf("%s: the GPU gives thread %d %v, the fake %v (GPU: %v; fake: %v)", c.name, i, c.gpu[i], c.fake[i], c.gpu, c.fake)
				break
			}
		}
	}
}
