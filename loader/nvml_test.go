package loader_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nocgo/cuda/loader"
)

// TestNVMLCandidates: libnvidia-ml is found as libcuda is (it is part of
// the driver).
func TestNVMLCandidates(t *testing.T) {
	t.Setenv("NOCGO_CUDA_LIBNVML", "")
	assert.Equal(t, "libnvidia-ml", loader.NVML.String())
	assert.Equal(t, "NOCGO_CUDA_LIBNVML", loader.NVML.EnvVar())
	c := loader.Candidates(loader.NVML)
	assert.Equal(t, []string{"libnvidia-ml.so.1", "libnvidia-ml.so"}, c[:2], "the system loader first")
	assert.Contains(t, c, "/usr/lib/wsl/lib/libnvidia-ml.so.1")
	t.Setenv("NOCGO_CUDA_LIBNVML", "/opt/x/libnvidia-ml.so.1")
	assert.Equal(t, []string{"/opt/x/libnvidia-ml.so.1"}, loader.Candidates(loader.NVML))
	_, err := loader.Open(loader.NVML)
	assert.ErrorContains(t, err, "/opt/x/libnvidia-ml.so.1")
}
