package drivertest_test

import (
	"testing"

	"github.com/nocgo/cuda/driver/drivertest"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/internal/suitekernels"
)

func TestFake(t *testing.T) {
	opts := append([]fake.Option{fake.Devices(2)}, suitekernels.Options()...)
	drivertest.Run(t, fake.NewBackend(opts...))
}

func TestReal(t *testing.T) {
	drivertest.Run(t, drivertest.RealBackend(t))
}

// TestFakeInterpreted runs the suite on a fake with NVIDIA's NVRTC and no Go
// bodies: every kernel, the suite's and the CUDA C group's, is compiled to
// real PTX and runs in the fake's PTX interpreter, down to the sticky fault
// of write_at's out-of-bounds store. It needs libnvrtc (skipped without it,
// failed with NOCGO_CUDA_REQUIRE_NVRTC=1).
func TestFakeInterpreted(t *testing.T) {
	nv := drivertest.OpenNVIDIACompiler(t)
	drivertest.Run(t, fake.NewBackend(fake.Devices(2), fake.NVRTC(nv)))
}

// TestFakePretendNVRTC runs the suite as on a machine without libnvrtc: the
// pretend compiler and the Go bodies. The CUDA C group skips, even where
// NOCGO_CUDA_REQUIRE_NVRTC=1 asks the other tests to have libnvrtc: this one
// chose to do without.
func TestFakePretendNVRTC(t *testing.T) {
	t.Setenv(drivertest.RequireNVRTCEnv, "")
	opts := append([]fake.Option{fake.Devices(2), fake.PretendNVRTC()}, suitekernels.Options()...)
	drivertest.Run(t, fake.NewBackend(opts...))
}
