package cudatest_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
)

// In a test, drv := cudatest.Driver(t) gives the real driver or a fake one;
// IsFake tells them apart for the checks that hold on one only.
func ExampleIsFake() {
	drv := fake.New()
	fmt.Println(cudatest.IsFake(drv))
	// Output: true
}

// A test on a fake of two devices: were buf or cc left open, Fake would
// fail the test at its end, listing them.
func ExampleFake() {
	testTwoDevices := func(t *testing.T) {
		drv := cudatest.Fake(t, fake.Devices(2))
		dev, err := drv.Device(1)
		require.NoError(t, err)
		cc, err := dev.PrimaryContext()
		require.NoError(t, err)
		defer cc.Close()
		buf, err := memory.Alloc[float32](cc, 1024)
		require.NoError(t, err)
		defer buf.Close()
		require.NoError(t, memory.CopyToDevice(buf, make([]float32, 1024)))
	}
	_ = testTwoDevices
}

// A kernel's table test: Stream gives a stream and its context in one call,
// each closed at the end of the test (on the GPU where there is one, on the
// fake elsewhere, which then checks for leaks and races).
func ExampleStream() {
	testScale := func(t *testing.T) {
		s := cudatest.Stream(t, fake.Kernel("scale", scaleBody))
		m, err := module.Compile(s.Context(), scaleSource, module.Options{})
		require.NoError(t, err)
		defer m.Close()
		f, err := m.Function("scale")
		require.NoError(t, err)
		for _, in := range [][]float32{{1, 2, 3}, {}} {
			buf, err := memory.FromSliceOn(s, in)
			require.NoError(t, err)
			defer buf.Close()
			n := len(in)
			require.NoError(t, f.Launch(s, module.ForElems(n), buf, buf, float32(2), int32(n)))
			got, err := memory.ToSliceOn(s, buf)
			require.NoError(t, err)
			require.Len(t, got, n)
		}
	}
	_ = testScale
}

const scaleSource = `extern "C" __global__ void scale(float* out, const float* in, float k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = k * in[i];
}
`

func scaleBody(t fake.Thread, out, in fake.Ptr, k float32, n int32) {
	if i := t.X(); i < int(n) {
		fake.Store(t, out, i, k*fake.Load[float32](t, in, i))
	}
}

// TestExampleStream runs ExampleStream's test.
func TestExampleStream(t *testing.T) {
	s := cudatest.Stream(t, fake.Kernel("scale", scaleBody))
	m, err := module.Compile(s.Context(), scaleSource, module.Options{})
	require.NoError(t, err)
	defer m.Close()
	f, err := m.Function("scale")
	require.NoError(t, err)
	buf, err := memory.FromSliceOn(s, []float32{1, 2, 3})
	require.NoError(t, err)
	defer buf.Close()
	require.NoError(t, f.Launch(s, module.ForElems(3), buf, buf, float32(2), int32(3)))
	got, err := memory.ToSliceOn(s, buf)
	require.NoError(t, err)
	require.Equal(t, []float32{2, 4, 6}, got)
}
