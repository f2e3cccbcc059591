package conformance

import (
	"fmt"
	"testing"
	"time"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
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
	isTrue(t, ev.Owned())
	notZero(t, ev.Handle())
	isSame(t, ev.Context(), ctx)
	f, known := ev.Flags()
	isTrue(t, known)
	equal(t, f, stream.EventFlag(0))
	contains(t, ev.String(), fmt.Sprintf("%#x", ev.Handle()))
	done, err := ev.Query()
	must(t, err)
	isTrue(t, done, "an event never recorded is complete")
	must(t, ev.Synchronize())

	_, err = stream.NewEvent(nil, stream.EventOptions{})
	errorIs(t, err, driver.ErrInvalidValue)
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
		equal(t, got, want)
		must(t, ev.Record(s), "%s", want)
		must(t, ev.Synchronize(), "%s", want)
	}

	// Interprocess needs DisableTiming: rejected, not silently added.
	ev, err := stream.NewEvent(ctx, stream.EventOptions{Flags: stream.Interprocess})
	mustIs(t, err, driver.ErrInvalidValue)
	isNil(t, ev)
	contains(t, err.Error(), "DisableTiming")

	_, err = stream.NewEvent(ctx, stream.EventOptions{Flags: stream.EventFlag(0x100)})
	mustIs(t, err, driver.ErrInvalidValue)
	contains(t, err.Error(), "0x100")
}

func testEventRecordQuery(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	s := newStream(t, ctx)
	ev := newEvent(t, ctx, stream.DisableTiming)

	release := gate(t, s)
	must(t, ev.Record(s))
	done, err := ev.Query()
	must(t, err, "not ready is not an error")
	isFalse(t, done, "the event waits for the held-up stream")
	release()
	must(t, ev.Synchronize())
	done, err = ev.Query()
	must(t, err)
	isTrue(t, done)

	// Re-recording takes the stream's work at the new point.
	release = gate(t, s)
	must(t, ev.Record(s))
	done, err = ev.Query()
	must(t, err)
	isFalse(t, done)
	release()
	must(t, s.Synchronize())
	done, err = ev.Query()
	must(t, err)
	isTrue(t, done)
}

func testEventWrongContext(t *testing.T, drv *driver.Driver) {
	primary := streamContext(t, drv, 0)
	own := streamOwnContext(t, drv, 0)
	ev := newEvent(t, primary)
	other := newStream(t, own)
	err := ev.Record(other)
	mustIs(t, err, driver.ErrWrongContext)
	contains(t, err.Error(), fmt.Sprintf("%#x", primary.Handle()))
	contains(t, err.Error(), fmt.Sprintf("%#x", own.Handle()))
	// Nothing was recorded: Elapsed with it still says never recorded.
	ok := newStream(t, primary)
	end := newEvent(t, primary)
	must(t, end.Record(ok))
	must(t, end.Synchronize())
	_, err = stream.Elapsed(ev, end)
	mustErr(t, err)
	contains(t, err.Error(), "never recorded")

	// Waiting on an event of another context is allowed.
	must(t, ev.Record(ok))
	must(t, other.Wait(ev))
	must(t, other.Synchronize())
}

func testEventElapsed(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	s := newStream(t, ctx)
	start := newEvent(t, ctx)
	end := newEvent(t, ctx)
	p := rawAlloc(t, ctx, 1<<20)

	must(t, start.Record(s))
	memsetU32(t, s, p, 3, (1<<20)/4)
	must(t, end.Record(s))
	must(t, end.Synchronize())
	d, err := stream.Elapsed(start, end)
	must(t, err)
	compare(t, d, ">=", time.Duration(0))
	compare(t, d, "<", 10*time.Second)
	back, err := stream.Elapsed(end, start)
	must(t, err)
	compare(t, back, "<=", time.Duration(0), "end to start runs backwards")
}

func testEventElapsedErrors(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	s := newStream(t, ctx)
	timed := newEvent(t, ctx)
	untimed := newEvent(t, ctx, stream.DisableTiming)
	never := newEvent(t, ctx)
	must(t, timed.Record(s))
	must(t, untimed.Record(s))
	must(t, s.Synchronize())

	_, err := stream.Elapsed(timed, untimed)
	mustIs(t, err, driver.ErrInvalidHandle)
	contains(t, err.Error(), "DisableTiming")
	_, err = stream.Elapsed(untimed, timed)
	mustIs(t, err, driver.ErrInvalidHandle)

	_, err = stream.Elapsed(timed, never)
	mustErr(t, err)
	contains(t, err.Error(), "never recorded")
	_, err = stream.Elapsed(never, timed)
	mustErr(t, err)
	contains(t, err.Error(), "never recorded")

	// Not complete yet: an error wrapping ErrNotReady.
	end := newEvent(t, ctx)
	release := gate(t, s)
	must(t, end.Record(s))
	_, err = stream.Elapsed(timed, end)
	mustIs(t, err, driver.ErrNotReady)
	release()
	must(t, end.Synchronize())
	_, err = stream.Elapsed(timed, end)
	must(t, err)

	_, err = stream.Elapsed(nil, end)
	errorIs(t, err, driver.ErrInvalidValue)
	_, err = stream.Elapsed(timed, nil)
	errorIs(t, err, driver.ErrInvalidValue)
}

