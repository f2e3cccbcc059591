package module_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// nvcc finds the CUDA compiler, where a toolkit is installed.
func nvcc() (string, bool) {
	if p, err := exec.LookPath("nvcc"); err == nil {
		return p, true
	}
	for _, dir := range []string{os.Getenv("CUDA_HOME"), "/usr/local/cuda"} {
		if dir == "" {
			continue
		}
		if p := filepath.Join(dir, "bin", "nvcc"); fileExists(p) {
			return p, true
		}
	}
	return "", false
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// A fatbin made by nvcc (several architectures and PTX) passes the
// library's bounds check and loads and runs on the real driver.
func TestLoadNvccFatbinGPU(t *testing.T) {
	drv := cudatest.Real(t)
	cc, ok := nvcc()
	if !ok {
		t.Skip("no nvcc: no CUDA toolkit here")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "k.cu")
	require.NoError(t, os.WriteFile(src, []byte(`extern "C" __global__ void add1(float* p, int n) { int i = blockIdx.x*blockDim.x+threadIdx.x; if (i<n) p[i] += 1.0f; }`), 0o644))
	out := filepath.Join(dir, "k.fatbin")
	cmd := exec.Command(cc, "-fatbin", "-gencode=arch=compute_80,code=sm_80", "-gencode=arch=compute_90,code=[sm_90,compute_90]", "-o", out, src)
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", b)
	image, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, module.Fatbin, module.DetectKind(image))

	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer ctx.Close()
	m, err := module.Load(ctx, image)
	require.NoError(t, err, "an nvcc fatbin of %d bytes", len(image))
	defer m.Close()
	f, err := m.Function("add1")
	require.NoError(t, err)
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	defer s.Close()
	const n = 1000
	p, err := memory.Alloc[float32](ctx, n)
	require.NoError(t, err)
	defer p.Close()
	require.NoError(t, memory.Fill(s, p, 41))
	require.NoError(t, f.Launch(s, module.Config{Grid: module.Cover(n, 256), Block: module.Dim(256)}, p, int32(n)))
	got := make([]float32, n)
	require.NoError(t, memory.CopyToHostAsync(s, got, p))
	require.NoError(t, s.Synchronize())
	for i, v := range got {
		if !assert.Equal(t, float32(42), v, "element %d", i) {
			break
		}
	}
}
