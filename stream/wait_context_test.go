package stream_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/stream"
)

// blocked returns a stream whose work is held by a host callback until
// release is called (at the latest at the end of the test).
func blocked(t *testing.T, ctx *driver.Context) (*stream.Stream, func()) {
	t.Helper()
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	ch := make(chan struct{})
	closed := false
	release := func() {
		if !closed {
			closed = true
			close(ch)
		}
	}
	require.NoError(t, s.Callback(func() { <-ch }))
	t.Cleanup(func() {
		release()
		assert.NoError(t, s.Synchronize())
		assert.NoError(t, s.Close())
	})
	return s, release
}

func TestStreamSynchronizeContextDeadline(t *testing.T) {
	ctx := fakeContext(t)
	s, release := blocked(t, ctx)

	cctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := s.SynchronizeContext(cctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "stream.Stream.SynchronizeContext: owned stream")
	assert.Less(t, time.Since(start), 5*time.Second)

	// The stream is untouched: its work is still pending, and it completes.
	done, err := s.Query()
	require.NoError(t, err)
	assert.False(t, done)
	release()
	require.NoError(t, s.SynchronizeContext(context.Background()))
	done, err = s.Query()
	require.NoError(t, err)
	assert.True(t, done)
}

func TestStreamSynchronizeContextCanceled(t *testing.T) {
	ctx := fakeContext(t)
	s, release := blocked(t, ctx)
	cctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(10 * time.Millisecond)
		cancel()
	}()
	err := s.SynchronizeContext(cctx)
	require.ErrorIs(t, err, context.Canceled)
	release()

	// Work that finishes while polling: the wait ends with nil.
	cctx, cancel = context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s2, release2 := blocked(t, ctx)
	go func() {
		time.Sleep(5 * time.Millisecond)
		release2()
	}()
	require.NoError(t, s2.SynchronizeContext(cctx))
}

func TestSynchronizeContextAlreadyDone(t *testing.T) {
	c, counts := countingContext(t)
	s, err := stream.New(c, stream.Options{})
	require.NoError(t, err)
	defer s.Close()
	ev, err := stream.NewEvent(c, stream.EventOptions{})
	require.NoError(t, err)
	defer ev.Close()
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	_ = counts
	assert.ErrorIs(t, s.SynchronizeContext(cctx), context.Canceled)
	assert.ErrorIs(t, ev.SynchronizeContext(cctx), context.Canceled)
	assert.ErrorIs(t, c.SynchronizeContext(cctx), context.Canceled)
}

func TestSynchronizeContextBadInput(t *testing.T) {
	ctx := fakeContext(t)
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	ev, err := stream.NewEvent(ctx, stream.EventOptions{})
	require.NoError(t, err)

	//lint:ignore SA1012 a nil context.Context is the bad input under test
	assert.ErrorIs(t, s.SynchronizeContext(nil), driver.ErrInvalidValue)
	//lint:ignore SA1012 a nil context.Context is the bad input under test
	assert.ErrorIs(t, ev.SynchronizeContext(nil), driver.ErrInvalidValue)
	//lint:ignore SA1012 a nil context.Context is the bad input under test
	assert.ErrorIs(t, ctx.SynchronizeContext(nil), driver.ErrInvalidValue)

	var nilStream *stream.Stream
	var nilEvent *stream.Event
	var nilCtx *driver.Context
	assert.ErrorIs(t, nilStream.SynchronizeContext(context.Background()), driver.ErrInvalidValue)
	assert.ErrorIs(t, nilEvent.SynchronizeContext(context.Background()), driver.ErrInvalidValue)
	assert.ErrorIs(t, nilCtx.SynchronizeContext(context.Background()), driver.ErrInvalidValue)

	require.NoError(t, s.Close())
	require.NoError(t, ev.Close())
	err = s.SynchronizeContext(context.Background())
	assert.ErrorIs(t, err, driver.ErrClosed)
	assert.Equal(t, 1, countPrefix(err.Error(), "stream.Stream.SynchronizeContext:"))
	assert.ErrorIs(t, ev.SynchronizeContext(context.Background()), driver.ErrClosed)
}

func countPrefix(s, p string) int {
	n := 0
	for i := 0; i+len(p) <= len(s); i++ {
		if s[i:i+len(p)] == p {
			n++
		}
	}
	return n
}

func TestEventSynchronizeContext(t *testing.T) {
	ctx := fakeContext(t)
	s, release := blocked(t, ctx)
	ev, err := stream.NewEvent(ctx, stream.EventOptions{Flags: stream.DisableTiming})
	require.NoError(t, err)
	defer ev.Close()
	require.NoError(t, ev.Record(s))

	cctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err = ev.SynchronizeContext(cctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.False(t, errors.Is(err, context.Canceled))
	release()
	cctx2, cancel2 := context.WithTimeout(context.Background(), time.Minute)
	defer cancel2()
	require.NoError(t, ev.SynchronizeContext(cctx2))
	done, err := ev.Query()
	require.NoError(t, err)
	assert.True(t, done)
}

func TestContextSynchronizeContext(t *testing.T) {
	ctx := fakeContext(t)
	_, release := blocked(t, ctx)
	cctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := ctx.SynchronizeContext(cctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "driver.Context.SynchronizeContext: primary context")
	release()
	cctx2, cancel2 := context.WithTimeout(context.Background(), time.Minute)
	defer cancel2()
	require.NoError(t, ctx.SynchronizeContext(cctx2))
	require.NoError(t, ctx.SynchronizeContext(context.Background()))
}
