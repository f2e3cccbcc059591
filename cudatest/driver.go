package cudatest

import (
	"os"
	"sync/atomic"
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/gpu"
)

// Driver returns the real driver when it loads, and otherwise a fake one
// made by Fake(t, opts...) (the options apply to the fake only). It logs
// which one the test got, in one short line (why the real driver did not
// load, every path tried, is logged once per test binary, by the first
// test that falls back); IsFake tells the test. With
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
	if whyFake.CompareAndSwap(false, true) {
		t.Logf("cudatest: on the fake driver (%v)", err)
	} else {
		t.Log("cudatest: on the fake driver (no NVIDIA driver loads)")
	}
	return Fake(t, opts...)
}

// whyFake is set once the reason for the fake was logged.
var whyFake atomic.Bool
