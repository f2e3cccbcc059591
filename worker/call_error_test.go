package worker_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/worker"
)

// A CallError with no driver code (a panic) names no CUDA code, printed as
// an error or as a value.
func TestCallErrorWithoutCodeNamesNone(t *testing.T) {
	drv := cudatest.Fake(t)
	p, err := worker.New(worker.Options{}, primary(t, drv, 0))
	require.NoError(t, err)
	defer p.Close()
	_, err = boom.Call(context.Background(), p, 2)
	var ce *worker.CallError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, worker.Panicked, ce.Failure)
	assert.Zero(t, ce.Code)
	for _, s := range []string{err.Error(), fmt.Sprint(err), fmt.Sprintf("%+v", *ce), fmt.Sprintf("%v", *ce)} {
		assert.NotContains(t, s, "CUDA_", s)
		assert.Contains(t, s, "panicked", s)
	}
}
