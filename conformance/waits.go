package conformance

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/stream"
)

// testWaits checks the waits with a context.Context (SynchronizeContext on
// streams, events and contexts): a deadline or a cancel ends the wait with
// ctx.Err() and leaves the work and the objects as they were.
func testWaits(t *testing.T, drv *driver.Driver) {
	t.Run("stream", func(t *testing.T) { testWaitStream(t, drv) })
	t.Run("event", func(t *testing.T) { testWaitEvent(t, drv) })
	t.Run("context", func(t *testing.T) { testWaitContext(t, drv) })
	t.Run("done-first", func(t *testing.T) { testWaitDoneFirst(t, drv) })
	t.Run("kernel", func(t *testing.T) { testWaitKernel(t, drv) })
}

// held queues on s a host callback that blocks until release (called at
// the latest when the test ends, before s is synchronized and closed).
func held(t *testing.T, s *stream.Stream) (release func()) {
	t.Helper()
	ch := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(ch) }) }
	must(t, s.Callback(func() {
		select {
		case <-ch:
		case <-time.After(time.Minute): // never hang a driver thread for good
		}
	}))
	t.Cleanup(func() {
		release()
		must(t, s.Synchronize())
	})
	return release
}

func timeout(t *testing.T, d time.Duration) context.Context {
	c, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return c
}

func testWaitStream(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	s := newStream(t, ctx)
	release := held(t, s)

	err := s.SynchronizeContext(timeout(t, 20*time.Millisecond))
	errorIs(t, err, context.DeadlineExceeded)
	done, err := s.Query()
	must(t, err)
	isFalse(t, done, "the work is still pending: the wait only stopped")

	c, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(10 * time.Millisecond)
		cancel()
	}()
	errorIs(t, s.SynchronizeContext(c), context.Canceled)

	go func() {
		time.Sleep(10 * time.Millisecond)
		release()
	}()
	must(t, s.SynchronizeContext(timeout(t, time.Minute)), "the work finishes while waiting")
	done, err = s.Query()
	must(t, err)
	isTrue(t, done)
	must(t, s.SynchronizeContext(context.Background()))
}

func testWaitEvent(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	s := newStream(t, ctx)
	ev := newEvent(t, ctx, stream.DisableTiming)
	release := held(t, s)
	must(t, ev.Record(s))
	errorIs(t, ev.SynchronizeContext(timeout(t, 20*time.Millisecond)), context.DeadlineExceeded)
	done, err := ev.Query()
	must(t, err)
	isFalse(t, done)
	release()
	must(t, ev.SynchronizeContext(timeout(t, time.Minute)))
	done, err = ev.Query()
	must(t, err)
	isTrue(t, done)
}

func testWaitContext(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	s := newStream(t, ctx)
	release := held(t, s)
	errorIs(t, ctx.SynchronizeContext(timeout(t, 20*time.Millisecond)), context.DeadlineExceeded)
	release()
	must(t, ctx.SynchronizeContext(timeout(t, time.Minute)))
	done, err := s.Query()
	must(t, err)
	isTrue(t, done)
}

func testWaitDoneFirst(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	s := newStream(t, ctx)
	ev := newEvent(t, ctx)
	c, cancel := context.WithCancel(context.Background())
	cancel()
	errorIs(t, s.SynchronizeContext(c), context.Canceled)
	errorIs(t, ev.SynchronizeContext(c), context.Canceled)
	errorIs(t, ctx.SynchronizeContext(c), context.Canceled)
	// Nothing was left half done: the objects work.
	must(t, s.SynchronizeContext(timeout(t, time.Minute)))
	must(t, ev.Record(s))
	must(t, ev.SynchronizeContext(timeout(t, time.Minute)))
}
