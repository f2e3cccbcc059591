package conformance

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nocgo/cuda/conformance/samples"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// The samples group: public CUDA code's algorithms (NVIDIA's cuda-samples,
// karpathy/llm.c), in the versions of package
// [github.com/nocgo/cuda/conformance/samples], compiled with module.Compile
// and run on whatever backend the suite gets (on the fake, in its PTX
// interpreter), their results compared with the Go references there: bit
// for bit where the arithmetic is exact (integers, float sums in a fixed
// order, conversions, llm.c's kernels compiled with --fmad=false), within
// a stated ulp bound where CUDA's expf and tanhf are involved. The group
// needs NVIDIA's NVRTC; the cases that include CUDA's headers (cuda_fp16.h,
// cuda_bf16.h, cooperative_groups.h) also need those headers (see
// CUDAIncludeEnv) and skip without them.

// CUDAIncludeEnv names the environment variable that points at a folder of
// CUDA's headers (cuda_fp16.h, cuda_bf16.h, cooperative_groups.h), for the
// samples that include them; it is searched before $CUDA_HOME/include,
// /usr/local/cuda/include and /usr/include.
const CUDAIncludeEnv = "NOCGO_CUDA_INCLUDE"

// CUDAIncludePaths returns the include paths for CUDA's headers: the first
// of $NOCGO_CUDA_INCLUDE, $CUDA_HOME/include, /usr/local/cuda/include and
// /usr/include that holds cuda_fp16.h, cuda_bf16.h and cooperative_groups.h
// (with its cccl folder, where CUDA 13 keeps libcu++, when there is one),
// or nil and the folders looked in.
func CUDAIncludePaths() (paths []string, tried []string) {
	var dirs []string
	if d := os.Getenv(CUDAIncludeEnv); d != "" {
		dirs = append(dirs, d)
	}
	if h := os.Getenv("CUDA_HOME"); h != "" {
		dirs = append(dirs, filepath.Join(h, "include"))
	}
	dirs = append(dirs, "/usr/local/cuda/include", "/usr/include")
	for _, d := range dirs {
		ok := true
		for _, h := range []string{"cuda_fp16.h", "cuda_bf16.h", "cooperative_groups.h"} {
			if _, err := os.Stat(filepath.Join(d, h)); err != nil {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		paths = []string{d}
		if st, err := os.Stat(filepath.Join(d, "cccl")); err == nil && st.IsDir() {
			paths = append(paths, filepath.Join(d, "cccl"))
		}
		return paths, dirs
	}
	return nil, dirs
}

// cudaHeaders returns CUDAIncludePaths or skips the test, saying where it
// looked.
func cudaHeaders(t *testing.T) []string {
	t.Helper()
	paths, tried := CUDAIncludePaths()
	if paths == nil {
		t.Skipf("CUDA's headers (cuda_fp16.h, cuda_bf16.h, cooperative_groups.h) are in none of %s (set %s)", strings.Join(tried, ", "), CUDAIncludeEnv)
	}
	return paths
}

// sampleRig is what the group's cases share.
type sampleRig struct {
	ctx *driver.Context
	s   *stream.Stream
	src *module.Module // samples.Source
}

// compile compiles src for the case (failing it on an error) and closes the
// module when the case ends.
func (r sampleRig) compile(t *testing.T, name, src string, opts module.Options) *module.Module {
	t.Helper()
	opts.Name, opts.NoCache = name, true
	m, err := module.Compile(r.ctx, src, opts)
	must(t, err)
	t.Cleanup(func() { m.Close() })
	return m
}

// fn returns the module's function, failing the case without it.
func fn(t *testing.T, m *module.Module, name string) *module.Function {
	t.Helper()
	f, err := m.Function(name)
	must(t, err)
	return f
}

// testSamples is the samples group.
func testSamples(t *testing.T, drv *driver.Driver) {
	NVIDIACompiler(t, drv)
	dev, err := drv.Device(0)
	must(t, err)
	ctx, err := dev.PrimaryContext()
	must(t, err)
	t.Cleanup(func() { ctx.Close() })
	s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	must(t, err)
	t.Cleanup(func() { s.Close() })
	r := sampleRig{ctx: ctx, s: s}
	r.src = r.compile(t, "samples.cu", samples.Source, module.Options{
		NameExpressions: []string{samples.ReduceUnrolled, samples.ReduceMulti},
	})
	t.Run("reduction", func(t *testing.T) { testSampleReductions(t, r) })
	t.Run("scan", func(t *testing.T) { testSampleScans(t, r) })
	t.Run("histogram256", func(t *testing.T) { testSampleHistogram(t, r) })
	t.Run("transpose", func(t *testing.T) { testSampleTranspose(t, r) })
	t.Run("warp-aggregated-atomics", func(t *testing.T) { testSampleFilter(t, r) })
	t.Run("llm", func(t *testing.T) { testSampleLLM(t, r) })
	t.Run("fp16-scalar-product", func(t *testing.T) { testSampleHalfDot(t, r) })
	t.Run("llm-bf16", func(t *testing.T) { testSampleLLMBF16(t, r) })
	t.Run("cooperative-groups", func(t *testing.T) { testSampleCG(t, r) })
	t.Run("cooperative-groups-partitions", func(t *testing.T) { testSampleCGPartition(t, r) })
	t.Run("warp-barrier", func(t *testing.T) { testSampleWarpBarrier(t, r) })
	t.Run("shuffle-outside", func(t *testing.T) { testSampleShuffleOutside(t, r) })
	t.Run("reduction-multi-block-cg", func(t *testing.T) { testSampleCGGrid(t, r) })
}

// sameInts reports the first element where got and want differ.
func sameInts[T comparable](t *testing.T, what string, got, want []T) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d elements, want %d", what, len(got), len(want))
		return
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s[%d] = %v, want %v", what, i, got[i], want[i])
			return
		}
	}
}

// sortedPrefix returns got[:n] sorted, failing when n is out of range.
func sortedPrefix(t *testing.T, got []int32, n int32) []int32 {
	t.Helper()
	if n < 0 || int(n) > len(got) {
		t.Fatalf("count %d out of range 0..%d", n, len(got))
	}
	out := slices.Clone(got[:n])
	slices.Sort(out)
	return out
}
