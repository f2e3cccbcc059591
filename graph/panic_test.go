package graph_test

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/graph"
)

// A panic or runtime.Goexit inside Capture's function ends the capture and
// destroys what it recorded (the fake reports no leaked graph), and the
// panic reaches the caller: the stream is no longer capturing, so work
// launched afterwards runs instead of being recorded.
func TestCaptureEndsOnPanicAndGoexit(t *testing.T) {
	e := newEnv(t)
	var recovered any
	func() {
		defer func() { recovered = recover() }()
		_, _ = graph.Capture(e.s, graph.Global, func() error {
			if err := e.launch(e.s, e.buf); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	assert.Equal(t, "boom", recovered, "the panic goes on to the caller")
	e.requireNotCapturing(t)

	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = graph.Capture(e.s, graph.ThreadLocal, func() error {
			if err := e.launch(e.s, e.buf); err != nil {
				return err
			}
			runtime.Goexit()
			return nil
		})
		t.Error("Capture returned after its function called runtime.Goexit")
	}()
	<-done
	e.requireNotCapturing(t)

	require.NoError(t, e.launch(e.s, e.buf))
	require.NoError(t, e.s.Synchronize())
	assert.Equal(t, filled(e.n, 1), all(t, e.buf), "only the launch after the captures ran")
}

func (e *env) requireNotCapturing(t *testing.T) {
	t.Helper()
	st, _, err := graph.CaptureStatus(e.s)
	require.NoError(t, err)
	require.Equal(t, graph.None, st, "the stream is left capturing")
}
