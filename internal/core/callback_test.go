package core

import (
	"errors"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
)

type named string

func (n named) String() string { return string(n) }

// assertUnmarked checks that no callback is marked running.
func assertUnmarked(t *testing.T) {
	t.Helper()
	assert.Zero(t, callbacks.running.Load())
	callbacks.mu.Lock()
	defer callbacks.mu.Unlock()
	assert.Empty(t, callbacks.threads)
}

func TestInCallback(t *testing.T) {
	require.False(t, InCallback())
	require.NoError(t, NotInCallback(named("x")))

	inside := make(chan struct{})
	leave := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		var err error
		func() {
			defer LeaveCallback(EnterCallback())
			// Nested marks (a callback running another) unmark in order.
			LeaveCallback(EnterCallback())
			if !InCallback() {
				err = errors.New("not marked inside")
				return
			}
			close(inside)
			<-leave
			err = NotInCallback(named("buffer"))
		}()
		if InCallback() {
			err = errors.New("still marked after LeaveCallback")
		}
		done <- err
	}()
	<-inside
	// Other goroutines, on any thread, are not marked while it runs.
	for range 100 {
		assert.False(t, InCallback())
		runtime.Gosched()
	}
	close(leave)
	err := <-done
	require.Error(t, err)
	assert.ErrorIs(t, err, backend.ErrNotPermitted)
	assert.ErrorIs(t, err, ErrInCallback)
	assert.Contains(t, err.Error(), "buffer: ")
	assertUnmarked(t)
}

// A callback that panics or exits its goroutine is unmarked all the same.
func TestLeaveCallbackOnPanicAndGoexit(t *testing.T) {
	for _, end := range []func(){func() { panic("boom") }, runtime.Goexit} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer func() { _ = recover() }()
			defer LeaveCallback(EnterCallback())
			end()
		}()
		<-done
	}
	assertUnmarked(t)
	assert.False(t, InCallback())
}

func BenchmarkInCallbackNone(b *testing.B) {
	for b.Loop() {
		if InCallback() {
			b.Fatal("marked")
		}
	}
}

func BenchmarkInCallbackOtherRunning(b *testing.B) {
	leave := make(chan struct{})
	entered := make(chan struct{})
	go func() {
		defer LeaveCallback(EnterCallback())
		close(entered)
		<-leave
	}()
	<-entered
	defer close(leave)
	for b.Loop() {
		if InCallback() {
			b.Fatal("marked")
		}
	}
}
