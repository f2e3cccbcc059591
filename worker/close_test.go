package worker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/worker"
)

// A call that waits for a busy worker gives up at its context's end, with
// the context's error, and touches no worker.
func TestWaitForWorkerEndsWithContext(t *testing.T) {
	for _, sub := range []bool{false, true} {
		p, err := worker.New(worker.Options{Subprocess: sub}, primary(t, cudatest.Fake(t), 0))
		require.NoError(t, err)
		busy := make(chan error, 1)
		go func() { _, err := sleep.Call(context.Background(), p, 300*time.Millisecond); busy <- err }()
		time.Sleep(50 * time.Millisecond)
		before := p.Workers()
		c, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		_, err = sum.Call(c, p, [4]int64{})
		cancel()
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		var ce *worker.CallError
		assert.NotErrorAs(t, err, &ce, "no worker ran it")
		require.NoError(t, <-busy, "the busy call ends normally")
		assert.Equal(t, before, p.Workers())
		require.NoError(t, p.Close())
	}
}

// Close ends the calls in flight (their workers are killed) with
// driver.ErrClosed, and returns.
func TestCloseDuringCall(t *testing.T) {
	for _, sub := range []bool{false, true} {
		p, err := worker.New(worker.Options{Subprocess: sub}, primary(t, cudatest.Fake(t), 0))
		require.NoError(t, err)
		busy := make(chan error, 1)
		go func() { _, err := sleep.Call(context.Background(), p, 2*time.Second); busy <- err }()
		time.Sleep(50 * time.Millisecond)
		start := time.Now()
		require.NoError(t, p.Close())
		assert.ErrorIs(t, <-busy, driver.ErrClosed)
		assert.Less(t, time.Since(start), time.Second, "Close did not wait for the call")
		assert.Empty(t, p.Workers())
	}
}
