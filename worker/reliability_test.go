package worker_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/worker"
)

// A process started as a worker whose main never called worker.Main (the
// marker is in its environment) gets a clear error from New instead of
// starting workers of its own, which would start it again, recursively.
func TestNewInWorkerWithoutMain(t *testing.T) {
	drv := cudatest.Fake(t)
	ctx := primary(t, drv, 0)
	t.Setenv("NOCGO_CUDA_WORKER", "1:GPU-test")
	p, err := worker.New(worker.Options{}, ctx)
	if p != nil {
		p.Close()
	}
	require.ErrorIs(t, err, worker.ErrStart)
	assert.Contains(t, err.Error(), "worker.Main()")
	assert.Equal(t, 1, strings.Count(err.Error(), "worker.New:"), "prefixed once: %v", err)
}

// A function registered after the pool started is refused by its worker,
// on the fake as in a child process (which registered only the
// package-level functions). It runs in a child test process, so that the
// late registration does not change this binary's registry for the other
// tests' child workers.
func TestFuncRegisteredAfterStartRefused(t *testing.T) {
	if os.Getenv("WORKER_TEST_LATE") == "1" {
		lateRegistration(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFuncRegisteredAfterStartRefused$", "-test.v")
	cmd.Env = append(os.Environ(), "WORKER_TEST_LATE=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "late registration refused")
}

func lateRegistration(t *testing.T) {
	drv := cudatest.Fake(t)
	p, err := worker.New(worker.Options{}, primary(t, drv, 0))
	require.NoError(t, err)
	defer p.Close()
	late := worker.Register("test.late", func(env *worker.Env, a int32) (int32, error) { return a, nil })
	_, err = late.Call(context.Background(), p, 1)
	ce := failure(t, err)
	assert.Equal(t, worker.Returned, ce.Failure)
	assert.Contains(t, ce.Text, "no function of that id")
	v, err := sum.Call(context.Background(), p, [4]int64{1, 2})
	require.NoError(t, err, "the worker stays")
	assert.Equal(t, int64(3), v)
	t.Log("late registration refused")
}

// A kernel fault in a worker's function keeps the function's own error,
// with the fake's detail of the fault, instead of the worker's generic
// cuCtxSynchronize error.
func TestFaultKeepsFunctionError(t *testing.T) {
	drv := cudatest.Fake(t)
	ctx := primary(t, drv, 0)
	p, err := worker.New(worker.Options{}, ctx)
	require.NoError(t, err)
	defer p.Close()
	buf, err := memory.Alloc[float32](ctx, 64)
	require.NoError(t, err)
	defer buf.Close()
	_, err = faulty.Call(context.Background(), p, markArg{worker.Share(buf), 1})
	ce := failure(t, err)
	assert.Equal(t, worker.Faulted, ce.Failure)
	assert.Contains(t, ce.Text, "kernel fault", "the fault's detail: %s", ce.Text)
	assert.NotContains(t, ce.Text, "cuCtxSynchronize", "the function's error, not the worker's synchronisation: %s", ce.Text)
}

// A program whose main never called worker.Main gets a clear error from
// New, on the fake too, whose workers run in the process (the omission
// would otherwise show only on the GPU).
func TestNewWithoutMain(t *testing.T) {
	drv := cudatest.Fake(t)
	ctx := primary(t, drv, 0)
	restore := worker.ForgetMain()
	p, err := worker.New(worker.Options{}, ctx)
	restore()
	if p != nil {
		p.Close()
	}
	require.ErrorIs(t, err, worker.ErrStart)
	require.Contains(t, err.Error(), "worker.Main was not called")
}
