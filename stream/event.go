package stream

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// EventFlag is an event creation flag (CU_EVENT_*); flags are or-ed.
type EventFlag uint32

const (
	// BlockingSync makes Event.Synchronize block the thread instead of
	// spinning (CU_EVENT_BLOCKING_SYNC).
	BlockingSync EventFlag = EventFlag(backend.EventBlockingSync)
	// DisableTiming makes the event cheaper; Elapsed cannot use it
	// (CU_EVENT_DISABLE_TIMING).
	DisableTiming EventFlag = EventFlag(backend.EventDisableTiming)
	// Interprocess lets another process open the event (see
	// Event.IPCHandle and OpenIPCEvent) (CU_EVENT_INTERPROCESS). The driver
	// requires DisableTiming with it; NewEvent does not add it for you but
	// rejects Interprocess without DisableTiming.
	Interprocess EventFlag = EventFlag(backend.EventInterprocess)
)

const allEventFlags = BlockingSync | DisableTiming | Interprocess

// String names the flags ("DisableTiming|Interprocess", "Default").
func (f EventFlag) String() string {
	if f == 0 {
		return "Default"
	}
	var parts []string
	for _, n := range []struct {
		f    EventFlag
		name string
	}{{BlockingSync, "BlockingSync"}, {DisableTiming, "DisableTiming"}, {Interprocess, "Interprocess"}} {
		if f&n.f != 0 {
			parts = append(parts, n.name)
		}
	}
	if rest := f &^ allEventFlags; rest != 0 {
		parts = append(parts, fmt.Sprintf("%#x", uint32(rest)))
	}
	return strings.Join(parts, "|")
}

type eventKind uint8

const (
	ownedEvent   eventKind = iota // NewEvent: Close destroys
	wrappedEvent                  // WrapEvent: Close detaches
	openedEvent                   // OpenIPCEvent: Close releases this process's reference
)

// Event is a CUDA event (CUevent) in a context. An event made by NewEvent is
// owned and destroyed by Close; one made by WrapEvent is foreign and Close
// only detaches; one opened with OpenIPCEvent is released by Close
// (cuEventDestroy), while the exporting process keeps its own. Every Event
// holds its context until Close (see driver.Context).
//
// An Event is safe for concurrent use, except that Close must not run while
// other calls on the same Event are still in progress (calls made after
// Close return driver.ErrClosed). The zero Event is not usable.
type Event struct {
	ctx        *driver.Context
	hold       *core.Hold // keeps ctx alive until Close
	h          uintptr
	kind       eventKind
	flags      EventFlag // as created; only meaningful when flagsKnown
	flagsKnown bool
	recorded   atomic.Bool // Record has succeeded at least once
}

// EventOptions configure a new event. The zero value is a default event,
// with timing.
type EventOptions struct {
	// Flags is the or of DisableTiming, BlockingSync and Interprocess.
	Flags EventFlag
}

// NewEvent creates an event in ctx (cuEventCreate) with opts. The caller owns
// it: Close destroys it. Interprocess without DisableTiming is rejected, as
// the driver requires both; unknown flags are rejected too.
func NewEvent(ctx *driver.Context, opts EventOptions) (*Event, error) {
	c, err := core.Of("stream.NewEvent", ctx)
	if err != nil {
		return nil, err
	}
	f := opts.Flags
	if f&^allEventFlags != 0 {
		return nil, fmt.Errorf("stream.NewEvent: unknown flags %#x: %w", uint32(f&^allEventFlags), driver.ErrInvalidInput)
	}
	if f&Interprocess != 0 && f&DisableTiming == 0 {
		return nil, fmt.Errorf("stream.NewEvent: flags %s: Interprocess needs DisableTiming too (Flags: stream.Interprocess | stream.DisableTiming): %w", f, driver.ErrInvalidInput)
	}
	hold, err := c.Hold()
	if err != nil {
		return nil, fmt.Errorf("stream.NewEvent: %w", err)
	}
	var h uintptr
	err = hold.Do(func(api backend.API) error {
		var r error
		if h, r = api.EventCreate(uint32(f)); r != nil {
			return fmt.Errorf("stream.NewEvent: %s: cuEventCreate(%s): %w", ctx, f, r)
		}
		return nil
	})
	if err != nil {
		if h != 0 { // made, but unbinding failed
			err = hold.Undo(err, func(api backend.API) error { return api.EventDestroy(h) })
		}
		return nil, hold.Drop(err)
	}
	return &Event{ctx: ctx, hold: hold, h: h, kind: ownedEvent, flags: f, flagsKnown: true}, nil
}

