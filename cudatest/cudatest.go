// Package cudatest runs one test on the real GPU where there is one and on
// the fake driver everywhere else, so a test written once covers CI
// machines without a GPU and GPU machines alike.
//
//	func TestScale(t *testing.T) {
//		drv := cudatest.Driver(t)
//		dev, _ := drv.Device(0)
//		...
//	}
//
// Driver loads the real driver (driver.Load). When it does not load, the
// test runs on fake.NewT, which fails the test if it leaves anything open;
// with NOCGO_CUDA_REQUIRE_GPU=1 the test fails instead, so that a GPU run
// cannot quietly fall back to the fake. Kernels that must compute on the
// fake need a Go body (fake.Kernel) or an installed libnvrtc (see package
// fake).
//
// The package imports package fake; import it from _test.go files only, so
// that the fake stays out of production binaries.
package cudatest

import (
	"os"
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
)

// RequireGPUEnv names the environment variable that, set to 1, makes Driver
// fail a test when the real driver does not load, instead of running it on
// the fake.
const RequireGPUEnv = "NOCGO_CUDA_REQUIRE_GPU"

// Driver returns the real driver when it loads, and otherwise a fake one
// made by fake.NewT(t, opts...) (the options apply to the fake only). It
// logs which one the test got; IsFake tells the test.
func Driver(t testing.TB, opts ...fake.Option) *driver.Driver {
	t.Helper()
	drv, err := driver.Load()
	if err == nil {
		t.Log("cudatest: on the real driver")
		return drv
	}
	if os.Getenv(RequireGPUEnv) == "1" {
		t.Fatalf("cudatest: %s=1 but the real driver does not load: %v", RequireGPUEnv, err)
	}
	t.Logf("cudatest: on the fake driver (%v)", err)
	return fake.NewT(t, opts...)
}

// IsFake reports whether drv is a fake driver (made by fake.New or
// fake.NewT), for the few checks that hold on one backend only.
func IsFake(drv *driver.Driver) bool { return fake.Of(drv) != nil }
