package drivertest

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/stream"
)

// testEvents checks the events of package stream on drv: creation flags,
// Record/Query/Synchronize, Elapsed, wrapping foreign events, IPC handles
// and errors on bad input.
func testEvents(t *testing.T, drv *driver.Driver) {
	t.Run("new", func(t *testing.T) { testEventNew(t, drv) })
	t.Run("flags", func(t *testing.T) { testEventFlags(t, drv) })
	t.Run("record-query", func(t *testing.T) { testEventRecordQuery(t, drv) })
	t.Run("record-wrong-context", func(t *testing.T) { testEventWrongContext(t, drv) })
	t.Run("elapsed", func(t *testing.T) { testEventElapsed(t, drv) })
	t.Run("elapsed-errors", func(t *testing.T) { testEventElapsedErrors(t, drv) })
	t.Run("close", func(t *testing.T) { testEventClose(t, drv) })
	t.Run("wrap", func(t *testing.T) { testEventWrap(t, drv) })
	t.Run("ipc-handle", func(t *testing.T) { testEventIPCHandle(t, drv) })
	t.Run("nil", func(t *testing.T) { testEventNil(t, drv) })
}

func testEventNew(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	ev := newEvent(t, ctx)
	assert.True(t, ev.Owned())
	assert.NotZero(t, ev.Handle())
	assert.Same(t, ctx, ev.Context())
	f, known := ev.Flags()
	assert.True(t, known)
	assert.Equal(t, stream.EventFlag(0), f)
	assert.Contains(t, ev.String(), fmt.Sprintf("%#x", ev.Handle()))
	done, err := ev.Query()
	require.NoError(t, err)
	assert.True(t, done, "an event never recorded is complete")
	require.NoError(t, ev.Synchronize())

	_, err = stream.NewEvent(nil)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
}

func testEventFlags(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	s := newStream(t, ctx)
	for _, flags := range [][]stream.EventFlag{
		{stream.BlockingSync},
		{stream.DisableTiming},
		{stream.BlockingSync, stream.DisableTiming},
		{stream.Interprocess, stream.DisableTiming},
		{stream.Interprocess | stream.DisableTiming | stream.BlockingSync},
	} {
		ev := newEvent(t, ctx, flags...)
		var want stream.EventFlag
		for _, f := range flags {
			want |= f
		}
		got, _ := ev.Flags()
		assert.Equal(t, want, got)
		require.NoError(t, ev.Record(s), "%s", want)
		require.NoError(t, ev.Synchronize(), "%s", want)
	}

	// Interprocess needs DisableTiming: rejected, not silently added.
	ev, err := stream.NewEvent(ctx, stream.Interprocess)
	require.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.Nil(t, ev)
	assert.Contains(t, err.Error(), "DisableTiming")

	_, err = stream.NewEvent(ctx, stream.EventFlag(0x100))
	require.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.Contains(t, err.Error(), "0x100")
}

func testEventRecordQuery(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	s := newStream(t, ctx)
	ev := newEvent(t, ctx, stream.DisableTiming)

	release := gate(t, s)
	require.NoError(t, ev.Record(s))
	done, err := ev.Query()
	require.NoError(t, err, "not ready is not an error")
	assert.False(t, done, "the event waits for the held-up stream")
	release()
	require.NoError(t, ev.Synchronize())
	done, err = ev.Query()
	require.NoError(t, err)
	assert.True(t, done)

	// Re-recording takes the stream's work at the new point.
	release = gate(t, s)
	require.NoError(t, ev.Record(s))
	done, err = ev.Query()
	require.NoError(t, err)
	assert.False(t, done)
	release()
	require.NoError(t, s.Synchronize())
	done, err = ev.Query()
	require.NoError(t, err)
	assert.True(t, done)
}

