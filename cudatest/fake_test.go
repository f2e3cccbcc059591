package cudatest_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
)

// recorder is a testing.TB that records failures and cleanups instead of
// acting on them, so that Fake's own failures can be checked.
type recorder struct {
	testing.TB
	mu       sync.Mutex
	errs     []string
	cleanups []func()
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

// end runs the cleanups as the testing package does: last registered first.
func (r *recorder) end() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func TestFakeReportsLeaks(t *testing.T) {
	r := &recorder{TB: t}
	drv := cudatest.Fake(r)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	buf, err := memory.Alloc[float32](ctx, 25)
	require.NoError(t, err)
	r.end()
	require.Len(t, r.errs, 1, "one failure listing the leaks")
	assert.Contains(t, r.errs[0], "2 objects left alive")
	assert.Contains(t, r.errs[0], "primary context")
	assert.Contains(t, r.errs[0], "device memory")
	assert.Contains(t, r.errs[0], "100 bytes on device 0")
	assert.Contains(t, r.errs[0], "100 bytes on device 0 not freed, made at fake_test.go:50 (TestFakeReportsLeaks)", "each leak names the line that made it")

	require.NoError(t, buf.Close())
	require.NoError(t, ctx.Close())
	assert.Empty(t, fake.Of(drv).Leaks(), "fake.Of finds the backend of a Fake driver")
}

func TestFakeCleanAndOptions(t *testing.T) {
	r := &recorder{TB: t}
	drv := cudatest.Fake(r, fake.Devices(2))
	n, err := drv.DeviceCount()
	require.NoError(t, err)
	assert.Equal(t, 2, n, "the options reach the fake")
	dev, err := drv.Device(1)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	buf, err := memory.Alloc[byte](ctx, 8)
	require.NoError(t, err)
	r.Cleanup(func() { assert.NoError(t, ctx.Close()) })
	r.Cleanup(func() { assert.NoError(t, buf.Close()) })
	r.end()
	assert.Empty(t, r.errs, "closed in cleanups registered after Fake: nothing leaked")
}

func TestFakeInitFailure(t *testing.T) {
	r := &fatalRecorder{recorder: recorder{TB: t}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		cudatest.Fake(r, fake.FailNth("cuInit", 1, driver.ErrUnknown))
	}()
	<-done
	require.Len(t, r.errs, 1, "Fake fails the test")
	assert.True(t, strings.HasPrefix(r.errs[0], "cudatest.Fake: "), r.errs[0])
	assert.Contains(t, r.errs[0], "CUDA_ERROR_UNKNOWN")
}

// fatalRecorder records Fatalf and ends the goroutine, as t.Fatalf does.
type fatalRecorder struct{ recorder }

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}
