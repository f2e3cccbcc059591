// Package drivertest is the conformance suite: behaviours every backend of
// driver.API must show, checked the same way on the fake (in every test run)
// and on the real driver (whenever it loads). When the fake and a GPU
// disagree, the fake is fixed and a case is added here.
package drivertest

import (
	"os"
	"testing"

	"github.com/nocgo/cuda/driver"
)

// RequireGPUEnv names the environment variable that, set to 1, makes Real fail
// a test instead of skipping it when the real driver does not load.
const RequireGPUEnv = "NOCGO_CUDA_REQUIRE_GPU"

// Real loads the real driver for a test. When it does not load, the test is
// skipped, or failed when NOCGO_CUDA_REQUIRE_GPU=1.
func Real(t testing.TB) *driver.Driver {
	t.Helper()
	drv, err := driver.Load()
	if err != nil {
		if os.Getenv(RequireGPUEnv) == "1" {
			t.Fatalf("%s=1 but the real driver does not load: %v", RequireGPUEnv, err)
		}
		t.Skipf("no CUDA driver: %v", err)
	}
	return drv
}

// Run runs the whole suite against drv. The driver needs at least one device;
// cases that need two run only where there are two.
func Run(t *testing.T, drv *driver.Driver) {
	t.Run("errors", func(t *testing.T) { testErrors(t, drv) })
	t.Run("devices", func(t *testing.T) { testDevices(t, drv) })
	t.Run("contexts", func(t *testing.T) { testContexts(t, drv) })
	t.Run("streams", func(t *testing.T) { testStreams(t, drv) })
	t.Run("events", func(t *testing.T) { testEvents(t, drv) })
	t.Run("memory", func(t *testing.T) { testMemory(t, drv) })
	t.Run("modules", func(t *testing.T) { testModules(t, drv) })
}