func testEventWrongContext(t *testing.T, drv *driver.Driver) {
	primary := streamContext(t, drv, 0)
	own := streamOwnContext(t, drv, 0)
	ev := newEvent(t, primary)
	other := newStream(t, own)
	err := ev.Record(other)
	require.ErrorIs(t, err, stream.ErrWrongContext)
	assert.Contains(t, err.Error(), fmt.Sprintf("%#x", primary.Handle()))
	assert.Contains(t, err.Error(), fmt.Sprintf("%#x", own.Handle()))
	// Nothing was recorded: Elapsed with it still says never recorded.
	ok := newStream(t, primary)
	end := newEvent(t, primary)
	require.NoError(t, end.Record(ok))
	require.NoError(t, end.Synchronize())
	_, err = stream.Elapsed(ev, end)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "never recorded")

	// Waiting on an event of another context is allowed.
	require.NoError(t, ev.Record(ok))
	require.NoError(t, other.Wait(ev))
	require.NoError(t, other.Synchronize())
}

func testEventElapsed(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	s := newStream(t, ctx)
	start := newEvent(t, ctx)
	end := newEvent(t, ctx)
	p := rawAlloc(t, ctx, 1<<20)

	require.NoError(t, start.Record(s))
	memsetU32(t, s, p, 3, (1<<20)/4)
	require.NoError(t, end.Record(s))
	require.NoError(t, end.Synchronize())
	d, err := stream.Elapsed(start, end)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, d, time.Duration(0))
	assert.Less(t, d, 10*time.Second)
	back, err := stream.Elapsed(end, start)
	require.NoError(t, err)
	assert.LessOrEqual(t, back, time.Duration(0), "end to start runs backwards")
}

func testEventElapsedErrors(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	s := newStream(t, ctx)
	timed := newEvent(t, ctx)
	untimed := newEvent(t, ctx, stream.DisableTiming)
	never := newEvent(t, ctx)
	require.NoError(t, timed.Record(s))
	require.NoError(t, untimed.Record(s))
	require.NoError(t, s.Synchronize())

	_, err := stream.Elapsed(timed, untimed)
	require.ErrorIs(t, err, driver.ErrInvalidHandle)
	assert.Contains(t, err.Error(), "DisableTiming")
	_, err = stream.Elapsed(untimed, timed)
	require.ErrorIs(t, err, driver.ErrInvalidHandle)

	_, err = stream.Elapsed(timed, never)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "never recorded")
	_, err = stream.Elapsed(never, timed)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "never recorded")

	// Not complete yet: an error wrapping ErrNotReady.
	end := newEvent(t, ctx)
	release := gate(t, s)
	require.NoError(t, end.Record(s))
	_, err = stream.Elapsed(timed, end)
	require.ErrorIs(t, err, driver.ErrNotReady)
	release()
	require.NoError(t, end.Synchronize())
	_, err = stream.Elapsed(timed, end)
	require.NoError(t, err)

	_, err = stream.Elapsed(nil, end)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = stream.Elapsed(timed, nil)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
}

func testEventClose(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	s := newStream(t, ctx)
	ev, err := stream.NewEvent(ctx)
	require.NoError(t, err)
	require.NoError(t, ev.Record(s))
	require.NoError(t, ev.Close())
	require.NoError(t, ev.Close(), "a second Close is a no-op")

	assert.ErrorIs(t, ev.Record(s), stream.ErrClosed)
	assert.ErrorIs(t, ev.Synchronize(), stream.ErrClosed)
	_, err = ev.Query()
	assert.ErrorIs(t, err, stream.ErrClosed)
	assert.ErrorIs(t, s.Wait(ev), stream.ErrClosed, "Wait needs a live event")
	_, err = ev.IPCHandle()
	assert.ErrorIs(t, err, stream.ErrClosed)
	other := newEvent(t, ctx)
	require.NoError(t, other.Record(s))
	_, err = stream.Elapsed(ev, other)
	assert.ErrorIs(t, err, stream.ErrClosed)
	_, err = stream.Elapsed(other, ev)
	assert.ErrorIs(t, err, stream.ErrClosed)
	assert.Contains(t, ev.String(), "closed")
	require.NoError(t, s.Synchronize())
}