func testEventClose(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	s := newStream(t, ctx)
	ev, err := stream.NewEvent(ctx, stream.EventOptions{})
	must(t, err)
	must(t, ev.Record(s))
	must(t, ev.Close())
	must(t, ev.Close(), "a second Close is a no-op")

	errorIs(t, ev.Record(s), driver.ErrClosed)
	errorIs(t, ev.Synchronize(), driver.ErrClosed)
	_, err = ev.Query()
	errorIs(t, err, driver.ErrClosed)
	errorIs(t, s.Wait(ev), driver.ErrClosed, "Wait needs a live event")
	_, err = ev.IPCHandle()
	errorIs(t, err, driver.ErrClosed)
	other := newEvent(t, ctx)
	must(t, other.Record(s))
	_, err = stream.Elapsed(ev, other)
	errorIs(t, err, driver.ErrClosed)
	_, err = stream.Elapsed(other, ev)
	errorIs(t, err, driver.ErrClosed)
	contains(t, ev.String(), "closed")
	must(t, s.Synchronize())
}

func testEventWrap(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	s := newStream(t, ctx)

	ev, err := stream.WrapEvent(ctx, 0)
	mustIs(t, err, stream.ErrNullHandle)
	isNil(t, ev)
	contains(t, err.Error(), "handle 0x0")

	h := rawEvent(t, ctx, backend.EventDefault)
	ev, err = stream.WrapEvent(ctx, h)
	must(t, err)
	equal(t, ev.Handle(), h, "the handle round-trips exactly")
	isFalse(t, ev.Owned())
	_, known := ev.Flags()
	isFalse(t, known, "a foreign event's flags are not known")
	contains(t, ev.String(), "wrapped")

	// Everything works on it, including timing (the creator allowed it).
	start := newEvent(t, ctx)
	must(t, start.Record(s))
	must(t, ev.Record(s))
	other := newStream(t, ctx)
	must(t, other.Wait(ev))
	must(t, ev.Synchronize())
	done, err := ev.Query()
	must(t, err)
	isTrue(t, done)
	_, err = stream.Elapsed(start, ev)
	must(t, err)

	// A wrapped event still pending is accepted by WrapEvent.
	release := gate(t, s)
	must(t, ev.Record(s))
	again, err := stream.WrapEvent(ctx, h)
	must(t, err, "a pending (not ready) event wraps")
	release()
	must(t, again.Synchronize())
	must(t, again.Close())

	// Close only detaches: the owner's event lives on.
	must(t, ev.Close())
	must(t, ev.Close())
	noError(t, ctxAPI(ctx).EventQuery(h), "the foreign event is still alive")
	errorIs(t, ev.Record(s), driver.ErrClosed)
	_, err = ev.Query()
	errorIs(t, err, driver.ErrClosed)

	// A foreign event without timing: Elapsed leaves the check to the driver.
	hu := rawEvent(t, ctx, backend.EventDisableTiming)
	u, err := stream.WrapEvent(ctx, hu)
	must(t, err)
	must(t, u.Record(s))
	must(t, s.Synchronize())
	_, err = stream.Elapsed(start, u)
	errorIs(t, err, driver.ErrInvalidHandle)
	must(t, u.Close())

	_, err = stream.WrapEvent(nil, h)
	errorIs(t, err, driver.ErrInvalidValue)
}

func testEventIPCHandle(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	// Without Interprocess: INVALID_HANDLE, as the driver says (measured on
	// the H200), whether this package knows the flags or the driver checks.
	plain := newEvent(t, ctx, stream.DisableTiming)
	_, err := plain.IPCHandle()
	mustIs(t, err, driver.ErrInvalidHandle)
	contains(t, err.Error(), "Interprocess")
	foreign, err := stream.WrapEvent(ctx, rawEvent(t, ctx, backend.EventDisableTiming))
	must(t, err)
	_, err = foreign.IPCHandle()
	mustIs(t, err, driver.ErrInvalidHandle)
	contains(t, err.Error(), "cuIpcGetEventHandle")
	must(t, foreign.Close())

	ev := newEvent(t, ctx, stream.Interprocess, stream.DisableTiming)
	h, err := ev.IPCHandle()
	must(t, err)
	notEqual(t, h, driver.IPCHandle{}, "the handle carries data")
	other := newEvent(t, ctx, stream.Interprocess, stream.DisableTiming)
	h3, err := other.IPCHandle()
	must(t, err)
	notEqual(t, h3, h)

	_, err = stream.OpenIPCEvent(ctx, driver.IPCHandle{})
	errorIs(t, err, driver.ErrInvalidValue)
	_, err = stream.OpenIPCEvent(nil, h)
	errorIs(t, err, driver.ErrInvalidValue)
}

func testEventNil(t *testing.T, drv *driver.Driver) {
	var ev *stream.Event
	_, err := ev.Query()
	errorIs(t, err, driver.ErrInvalidValue)
	errorIs(t, ev.Synchronize(), driver.ErrInvalidValue)
	errorIs(t, ev.Close(), driver.ErrInvalidValue)
	equal(t, ev.String(), "nil event")
	ctx := streamContext(t, drv, 0)
	real := newEvent(t, ctx)
	errorIs(t, real.Record(nil), driver.ErrInvalidValue)
	errorIs(t, (&stream.Event{}).Record(newStream(t, ctx)), driver.ErrInvalidValue)
}
