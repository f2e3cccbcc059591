package conformance

import (
	"os"
	"strings"
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// RequireNVRTCEnv names the environment variable that, set to 1, makes the
// cases that need NVIDIA's compiler fail instead of skipping when the
// backend has none (a fake with no libnvrtc installed uses its pretend
// compiler, which cannot compile CUDA C).
const RequireNVRTCEnv = "NOCGO_CUDA_REQUIRE_NVRTC"

// NVIDIACompiler returns the compiler of drv's backend (drv is a Driver the
// suite opened: Run's or Open's) when it is NVIDIA's NVRTC (its
// Implementation starts with "libnvrtc": the real backend's, or libnvrtc
// used by the fake). Otherwise the test is skipped, or failed when
// NOCGO_CUDA_REQUIRE_NVRTC=1.
func NVIDIACompiler(t testing.TB, drv *driver.Driver) backend.NVRTC {
	t.Helper()
	var nv backend.NVRTC
	var err error
	if p, ok := raw(t, drv).(backend.NVRTCProvider); ok {
		nv, err = p.NVRTC()
	}
	if err == nil && nv != nil && strings.HasPrefix(nv.Implementation(), "libnvrtc") {
		return nv
	}
	why := "the backend has no run-time compiler"
	switch {
	case err != nil:
		why = "the backend's run-time compiler does not open: " + err.Error()
	case nv != nil:
		why = "the backend's compiler is " + nv.Implementation() + ", not NVIDIA's NVRTC (install libnvrtc: see package fake)"
	}
	if os.Getenv(RequireNVRTCEnv) == "1" {
		t.Fatalf("%s=1 but %s", RequireNVRTCEnv, why)
	}
	t.Skip("CUDA C kernels need NVIDIA's NVRTC: " + why)
	return nil
}