func testEventWrap(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	s := newStream(t, ctx)

	ev, err := stream.WrapEvent(ctx, 0)
	require.ErrorIs(t, err, stream.ErrNullHandle)
	assert.Nil(t, ev)
	assert.Contains(t, err.Error(), "handle 0x0")

	h := rawEvent(t, ctx, driver.EventDefault)
	ev, err = stream.WrapEvent(ctx, h)
	require.NoError(t, err)
	assert.Equal(t, h, ev.Handle(), "the handle round-trips exactly")
	assert.False(t, ev.Owned())
	_, known := ev.Flags()
	assert.False(t, known, "a foreign event's flags are not known")
	assert.Contains(t, ev.String(), "wrapped")

	// Everything works on it, including timing (the creator allowed it).
	start := newEvent(t, ctx)
	require.NoError(t, start.Record(s))
	require.NoError(t, ev.Record(s))
	other := newStream(t, ctx)
	require.NoError(t, other.Wait(ev))
	require.NoError(t, ev.Synchronize())
	done, err := ev.Query()
	require.NoError(t, err)
	assert.True(t, done)
	_, err = stream.Elapsed(start, ev)
	require.NoError(t, err)

	// A wrapped event still pending is accepted by WrapEvent.
	release := gate(t, s)
	require.NoError(t, ev.Record(s))
	again, err := stream.WrapEvent(ctx, h)
	require.NoError(t, err, "a pending (not ready) event wraps")
	release()
	require.NoError(t, again.Synchronize())
	require.NoError(t, again.Close())

	// Close only detaches: the owner's event lives on.
	require.NoError(t, ev.Close())
	require.NoError(t, ev.Close())
	assert.NoError(t, ctx.API().EventQuery(h), "the foreign event is still alive")
	assert.ErrorIs(t, ev.Record(s), stream.ErrClosed)
	_, err = ev.Query()
	assert.ErrorIs(t, err, stream.ErrClosed)

	// A foreign event without timing: Elapsed leaves the check to the driver.
	hu := rawEvent(t, ctx, driver.EventDisableTiming)
	u, err := stream.WrapEvent(ctx, hu)
	require.NoError(t, err)
	require.NoError(t, u.Record(s))
	require.NoError(t, s.Synchronize())
	_, err = stream.Elapsed(start, u)
	assert.ErrorIs(t, err, driver.ErrInvalidHandle)
	require.NoError(t, u.Close())

	_, err = stream.WrapEvent(nil, h)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
}

func testEventIPCHandle(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	// Without Interprocess: INVALID_HANDLE, as the driver says (measured on
	// the H200), whether this package knows the flags or the driver checks.
	plain := newEvent(t, ctx, stream.DisableTiming)
	_, err := plain.IPCHandle()
	require.ErrorIs(t, err, driver.ErrInvalidHandle)
	assert.Contains(t, err.Error(), "Interprocess")
	foreign, err := stream.WrapEvent(ctx, rawEvent(t, ctx, driver.EventDisableTiming))
	require.NoError(t, err)
	_, err = foreign.IPCHandle()
	require.ErrorIs(t, err, driver.ErrInvalidHandle)
	assert.Contains(t, err.Error(), "cuIpcGetEventHandle")
	require.NoError(t, foreign.Close())

	ev := newEvent(t, ctx, stream.Interprocess, stream.DisableTiming)
	h, err := ev.IPCHandle()
	require.NoError(t, err)
	assert.NotEqual(t, driver.IPCHandle{}, h, "the handle carries data")
	other := newEvent(t, ctx, stream.Interprocess, stream.DisableTiming)
	h3, err := other.IPCHandle()
	require.NoError(t, err)
	assert.NotEqual(t, h, h3)

	_, err = stream.OpenIPCEvent(ctx, driver.IPCHandle{})
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = stream.OpenIPCEvent(nil, h)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
}

func testEventNil(t *testing.T, drv *driver.Driver) {
	var ev *stream.Event
	_, err := ev.Query()
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.ErrorIs(t, ev.Synchronize(), driver.ErrInvalidValue)
	assert.ErrorIs(t, ev.Close(), driver.ErrInvalidValue)
	assert.Equal(t, "nil event", ev.String())
	ctx := streamContext(t, drv, 0)
	real := newEvent(t, ctx)
	assert.ErrorIs(t, real.Record(nil), driver.ErrInvalidValue)
	assert.ErrorIs(t, (&stream.Event{}).Record(newStream(t, ctx)), driver.ErrInvalidValue)
}