// WrapEvent wraps an event created elsewhere (another library, the CUDA
// runtime API) without taking ownership: Close only detaches, and the owner
// must keep the event alive while it is used here.
//
// 0 returns ErrNullHandle. The driver has no cuEventGetCtx, so the event's
// context cannot be read: WrapEvent checks only that the driver accepts the
// handle, by querying it (cuEventQuery) with ctx current, and returns the
// driver's error, wrapped, otherwise. An event of another context is not
// caught here; Record on a stream of ctx then fails in the driver. (A
// destroyed or made-up handle is undefined behaviour on the real driver: only
// pass live events.) The event's flags are unknown to this package, so
// Elapsed and IPCHandle leave their checks to the driver.
func WrapEvent(ctx *driver.Context, handle uintptr) (*Event, error) {
	c, err := core.Of(fmt.Sprintf("stream.WrapEvent: handle %#x", handle), ctx)
	if err != nil {
		return nil, err
	}
	if handle == 0 {
		return nil, fmt.Errorf("stream.WrapEvent: handle 0x0: %w", ErrNullHandle)
	}
	hold, err := c.Hold()
	if err != nil {
		return nil, fmt.Errorf("stream.WrapEvent: handle %#x: %w", handle, err)
	}
	err = hold.Do(func(api backend.API) error {
		if r := api.EventQuery(handle); r != nil && !isNotReady(r) {
			return fmt.Errorf("stream.WrapEvent: handle %#x: %s: cuEventQuery: %w", handle, ctx, r)
		}
		return nil
	})
	if err != nil {
		return nil, hold.Drop(err)
	}
	return &Event{ctx: ctx, hold: hold, h: handle, kind: wrappedEvent}, nil
}

// Handle returns the raw CUevent (0 for a nil Event).
func (e *Event) Handle() uintptr {
	if e == nil {
		return 0
	}
	return e.h
}

// Context returns the event's context (nil for a nil Event). For an owned or
// IPC-opened event it may already be released (see driver.Context.Closed):
// the event holds the context in the driver until Close.
func (e *Event) Context() *driver.Context {
	if e == nil {
		return nil
	}
	return e.ctx
}

// Owned reports whether Close destroys the event (NewEvent); false for a nil
// or zero Event. Events opened with OpenIPCEvent are not owned, but Close
// releases this process's handle.
func (e *Event) Owned() bool { return e != nil && e.ctx != nil && e.kind == ownedEvent }

// Flags returns the flags the event was created with, and false for a
// wrapped event, whose flags the driver cannot report, and for a nil Event.
func (e *Event) Flags() (EventFlag, bool) {
	if e == nil {
		return 0, false
	}
	return e.flags, e.flagsKnown
}

// api is the backend of the event's context.
func (e *Event) api() backend.API { return e.hold.Context().API }

// check reports a nil, zero or closed event.
func (e *Event) check() error {
	if e == nil || e.ctx == nil {
		return errNilEvent
	}
	if e.hold.Closed() {
		return fmt.Errorf("event %#x: %w", e.h, driver.ErrClosed)
	}
	return nil
}

// use holds the event open for one call that passes its handle to the
// driver: until e.hold.Unuse, a Close waits, so the driver never gets a
// destroyed event. It fails with an error wrapping driver.ErrClosed once a
// Close is in progress or done. e was checked.
func (e *Event) use() error { return e.hold.Use(e) }

// errNilEvent is what the checks say of a nil or zero Event; the exported
// functions and methods prefix it with their name.
var errNilEvent = fmt.Errorf("nil or zero event: %w", driver.ErrInvalidInput)

