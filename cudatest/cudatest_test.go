package cudatest_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/memory"
)

func TestDriver(t *testing.T) {
	drv := cudatest.Driver(t)
	n, err := drv.DeviceCount()
	require.NoError(t, err)
	require.Positive(t, n)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer ctx.Close()
	buf, err := memory.Alloc[int32](ctx, 4)
	require.NoError(t, err)
	defer buf.Close()
	require.NoError(t, memory.CopyToDevice(buf, []int32{1, 2, 3, 4}))
	got := make([]int32, 4)
	require.NoError(t, memory.CopyToHost(got, buf))
	assert.Equal(t, []int32{1, 2, 3, 4}, got)
	if os.Getenv(cudatest.RequireGPUEnv) == "1" {
		assert.False(t, cudatest.IsFake(drv), "a GPU run must be on the real driver")
	}
}
