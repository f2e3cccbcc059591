package cudatest_test

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/internal/libcuda"
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

// TestReal runs on the GPU only (skipped without a driver, failed with
// NOCGO_CUDA_REQUIRE_GPU=1): Real and RealBackend are the real driver,
// never the fake.
func TestReal(t *testing.T) {
	api := cudatest.RealBackend(t)
	require.NotNil(t, api)
	drv := cudatest.Real(t)
	assert.False(t, cudatest.IsFake(drv))
	assert.NotEmpty(t, drv.LibraryPaths(), "the real driver names the library it loaded")
	n, err := drv.DeviceCount()
	require.NoError(t, err)
	assert.Positive(t, n)
}

// TestRealSkips checks that Real skips, rather than fails, a test on a
// machine without a driver; with NOCGO_CUDA_REQUIRE_GPU=1 it would fail it.
func TestRealSkips(t *testing.T) {
	if _, err := libcuda.Open(); err == nil {
		t.Skip("libcuda opens here")
	}
	t.Setenv(cudatest.RequireGPUEnv, "")
	r := &skipRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		cudatest.Real(r)
		r.returned = true
	}()
	<-done
	assert.False(t, r.returned, "Real does not return without a driver")
	assert.True(t, r.skipped, "Real skips the test")
	assert.Contains(t, r.msg, "no CUDA driver")

	t.Setenv(cudatest.RequireGPUEnv, "1")
	r = &skipRecorder{TB: t}
	done = make(chan struct{})
	go func() {
		defer close(done)
		cudatest.RealBackend(r)
	}()
	<-done
	assert.False(t, r.skipped, "with %s=1, RealBackend fails instead", cudatest.RequireGPUEnv)
	assert.Contains(t, r.msg, cudatest.RequireGPUEnv+"=1 but the real driver does not load")
}

// skipRecorder records Skipf and Fatalf and ends the goroutine, as the
// testing package does.
type skipRecorder struct {
	testing.TB
	skipped, returned bool
	msg               string
}

func (r *skipRecorder) Helper() {}
func (r *skipRecorder) Skipf(format string, args ...any) {
	r.skipped, r.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (r *skipRecorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
