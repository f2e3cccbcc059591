package conformance

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/module"
)

// toolkitTileSums sums each warp's inputs with a cooperative-groups tile:
// a source that includes the toolkit's <cooperative_groups.h>, which on
// CUDA 13 needs include/cccl (libcu++) beside include.
const toolkitTileSums = `#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void tile_sums(const int *in, int *out, int n) {
	cg::thread_block block = cg::this_thread_block();
	cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int v = i < n ? in[i] : 0;
	for (int d = tile.size() / 2; d > 0; d /= 2) {
		v += tile.shfl_down(v, d);
	}
	if (tile.thread_rank() == 0) {
		out[i / 32] = v;
	}
}
`

// testModuleToolkitHeaders: a source that includes CUDA's own headers
// compiles with no IncludePaths, the toolkit's directories found by
// module.ToolkitIncludePaths, and computes right; with NoToolkitIncludes
// the same source does not compile where NVRTC has no built-in copy of
// the header. Skips without NVIDIA's NVRTC or without a toolkit's headers.
func testModuleToolkitHeaders(t *testing.T, drv *driver.Driver) {
	NVIDIACompiler(t, drv)
	dirs := module.ToolkitIncludePaths()
	found := false
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "cooperative_groups.h")); err == nil {
			found = true
		}
	}
	if !found {
		t.Skipf("no toolkit headers with cooperative_groups.h among %v (set CUDA_HOME or %s)", dirs, module.ToolkitIncludeEnv)
	}
	ctx, s := modSetup(t, drv)
	m, err := module.Compile(ctx, toolkitTileSums, module.Options{Name: "tile_sums.cu", Std: "c++17", CacheDir: t.TempDir()})
	must(t, err)
	t.Cleanup(func() { m.Close() })
	isFalse(t, m.Cached())

	const n, block = 1000, 128
	in := make([]int32, n)
	for i := range in {
		in[i] = int32(i%7 - 3)
	}
	grid := (n + block - 1) / block
	dout := deviceCopy(t, ctx, make([]int32, grid*block/32))
	f, err := m.Function("tile_sums")
	must(t, err)
	must(t, f.Launch(s, module.Config{Grid: module.Dim(grid), Block: module.Dim(block)}, deviceCopy(t, ctx, in), dout, int32(n)))
	got := hostCopy(t, s, dout)
	want := make([]int32, len(got))
	for i, v := range in {
		want[i/32] += v
	}
	sameInts(t, "tile sums", got, want)

	_, err = module.Compile(ctx, toolkitTileSums, module.Options{Name: "tile_sums.cu", Std: "c++17", NoCache: true, NoToolkitIncludes: true})
	if err != nil {
		var ce *module.CompileError
		isTrue(t, errors.As(err, &ce), "a compile error: %v", err)
		isTrue(t, strings.Contains(ce.Log, "open source file"), "the log names the missing header: %s", ce.Log)
	}
}
