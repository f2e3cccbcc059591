package fake_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

const bodySource = `extern "C" __global__ void scale(float* out, const float* in, float k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = k * in[i];
}
`

// bodyRun compiles bodySource on a fake with body for scale and launches
// it over 4 elements, returning the fake, the compile's error and the
// stream's.
func bodyRun(t *testing.T, body any) (*fake.Fake, error, error) {
	t.Helper()
	drv := fake.New(fake.Kernel("scale", body))
	dev, err := drv.Device(0)
	require.NoError(t, err)
	cc, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer cc.Close()
	m, err := module.Compile(cc, bodySource, module.Options{NoCache: true})
	if err != nil {
		return fake.Of(drv), err, nil
	}
	defer m.Close()
	s, err := stream.New(cc, stream.Options{})
	require.NoError(t, err)
	defer s.Close()
	in, err := memory.Alloc[float32](cc, 4)
	require.NoError(t, err)
	defer in.Close()
	f, err := m.Function("scale")
	require.NoError(t, err)
	require.NoError(t, f.Launch(s, module.ForElems(4), in, in, float32(2), int32(4)))
	return fake.Of(drv), nil, s.Synchronize()
}

// A Go body whose parameters are not the kernel's says so, in the compile's
// error and in LoadError.
func TestBodyMismatchSaysSo(t *testing.T) {
	if c, _ := fake.Of(fake.New()).Compiler(); c == "nocgo/cuda fake" {
		t.Skip("the fake's pretend compiler makes the PTX from the Go body: no mismatch to report without NVIDIA's NVRTC")
	}
	f, err, _ := bodyRun(t, func(t fake.Thread, out, in fake.Ptr, k float64, n int32) {})
	require.ErrorIs(t, err, driver.ErrInvalidImage)
	const says = "the Go body of kernel scale, func(fake.Thread, fake.Ptr, fake.Ptr, float64, int32), does not match the kernel's PTX: parameter 2 is a float64 of 8 bytes, the PTX entry's is 4 bytes"
	assert.Contains(t, err.Error(), says)
	require.Error(t, f.LoadError())
	assert.ErrorIs(t, f.LoadError(), driver.ErrInvalidImage)
	assert.Contains(t, f.LoadError().Error(), says)

	f, err, _ = bodyRun(t, func(t fake.Thread, out, in fake.Ptr, k float32) {})
	require.ErrorIs(t, err, driver.ErrInvalidImage)
	assert.Contains(t, f.LoadError().Error(), "it takes 3 parameters after the fake.Thread, the PTX entry 4")
}

// An access out of bounds in a Go body fails the stream with the access,
// the thread and the body's line, and KernelFault has it; so has a panic.
func TestBodyFaultHasALocation(t *testing.T) {
	f, err, serr := bodyRun(t, func(t fake.Thread, out, in fake.Ptr, k float32, n int32) {
		fake.Store(t, out, t.X()+1000, k) // the faulting line
	})
	require.NoError(t, err)
	require.ErrorIs(t, serr, driver.ErrIllegalAddress)
	assert.ErrorIs(t, serr, driver.ErrStickyFault)
	for _, e := range []error{serr, f.KernelFault()} {
		require.Error(t, e)
		assert.Contains(t, e.Error(), "the Go body of kernel scale: Store of element 1000 of 0x")
		assert.Contains(t, e.Error(), "outside every allocation, in block (0, 0, 0) thread (0, 0, 0) at ")
		assert.Contains(t, e.Error(), "body_fault_test.go:")
	}
	assert.True(t, errors.Is(f.KernelFault(), driver.ErrIllegalAddress))

	f, err, serr = bodyRun(t, func(t fake.Thread, out, in fake.Ptr, k float32, n int32) {
		if t.X() == 2 {
			panic("boom")
		}
	})
	require.NoError(t, err)
	require.ErrorIs(t, serr, driver.ErrLaunchFailed)
	require.Error(t, f.KernelFault())
	assert.Contains(t, f.KernelFault().Error(), "the Go body of kernel scale: panic: boom, in block (0, 0, 0) thread (2, 0, 0) at ")
}
