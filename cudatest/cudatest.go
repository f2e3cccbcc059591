// Package cudatest holds the helpers for tests of code that uses CUDA: one
// test on the real GPU where there is one and on the fake driver everywhere
// else, the fake with its leak check, and the real driver alone.
//
//	func TestScale(t *testing.T) {
//		s := cudatest.Stream(t) // a stream, its context, their cleanups
//		in, err := memory.FromSliceOn(s, []float32{1, 2, 3})
//		...
//	}
//
// [Stream] and [Context] are the set-up of most tests in one call (device
// 0's primary context, a non-blocking stream), closed when the test ends;
// [Kernel], [FromSlice], [Alloc] and [ToSlice] are module.Compile and
// Module.Function, memory.FromSliceOn, memory.Alloc and memory.ToSliceOn
// for a test: what they make is closed when the test ends, and a failure
// fails the test at once.
//
//	s := cudatest.Stream(t)
//	f := cudatest.Kernel(t, s, scaleSource, "scale")
//	in := cudatest.FromSlice(t, s, []float32{1, 2, 3})
//	require.NoError(t, f.Launch(s, module.ForElems(3), in, in, float32(2), int32(3)))
//	assert.Equal(t, []float32{2, 4, 6}, cudatest.ToSlice(t, s, in))
//
// [Driver] loads the real driver (gpu.Load). When it does not load, the
// test runs on [Fake], which fails the test if it leaves anything open, or
// if the fake's race detector finds work on two streams touching the same
// device bytes with nothing ordering them (see [Races]);
// with NOCGO_CUDA_REQUIRE_GPU=1 ([RequireGPUEnv]) the test fails instead, so
// that a GPU run cannot quietly fall back to the fake. [Real] and
// [RealBackend] give the real driver only, skipping the test without one.
// Kernels that must compute on the fake need a Go body (fake.Kernel) or an
// installed libnvrtc (see package fake).
//
// The package imports package fake; import it from _test.go files only, so
// that the fake stays out of production binaries. A package's tests that
// import cudatest are an external test package (package x_test), since
// cudatest imports the public packages itself.
package cudatest

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
)

// RequireGPUEnv names the environment variable that, set to 1, makes
// Driver, Real and RealBackend fail a test when the real driver does not
// load, instead of running it on the fake (Driver) or skipping it (Real,
// RealBackend).
const RequireGPUEnv = "NOCGO_CUDA_REQUIRE_GPU"

// IsFake reports whether drv is a fake driver (made by fake.New or Fake),
// for the few checks that hold on one backend only.
func IsFake(drv *driver.Driver) bool { return fake.Of(drv) != nil }
