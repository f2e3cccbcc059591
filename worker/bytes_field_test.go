package worker_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/worker"
)

type textJob struct {
	Name  string
	Data  []byte
	N     int32
	Parts [2]string
}

type textResult struct {
	Upper string
	Rev   []byte
	N     int32
}

var (
	upper = worker.Register("test.upper", func(env *worker.Env, j textJob) (textResult, error) {
		rev := make([]byte, len(j.Data))
		for i, b := range j.Data {
			rev[len(rev)-1-i] = b
		}
		return textResult{strings.ToUpper(j.Name + j.Parts[0] + j.Parts[1]), rev, j.N + 1}, nil
	})
	echo  = worker.Register("test.echo", func(env *worker.Env, s string) (string, error) { return s, nil })
	bloat = worker.Register("test.bloat", func(env *worker.Env, n int32) ([]byte, error) { return make([]byte, n), nil })
)

// Strings and []byte travel to a worker and back, in the call's frame.
func TestStringAndBytesArguments(t *testing.T) {
	drv := cudatest.Fake(t)
	p, err := worker.New(worker.Options{}, primary(t, drv, 0))
	require.NoError(t, err)
	defer p.Close()
	bg := context.Background()

	r, err := upper.Call(bg, p, textJob{Name: "kernel", Data: []byte{1, 2, 3}, N: 41, Parts: [2]string{"-a", "-b"}})
	require.NoError(t, err)
	assert.Equal(t, textResult{"KERNEL-A-B", []byte{3, 2, 1}, 42}, r)
	r, err = upper.Call(bg, p, textJob{})
	require.NoError(t, err)
	assert.Equal(t, textResult{N: 1}, r, "empty strings and nil slices")

	src := strings.Repeat("x", worker.MaxValueSize-16) // a string's header is 16 bytes
	s, err := echo.Call(bg, p, src)
	require.NoError(t, err)
	assert.Equal(t, src, s)

	_, err = echo.Call(bg, p, src+"y")
	require.ErrorIs(t, err, driver.ErrInvalidInput)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.ErrorContains(t, err, "worker.MaxValueSize")
	assert.ErrorContains(t, err, "worker.Buffer")

	b, err := bloat.Call(bg, p, 1000)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(make([]byte, 1000), b))
	_, err = bloat.Call(bg, p, worker.MaxValueSize)
	var ce *worker.CallError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, worker.Returned, ce.Failure)
	assert.Contains(t, ce.Text, "worker.MaxValueSize")
	s, err = echo.Call(bg, p, "after")
	require.NoError(t, err, "the worker stays")
	assert.Equal(t, "after", s)
}
