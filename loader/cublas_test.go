package loader_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/loader"
)

func TestCUBLASCandidates(t *testing.T) {
	for _, k := range []loader.Kind{loader.CUBLAS, loader.CUBLASLt} {
		t.Setenv(k.EnvVar(), "")
		c := loader.Candidates(k)
		base := k.String()
		assert.Equal(t, []string{base + ".so.13", base + ".so.12", base + ".so.11", base + ".so"}, c[:4], "the system loader first, newest first")
		assert.Contains(t, c, "/usr/local/cuda/lib64/"+base+".so.13")
		t.Setenv(k.EnvVar(), "/opt/cuda/"+base+".so.12")
		assert.Equal(t, []string{"/opt/cuda/" + base + ".so.12"}, loader.Candidates(k), "the variable is the only candidate")
	}
	assert.Equal(t, "NOCGO_CUDA_LIBCUBLAS", loader.CUBLAS.EnvVar())
	assert.Equal(t, "NOCGO_CUDA_LIBCUBLASLT", loader.CUBLASLt.EnvVar())
	assert.Equal(t, "libcublasLt", loader.CUBLASLt.String())
}

func TestCUBLASCandidatesWheels(t *testing.T) {
	venv := t.TempDir()
	cu13 := filepath.Join(venv, "lib/python3.12/site-packages/nvidia/cu13/lib")
	cu12 := filepath.Join(venv, "lib/python3.12/site-packages/nvidia/cublas/lib")
	require.NoError(t, os.MkdirAll(cu13, 0o755))
	require.NoError(t, os.MkdirAll(cu12, 0o755))
	t.Setenv("NOCGO_CUDA_LIBCUBLAS", "")
	t.Setenv("VIRTUAL_ENV", venv)
	c := loader.Candidates(loader.CUBLAS)
	assert.Contains(t, c, filepath.Join(cu13, "libcublas.so.13"), "the CUDA 13 wheel")
	assert.Contains(t, c, filepath.Join(cu12, "libcublas.so.12"), "nvidia-cublas-cu12, PyTorch's")
}

// A machine with no cuBLAS gets an error naming every path tried.
func TestCUBLASMissing(t *testing.T) {
	t.Setenv("NOCGO_CUDA_LIBCUBLAS", filepath.Join(t.TempDir(), "libcublas.so.13"))
	_, err := loader.Open(loader.CUBLAS)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "libcublas.so.13")
}
