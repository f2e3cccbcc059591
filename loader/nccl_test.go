package loader_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/loader"
)

func TestNCCLCandidates(t *testing.T) {
	t.Setenv("NOCGO_CUDA_LIBNCCL", "")
	c := loader.Candidates(loader.NCCL)
	assert.Equal(t, []string{"libnccl.so.2", "libnccl.so"}, c[:2], "the system loader first")
	assert.Contains(t, c, "/usr/local/cuda/lib64/libnccl.so.2")
	assert.Equal(t, "libnccl", loader.NCCL.String())
	t.Setenv("NOCGO_CUDA_LIBNCCL", "/opt/nccl/libnccl.so.2")
	assert.Equal(t, []string{"/opt/nccl/libnccl.so.2"}, loader.Candidates(loader.NCCL), "the variable is the only candidate")
}

func TestNCCLCandidatesWheel(t *testing.T) {
	venv := t.TempDir()
	lib := filepath.Join(venv, "lib/python3.12/site-packages/nvidia/nccl/lib")
	require.NoError(t, os.MkdirAll(lib, 0o755))
	t.Setenv("NOCGO_CUDA_LIBNCCL", "")
	t.Setenv("VIRTUAL_ENV", venv)
	assert.Contains(t, loader.Candidates(loader.NCCL), filepath.Join(lib, "libnccl.so.2"), "the nvidia-nccl wheel")
}
