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
// than a warp.
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
`

// shuffleOutside runs both kernels on api and returns what each thread
// stored.
func shuffleOutside(t *testing.T, api backend.API) (outside, missing []float32) {
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
	in := make([]float32, 32)
	for i := range in {
		in[i] = float32(i + 1)
	}
	run := func(name string, threads int) []float32 {
		din, err := memory.FromSlice(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		defer din.Close()
		dout, err := memory.FromSlice(ctx, make([]float32, threads))
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
		out := make([]float32, threads)
		if err := memory.CopyToHost(out, dout); err != nil {
			t.Fatal(err)
		}
		return out
	}
	return run("shfl_outside_mask", 32), run("shfl_missing_lanes", 8)
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
	gpuOutside, gpuMissing := shuffleOutside(t, gpu)
	fakeOutside, fakeMissing := shuffleOutside(t, fake.NewBackend())
	for _, c := range []struct {
		name      string
		gpu, fake []float32
	}{{"shfl_outside_mask", gpuOutside, fakeOutside}, {"shfl_missing_lanes", gpuMissing, fakeMissing}} {
		for i := range c.gpu {
			if math.Float32bits(c.gpu[i]) != math.Float32bits(c.fake[i]) {
				t.Errorf("%s: the GPU gives thread %d %v, the fake %v (GPU: %v; fake: %v)", c.name, i, c.gpu[i], c.fake[i], c.gpu, c.fake)
				break
			}
		}
	}
}
