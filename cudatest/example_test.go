package cudatest_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
)

// In a test, drv := cudatest.Driver(t) gives the real driver or a fake one;
// IsFake tells them apart for the checks that hold on one only.
func ExampleIsFake() {
	drv := fake.New()
	fmt.Println(cudatest.IsFake(drv))
	// Output: true
}

// A test on a fake of two devices: were buf or ctx left open, Fake would
// fail the test at its end, listing them.
func ExampleFake() {
	testTwoDevices := func(t *testing.T) {
		drv := cudatest.Fake(t, fake.Devices(2))
		dev, err := drv.Device(1)
		require.NoError(t, err)
		ctx, err := dev.PrimaryContext()
		require.NoError(t, err)
		defer ctx.Close()
		buf, err := memory.Alloc[float32](ctx, 1024)
		require.NoError(t, err)
		defer buf.Close()
		require.NoError(t, memory.CopyToDevice(buf, make([]float32, 1024)))
	}
	_ = testTwoDevices
}
