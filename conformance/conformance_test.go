package conformance_test

import (
	"testing"

	"github.com/nocgo/cuda/conformance"
	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/cudatest/fakekernels"
	"github.com/nocgo/cuda/fake"
)

// TestFake runs the suite on a fake of two devices, with the Go bodies of
// the suite's kernels (and NVIDIA's NVRTC for the CUDA C group, where
// libnvrtc is installed).
func TestFake(t *testing.T) {
	opts := append([]fake.Option{fake.Devices(2)}, fakekernels.Options()...)
	runFake(t, opts...)
}

// runFake runs the suite on a fake made with opts and the race detector
// on: a hazard the suite's own work shows, and did not take as provoked on
// purpose (backend.RaceDetector), fails the test at its end.
func runFake(t *testing.T, opts ...fake.Option) {
	races := cudatest.Races(t)
	b := fake.NewBackend(append(opts, fake.DetectRaces(nil))...)
	conformance.Run(t, b)
	races.Check(b.Fake())
}

// TestReal runs the suite on the real driver: skipped without one, failed
// with NOCGO_CUDA_REQUIRE_GPU=1.
func TestReal(t *testing.T) {
	conformance.Run(t, cudatest.RealBackend(t))
}

// TestFakeInterpreted runs the suite on a fake with NVIDIA's NVRTC and no Go
// bodies: every kernel, the suite's and the CUDA C group's, is compiled to
// real PTX and runs in the fake's PTX interpreter, down to the sticky fault
// of write_at's out-of-bounds store. It needs libnvrtc (skipped without it,
// failed with NOCGO_CUDA_REQUIRE_NVRTC=1).
func TestFakeInterpreted(t *testing.T) {
	nv := cudatest.NVRTC(t)
	runFake(t, fake.Devices(2), fake.NVRTC(nv))
}

// TestFakePretendNVRTC runs the suite as on a machine without libnvrtc: the
// pretend compiler and the Go bodies. The CUDA C group skips, even where
// NOCGO_CUDA_REQUIRE_NVRTC=1 asks the other tests to have libnvrtc: this one
// chose to do without.
func TestFakePretendNVRTC(t *testing.T) {
	t.Setenv(conformance.RequireNVRTCEnv, "")
	opts := append([]fake.Option{fake.Devices(2), fake.PretendNVRTC()}, fakekernels.Options()...)
	runFake(t, opts...)
}

// TestNCCLFake runs NCCL's contract (conformance.RunNCCL) on a fake of two
// devices. On a GPU it runs from package nccl's tests, in a process of its
// own (see RunNCCL).
func TestNCCLFake(t *testing.T) {
	conformance.RunNCCL(t, conformance.Open(t, fake.NewBackend(fake.Devices(2))))
}
