package worker_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/cudatest/fakekernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/worker"
)

// contract checks what the package promises on drv: a worker's fault,
// crash, panic and hang each end only their call; the next call succeeds
// on a new worker; the parent's buffer holds what the worker wrote before
// it died; the parent's context keeps working.
func contract(t *testing.T, drv *driver.Driver) {
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, ctx.Close()) })
	buf, err := memory.FromSlice(ctx, []float32{1, 2, 3, 4})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, buf.Close()) })
	p, err := worker.New(worker.Options{}, ctx)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, p.Close()) })
	bg := context.Background()

	n, err := scale.Call(bg, p, markArg{worker.Share(buf), 10})
	require.NoError(t, err)
	assert.Equal(t, count{4}, n)
	got, err := memory.ToSlice(buf)
	require.NoError(t, err)
	assert.Equal(t, []float32{10, 20, 30, 40}, got, "the worker's writes are in the parent's buffer")

	for _, tc := range []struct {
		name    string
		call    func(context.Context) error
		failure worker.Failure
		is      error
		mark    float32
	}{
		{"fault", func(c context.Context) error { _, err := faulty.Call(c, p, markArg{worker.Share(buf), 5}); return err }, worker.Faulted, driver.ErrStickyFault, 5},
		{"goexit", func(c context.Context) error { _, err := goexit.Call(c, p, markArg{worker.Share(buf), 6}); return err }, worker.Exited, worker.ErrWorkerExited, 6},
		{"panic", func(c context.Context) error { _, err := panicky.Call(c, p, markArg{worker.Share(buf), 7}); return err }, worker.Panicked, worker.ErrPanicked, 7},
		{"hang", func(c context.Context) error {
			c, cancel := context.WithTimeout(c, 300*time.Millisecond)
			defer cancel()
			_, err := hang.Call(c, p, markArg{worker.Share(buf), 8})
			return err
		}, worker.Expired, context.DeadlineExceeded, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := p.Workers()
			err := tc.call(bg)
			require.Error(t, err)
			ce := failure(t, err)
			assert.Equal(t, tc.failure, ce.Failure, "%v", err)
			assert.ErrorIs(t, err, tc.is)
			if tc.failure == worker.Faulted {
				assert.ErrorIs(t, err, driver.ErrIllegalAddress, "the worker's driver.Result travels")
				assert.NotEmpty(t, ce.Text, "the worker's error text")
			}
			got, err := memory.ToSlice(buf)
			require.NoError(t, err, "the parent's context works")
			assert.Equal(t, []float32{tc.mark, tc.mark, tc.mark, tc.mark}, got, "what the worker wrote before it died")

			n, err := scale.Call(bg, p, markArg{worker.Share(buf), 2})
			require.NoError(t, err, "the next call succeeds on a new worker")
			assert.Equal(t, count{4}, n)
			after := p.Workers()
			assert.NotEqual(t, before, after, "the worker was replaced")
			got, err = memory.ToSlice(buf)
			require.NoError(t, err)
			assert.Equal(t, []float32{2 * tc.mark, 2 * tc.mark, 2 * tc.mark, 2 * tc.mark}, got)
		})
	}
	other, err := memory.Alloc[float32](ctx, 16)
	require.NoError(t, err, "the parent allocates after the workers' faults")
	require.NoError(t, other.Close())
}

func TestFakeContract(t *testing.T) {
	contract(t, cudatest.Fake(t, fakekernels.Options()...))
}

func TestGPUContract(t *testing.T) {
	if os.Getenv(cudatest.RequireGPUEnv) != "1" {
		t.Skip("needs the GPU: NOCGO_CUDA_REQUIRE_GPU=1")
	}
	contract(t, cudatest.Real(t))
}

// A pool over the fake runs its workers in fake processes of their own:
// none is this process, and each has its own id.
func TestFakeWorkersAreProcessesOfTheirOwn(t *testing.T) {
	drv := cudatest.Fake(t)
	ctx := primary(t, drv, 0)
	p, err := worker.New(worker.Options{PerDevice: 3}, ctx)
	require.NoError(t, err)
	defer p.Close()
	ids := p.Workers()
	require.Len(t, ids, 3)
	slices.Sort(ids)
	assert.Len(t, slices.Compact(ids), 3)
	v, err := sum.Call(context.Background(), p, [4]int64{1, 2, 3, 4})
	require.NoError(t, err)
	assert.Equal(t, int64(10), v)
}

// The call's device is that of its buffers.
func TestFakeDeviceChosenByBuffers(t *testing.T) {
	drv := cudatest.Fake(t, append(fakekernels.Options(), fakeDevices(2))...)
	ctx0, ctx1 := primary(t, drv, 0), primary(t, drv, 1)
	b0, err := memory.FromSlice(ctx0, []float32{1})
	require.NoError(t, err)
	defer b0.Close()
	b1, err := memory.FromSlice(ctx1, []float32{1})
	require.NoError(t, err)
	defer b1.Close()
	p, err := worker.New(worker.Options{}, ctx0, ctx1)
	require.NoError(t, err)
	defer p.Close()
	_, err = scale.Call(context.Background(), p, markArg{worker.Share(b1), 3})
	require.NoError(t, err)
	got, err := memory.ToSlice(b1)
	require.NoError(t, err)
	assert.Equal(t, []float32{3}, got)
	// A fault on device 1's worker leaves device 0's alone.
	w0 := p.Workers()[0]
	_, err = faulty.Call(context.Background(), p, markArg{worker.Share(b1), 4})
	require.ErrorIs(t, err, driver.ErrStickyFault)
	_, err = scale.Call(context.Background(), p, markArg{worker.Share(b0), 5})
	require.NoError(t, err)
	assert.Equal(t, w0, p.Workers()[0], "device 0's worker is the same")
}

func primary(t *testing.T, drv *driver.Driver, i int) *driver.Context {
	t.Helper()
	dev, err := drv.Device(i)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, ctx.Close()) })
	return ctx
}

var _ = errors.Is
