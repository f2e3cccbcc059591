package cudatest

import (
	"os"
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/gpu"
)

// RealBackend opens the real driver's backend (libcuda, through
// [gpu.Backend]) for a test, for
// tests that make raw calls or build their own Driver on it (driver.New).
// When it does not load, the test is skipped, or failed when
// NOCGO_CUDA_REQUIRE_GPU=1.
func RealBackend(t testing.TB) backend.API {
	t.Helper()
	api, err := gpu.Backend()
	if err != nil {
		if os.Getenv(RequireGPUEnv) == "1" {
			t.Fatalf("cudatest: %s=1 but the real driver does not load: %v", RequireGPUEnv, err)
		}
		t.Skipf("no CUDA driver: %v", err)
	}
	return api
}

// Real returns a Driver over the real driver's backend for a test, as
// RealBackend opens it (skipped without a driver, failed with
// NOCGO_CUDA_REQUIRE_GPU=1). It fails the test when cuInit fails.
func Real(t testing.TB) *driver.Driver {
	t.Helper()
	drv, err := driver.New(RealBackend(t))
	if err != nil {
		t.Fatalf("cudatest: driver.New on the real driver: %v", err)
	}
	return drv
}
