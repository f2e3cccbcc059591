package worker_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/worker"
)

// recording is the fake with the leaks of each of its spawned processes
// recorded at their exit.
type recording struct {
	fake.Backend
	mu    sync.Mutex
	exits [][]backend.Leak
}

func (r *recording) SpawnProcess() (backend.Process, error) {
	p, err := r.Backend.SpawnProcess()
	if err != nil {
		return nil, err
	}
	return &recordedProcess{p, r}, nil
}

type recordedProcess struct {
	backend.Process
	r *recording
}

func (p *recordedProcess) Exit() {
	leaks := p.Process.(backend.LeakReporter).Leaks()
	p.r.mu.Lock()
	p.r.exits = append(p.r.exits, leaks)
	p.r.mu.Unlock()
	p.Process.Exit()
}

// A worker's clean exit (Close) releases everything it opened: its
// context, its stream, its mappings of the parent's buffers; a killed
// worker's exit frees it all the same. The parent is left with nothing
// either.
func TestNothingLeaks(t *testing.T) {
	rec := &recording{Backend: fake.NewBackend()}
	drv, err := driver.New(rec)
	require.NoError(t, err)
	ctx := primary(t, drv, 0)
	buf, err := memory.FromSlice(ctx, []float32{1, 2})
	require.NoError(t, err)
	p, err := worker.New(worker.Options{}, ctx)
	require.NoError(t, err)
	bg := context.Background()
	for range 4 {
		_, err = scale.Call(bg, p, markArg{worker.Share(buf), 2})
		require.NoError(t, err)
	}
	_, err = quit.Call(bg, p, struct{}{})
	require.ErrorIs(t, err, worker.ErrWorkerExited)
	_, err = scale.Call(bg, p, markArg{worker.Share(buf), 2})
	require.NoError(t, err, "on the new worker, which maps the buffer again")
	require.NoError(t, p.Close())
	rec.mu.Lock()
	exits := rec.exits
	rec.mu.Unlock()
	require.Len(t, exits, 2, "the worker that exited and its replacement")
	assert.NotEmpty(t, exits[0], "the worker that died held its context, stream and mapping until its exit")
	for i, leaks := range exits {
		if i == 0 {
			continue // the worker that died, whose exit frees what it held
		}
		assert.Empty(t, leaks, "worker %d's clean exit", i)
	}
	require.NoError(t, buf.Close())
	require.NoError(t, ctx.Close())
	assert.Empty(t, rec.Leaks(), "the parent")
}