// Record captures the work queued on s so far (cuEventRecord): the event
// completes when that work is done. s must belong to the event's context;
// otherwise Record returns an error wrapping driver.ErrWrongContext before calling
// the driver. On a stream that is not special it binds nothing and
// allocates nothing.
func (e *Event) Record(s *Stream) (err error) {
	const op = "stream.Event.Record"
	if err := e.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := s.check(); err != nil {
		return fmt.Errorf("%s: %s: %w", op, e, err)
	}
	if !s.ctx.Same(e.ctx) {
		return fmt.Errorf("%s: %s on %s: %w", op, e, s, driver.ErrWrongContext)
	}
	b, err := s.use()
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer b.Done(&err)
	if err := e.use(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer e.hold.Unuse()
	if r := e.api().EventRecord(e.h, s.q.Handle); r != nil {
		return fmt.Errorf("%s: %s: cuEventRecord(%s): %w", op, e, s, r)
	}
	if !e.recorded.Load() {
		e.recorded.Store(true)
	}
	return nil
}

// Synchronize blocks until the event completes (cuEventSynchronize). An
// event never recorded is complete.
func (e *Event) Synchronize() error { return e.synchronize("stream.Event.Synchronize") }

// synchronize is Synchronize, with errors prefixed by op.
func (e *Event) synchronize(op string) error {
	if err := e.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := e.use(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer e.hold.Unuse()
	if r := e.api().EventSynchronize(e.h); r != nil {
		return fmt.Errorf("%s: %s: cuEventSynchronize: %w", op, e, core.Unusable(r))
	}
	return nil
}

// Query reports whether the event has completed (cuEventQuery). Work still
// pending is (false, nil), not an error. It allocates nothing.
func (e *Event) Query() (bool, error) { return e.query("stream.Event.Query") }

// query is Query, with errors prefixed by op.
func (e *Event) query(op string) (bool, error) {
	if err := e.check(); err != nil {
		return false, fmt.Errorf("%s: %w", op, err)
	}
	if err := e.use(); err != nil {
		return false, fmt.Errorf("%s: %w", op, err)
	}
	defer e.hold.Unuse()
	r := e.api().EventQuery(e.h)
	if r == nil {
		return true, nil
	}
	if isNotReady(r) {
		return false, nil
	}
	return false, fmt.Errorf("%s: %s: cuEventQuery: %w", op, e, core.Unusable(r))
}

// Close ends this Event and lets go of its context (see driver.Context):
// an owned event is destroyed (cuEventDestroy; a pending record still
// completes), an event opened with OpenIPCEvent is released (cuEventDestroy
// on this process's handle), and a wrapped event is only detached.
// Afterwards every operation returns an error wrapping driver.ErrClosed; a second
// Close is a no-op that returns nil. If the driver fails to destroy the
// event, the error is returned and the Event stays open, so that Close can
// be retried.
func (e *Event) Close() error {
	const op = "stream.Event.Close"
	if e == nil || e.ctx == nil {
		return fmt.Errorf("%s: %w", op, errNilEvent)
	}
	var destroy func(backend.API) error
	if e.kind != wrappedEvent {
		destroy = func(api backend.API) error {
			if r := api.EventDestroy(e.h); r != nil {
				return fmt.Errorf("%s: cuEventDestroy: %w", e, r)
			}
			return nil
		}
	}
	if err := e.hold.Close(destroy); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// String describes the event, for errors and logs.
func (e *Event) String() string {
	if e == nil || e.ctx == nil {
		return "nil event"
	}
	var what string
	switch e.kind {
	case ownedEvent:
		what = fmt.Sprintf("owned event %#x (%s)", e.h, e.flags)
	case wrappedEvent:
		what = fmt.Sprintf("wrapped event %#x", e.h)
	default:
		what = fmt.Sprintf("IPC-opened event %#x", e.h)
	}
	if e.hold.Closed() {
		what = "closed " + what
	}
	return what + " (" + e.ctx.String() + ")"
}
