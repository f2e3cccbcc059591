package cudatest

import (
	"os"
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/gpu"
)

// Driver returns the real driver when it loads, and otherwise a fake one
// made by Fake(t, opts...) (the options apply to the fake only). It logs
// which one the test got; IsFake tells the test. With
// NOCGO_CUDA_REQUIRE_GPU=1 a driver that does not load fails the test.
func Driver(t testing.TB, opts ...fake.Option) *driver.Driver {
	t.Helper()
	drv, err := gpu.Load()
	if err == nil {
		t.Log("cudatest: on the real driver")
		return drv
	}
	if os.Getenv(RequireGPUEnv) == "1" {
		t.Fatalf("cudatest: %s=1 but the real driver does not load: %v", RequireGPUEnv, err)
	}
	t.Logf("cudatest: on the fake driver (%v)", err)
	return Fake(t, opts...)
}
