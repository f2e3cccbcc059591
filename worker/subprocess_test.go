package worker_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/worker"
)

// The protocol with real child processes of this binary, on any machine:
// the functions need no GPU (the children's driver may not open).
func TestSubprocess(t *testing.T) {
	drv := cudatest.Fake(t)
	ctx := primary(t, drv, 0)
	p, err := worker.New(worker.Options{Subprocess: true, StartTimeout: 30 * time.Second}, ctx)
	require.NoError(t, err)
	defer func() { assert.NoError(t, p.Close()) }()
	bg := context.Background()

	child, err := pid.Call(bg, p, struct{}{})
	require.NoError(t, err)
	assert.NotEqual(t, int64(os.Getpid()), child, "the worker is another process")
	assert.Equal(t, []int{int(child)}, p.Workers())

	v, err := sum.Call(bg, p, [4]int64{1, 2, 3, 4})
	require.NoError(t, err)
	assert.Equal(t, int64(10), v)

	r, err := upper.Call(bg, p, textJob{Name: "child", Data: []byte{1, 2}, Parts: [2]string{"", "!"}})
	require.NoError(t, err, "strings and []byte cross the process boundary")
	assert.Equal(t, textResult{"CHILD!", []byte{2, 1}, 1}, r)

	_, err = refuse.Call(bg, p, 7)
	ce := failure(t, err)
	assert.Equal(t, worker.Returned, ce.Failure)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "the worker's driver.Result travels")
	assert.Contains(t, err.Error(), "refused 7")
	again, err := pid.Call(bg, p, struct{}{})
	require.NoError(t, err)
	assert.Equal(t, child, again, "a returned error keeps the worker")

	for _, tc := range []struct {
		name    string
		call    func() error
		failure worker.Failure
		is      error
	}{
		{"os.Exit", func() error { _, err := exit.Call(bg, p, 9); return err }, worker.Exited, worker.ErrWorkerExited},
		{"goexit", func() error { _, err := quit.Call(bg, p, struct{}{}); return err }, worker.Exited, worker.ErrWorkerExited},
		{"crash", func() error { _, err := crash.Call(bg, p, struct{}{}); return err }, worker.Exited, worker.ErrWorkerExited},
		{"panic", func() error { _, err := boom.Call(bg, p, 2); return err }, worker.Panicked, worker.ErrPanicked},
		{"hang", func() error {
			c, cancel := context.WithTimeout(bg, 200*time.Millisecond)
			defer cancel()
			_, err := sleep.Call(c, p, time.Hour)
			return err
		}, worker.Expired, context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, err := pid.Call(bg, p, struct{}{})
			require.NoError(t, err)
			err = tc.call()
			require.Error(t, err)
			assert.Equal(t, tc.failure, failure(t, err).Failure, "%v", err)
			assert.ErrorIs(t, err, tc.is)
			after, err := pid.Call(bg, p, struct{}{})
			require.NoError(t, err, "the next call succeeds")
			assert.NotEqual(t, before, after, "on a new worker")
		})
	}
}

// A worker's function that dies right away is reported in the call.
func TestSubprocessPanicInFunction(t *testing.T) {
	drv := cudatest.Fake(t)
	p, err := worker.New(worker.Options{Subprocess: true}, primary(t, drv, 0))
	require.NoError(t, err)
	defer p.Close()
	_, err = boom.Call(context.Background(), p, 1)
	assert.Equal(t, worker.Panicked, failure(t, err).Failure)
	assert.ErrorIs(t, err, worker.ErrPanicked)
	assert.Contains(t, err.Error(), "boom 1")
	v, err := sum.Call(context.Background(), p, [4]int64{1})
	require.NoError(t, err)
	assert.Equal(t, int64(1), v)
}
