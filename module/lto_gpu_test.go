package module_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
)

// ltoTwice defines a device function that ltoCaller calls across
// translation units: only a link resolves it, and link-time optimisation
// inlines it.
const (
	ltoTwice  = `__device__ float twice(float x) { return 2.0f * x; }` + "\n"
	ltoCaller = `extern __device__ float twice(float x);
extern "C" __global__ void twice_all(float* p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = twice(p[i]);
}
`
)

// On the GPU: two sources compiled to LTO-IR with NVRTC, linked with
// nvJitLink (link-time optimisation), loaded and run.
func TestLinkLTOGPU(t *testing.T) {
	api := cudatest.RealBackend(t)
	if _, err := api.(backend.JITLinkProvider).JITLinker(); err != nil {
		if os.Getenv(cudatest.RequireGPUEnv) == "1" {
			t.Fatalf("%s=1 but libnvJitLink does not open: %v", cudatest.RequireGPUEnv, err)
		}
		t.Skipf("no libnvJitLink: %v", err)
	}
	drv, err := driver.New(api)
	require.NoError(t, err)
	ctx, s := setup(t, drv)
	a, err := module.CompileLTOIR(ctx, ltoTwice, module.Options{Name: "twice.cu"})
	require.NoError(t, err)
	b, err := module.CompileLTOIR(ctx, ltoCaller, module.Options{Name: "caller.cu"})
	require.NoError(t, err)
	m, err := module.Link(ctx,
		module.LinkInput{Name: "twice.ltoir", Kind: module.LTOIR, Data: a},
		module.LinkInput{Name: "caller.ltoir", Kind: module.LTOIR, Data: b})
	require.NoError(t, err)
	defer m.Close()
	require.Equal(t, module.CUBIN, m.Kind())
	f, err := m.Function("twice_all")
	require.NoError(t, err)
	const n = 1000
	host := make([]float32, n)
	for i := range host {
		host[i] = float32(i)
	}
	p := alloc(t, ctx, n)
	require.NoError(t, memory.CopyToDevice(p, host))
	require.NoError(t, f.Launch(s, module.Config{Grid: module.Cover(n, 128), Block: module.Dim(128)}, p, int32(n)))
	require.NoError(t, s.Synchronize())
	got := make([]float32, n)
	require.NoError(t, memory.CopyToHost(got, p))
	for i := range got {
		if got[i] != 2*float32(i) {
			t.Fatalf("p[%d] = %v, want %v", i, got[i], 2*i)
		}
	}

	_, err = module.Link(ctx, module.LinkInput{Name: "caller.ltoir", Kind: module.LTOIR, Data: b})
	var le *module.LoadError
	require.ErrorAs(t, err, &le, "twice is undefined without its unit")
	require.Equal(t, "nvJitLink", le.Call)
}
