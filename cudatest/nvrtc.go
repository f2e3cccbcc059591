package cudatest

import (
	"os"
	"testing"

	"github.com/nocgo/cuda/conformance"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/gpu"
)

// NVRTC returns NVIDIA's run-time compiler for a test, opened alone by
// gpu.LoadNVRTC (no libcuda, no GPU), to give to the fake
// (fake.NVRTC(cudatest.NVRTC(t))). Without libnvrtc the test is skipped, or
// failed when NOCGO_CUDA_REQUIRE_NVRTC=1 (conformance.RequireNVRTCEnv).
func NVRTC(t testing.TB) *driver.NVRTC {
	t.Helper()
	nv, err := gpu.LoadNVRTC()
	if err != nil {
		if os.Getenv(conformance.RequireNVRTCEnv) == "1" {
			t.Fatalf("cudatest: %s=1 but libnvrtc does not load: %v", conformance.RequireNVRTCEnv, err)
		}
		t.Skipf("no libnvrtc: %v", err)
	}
	return nv
}
