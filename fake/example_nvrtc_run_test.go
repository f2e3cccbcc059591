package fake_test

import (
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/gpu"
)

// TestExampleCUDAC runs Example_cudaC where libnvrtc is installed (else it
// skips, or fails with NOCGO_CUDA_REQUIRE_NVRTC=1) and checks its output.
func TestExampleCUDAC(t *testing.T) {
	if _, err := gpu.LoadNVRTC(); err != nil {
		if os.Getenv("NOCGO_CUDA_REQUIRE_NVRTC") == "1" {
			t.Fatalf("NOCGO_CUDA_REQUIRE_NVRTC=1 but libnvrtc does not load: %v", err)
		}
		t.Skipf("no libnvrtc: %v", err)
	}
	t.Setenv("NOCGO_CUDA_CACHE", "off")
	r, w, err := os.Pipe()
	require.NoError(t, err)
	stdout := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		done <- b
	}()
	func() {
		defer func() { os.Stdout = stdout }()
		Example_cudaC()
	}()
	w.Close()
	out := <-done
	// 0² + 1² + ... + 999² = 999·1000·1999/6
	assert.Equal(t, "compiler: libnvrtc on the fake\nsum of squares of 0..999: 332833500\n", string(out))
}
