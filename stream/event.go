package stream

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/nocgo/cuda/driver"
)

// EventFlag is an event creation flag (CU_EVENT_*); flags are or-ed.
type EventFlag uint32

const (
	// BlockingSync makes Event.Synchronize block the thread instead of
	// spinning (CU_EVENT_BLOCKING_SYNC).
	BlockingSync EventFlag = EventFlag(driver.EventBlockingSync)
	// DisableTiming makes the event cheaper; Elapsed cannot use it
	// (CU_EVENT_DISABLE_TIMING).
	DisableTiming EventFlag = EventFlag(driver.EventDisableTiming)
	// Interprocess lets another process open the event (see
	// Event.IPCHandle and OpenIPCEvent) (CU_EVENT_INTERPROCESS). The driver
	// requires DisableTiming with it; NewEvent does not add it for you but
	// rejects Interprocess without DisableTiming.
	Interprocess EventFlag = EventFlag(driver.EventInterprocess)
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
// (cuEventDestroy), while the exporting process keeps its own. Owned and
// IPC-opened events hold their context until Close (driver.Context.Hold), so
// they keep working after the Context's Release; wrapped events hold nothing.
//
// An Event is safe for concurrent use, except that Close must not run while
// other calls on the same Event are still in progress (calls made after
// Close return ErrClosed). The zero Event is not usable.
type Event struct {
	ctx        *driver.Context
	hold       *driver.Hold // owned and IPC-opened events: keeps ctx alive until Close
	h          uintptr
	kind       eventKind
	flags      EventFlag // as created; only meaningful when flagsKnown
	flagsKnown bool
	closed     atomic.Bool
	recorded   atomic.Bool // Record has succeeded at least once
}

// NewEvent creates an event in ctx (cuEventCreate) with the or of flags
// (none: a default event with timing). The caller owns it: Close destroys
// it. Interprocess without DisableTiming is rejected, as the driver requires
// both; unknown flags are rejected too. The event holds ctx
// (driver.Context.Hold) until Close, so it keeps working after ctx.Release.
func NewEvent(ctx *driver.Context, flags ...EventFlag) (*Event, error) {
	if ctx == nil {
		return nil, fmt.Errorf("stream.NewEvent: nil context: %w", driver.ErrInvalidValue)
	}
	var f EventFlag
	for _, x := range flags {
		f |= x
	}
	if f&^allEventFlags != 0 {
		return nil, fmt.Errorf("stream.NewEvent: unknown flags %#x: %w", uint32(f&^allEventFlags), driver.ErrInvalidValue)
	}
	if f&Interprocess != 0 && f&DisableTiming == 0 {
		return nil, fmt.Errorf("stream.NewEvent: flags %s: Interprocess needs DisableTiming too (pass stream.Interprocess, stream.DisableTiming): %w", f, driver.ErrInvalidValue)
	}
	hold, err := ctx.Hold()
	if err != nil {
		return nil, fmt.Errorf("stream.NewEvent: %w", err)
	}
	h, err := createEvent(ctx, hold, f)
	if err != nil {
		return nil, dropHold(hold, err)
	}
	return &Event{ctx: ctx, hold: hold, h: h, kind: ownedEvent, flags: f, flagsKnown: true}, nil
}

// createEvent creates an event with ctx bound through hold, and unbinds
// before returning, so that a failure may release the Hold.
func createEvent(ctx *driver.Context, hold *driver.Hold, f EventFlag) (uintptr, error) {
	b, err := hold.Bind()
	if err != nil {
		return 0, fmt.Errorf("stream.NewEvent: %w", err)
	}
	defer b.Unbind()
	h, r := ctx.API().EventCreate(uint32(f))
	if r != nil {
		return 0, fmt.Errorf("stream.NewEvent: %s: cuEventCreate(%s): %w", ctx, f, r)
	}
	return h, nil
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
	if ctx == nil {
		return nil, fmt.Errorf("stream.WrapEvent: handle %#x: nil context: %w", handle, driver.ErrInvalidValue)
	}
	if handle == 0 {
		return nil, fmt.Errorf("stream.WrapEvent: handle 0x0: %w", ErrNullHandle)
	}
	b, err := ctx.Bind()
	if err != nil {
		return nil, fmt.Errorf("stream.WrapEvent: handle %#x: %w", handle, err)
	}
	defer b.Unbind()
	if r := ctx.API().EventQuery(handle); r != nil && !isNotReady(r) {
		return nil, fmt.Errorf("stream.WrapEvent: handle %#x: %s: cuEventQuery: %w", handle, ctx, r)
	}
	return &Event{ctx: ctx, h: handle, kind: wrappedEvent}, nil
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

// bind makes the event's context current for a call that needs it: through
// the event's Hold for an owned or IPC-opened event (which works after the
// Context's Release, until Close), through the Context for a wrapped one.
func (e *Event) bind() (driver.Binding, error) {
	if e.hold != nil {
		return e.hold.Bind()
	}
	return e.ctx.Bind()
}

// check reports a nil, zero or closed event.
func (e *Event) check() error {
	if e == nil || e.ctx == nil {
		return errNilEvent
	}
	if e.closed.Load() {
		return fmt.Errorf("event %#x: %w", e.h, ErrClosed)
	}
	return nil
}

var errNilEvent = fmt.Errorf("stream: nil or zero event: %w", driver.ErrInvalidValue)

// Record captures the work queued on s so far (cuEventRecord): the event
// completes when that work is done. s must belong to the event's context;
// otherwise Record returns an error wrapping ErrWrongContext before calling
// the driver. On a stream that is not special it binds nothing and
// allocates nothing.
func (e *Event) Record(s *Stream) error {
	if err := e.check(); err != nil {
		return err
	}
	if err := s.check(); err != nil {
		return fmt.Errorf("stream: %s: Record: %w", e, err)
	}
	if s.ctx != e.ctx && s.ctx.Handle() != e.ctx.Handle() {
		return fmt.Errorf("stream: %s: Record on %s: %w", e, s, ErrWrongContext)
	}
	b, err := s.Use()
	if err != nil {
		return err
	}
	defer b.Unbind()
	if r := e.ctx.API().EventRecord(e.h, s.h); r != nil {
		return fmt.Errorf("stream: %s: cuEventRecord(%s): %w", e, s, r)
	}
	if !e.recorded.Load() {
		e.recorded.Store(true)
	}
	return nil
}

// Synchronize blocks until the event completes (cuEventSynchronize). An
// event never recorded is complete.
func (e *Event) Synchronize() error {
	if err := e.check(); err != nil {
		return err
	}
	if r := e.ctx.API().EventSynchronize(e.h); r != nil {
		return fmt.Errorf("stream: %s: cuEventSynchronize: %w", e, r)
	}
	return nil
}

// Query reports whether the event has completed (cuEventQuery). Work still
// pending is (false, nil), not an error. It allocates nothing.
func (e *Event) Query() (bool, error) {
	if err := e.check(); err != nil {
		return false, err
	}
	r := e.ctx.API().EventQuery(e.h)
	if r == nil {
		return true, nil
	}
	if isNotReady(r) {
		return false, nil
	}
	return false, fmt.Errorf("stream: %s: cuEventQuery: %w", e, r)
}

// Close ends this Event: an owned event is destroyed (cuEventDestroy; a
// pending record still completes), an event opened with OpenIPCEvent is
// released (cuEventDestroy on this process's handle), and both then let go
// of their context, which ends here if the Context was released and nothing
// else holds it (that error is returned too). A wrapped event is only
// detached. Afterwards every operation returns an error wrapping ErrClosed;
// a second Close is a no-op that returns nil. If the driver fails to destroy
// the event, the error is returned and the Event stays open, so that Close
// can be retried.
func (e *Event) Close() error {
	if e == nil || e.ctx == nil {
		return errNilEvent
	}
	if !e.closed.CompareAndSwap(false, true) {
		return nil
	}
	if e.kind == wrappedEvent {
		return nil
	}
	if err := destroy(e.hold, e.ctx.API(), e.h, driver.API.EventDestroy, e, "cuEventDestroy"); err != nil {
		e.closed.Store(false)
		return err
	}
	return releaseHold(e.hold, e)
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
	if e.closed.Load() {
		what = "closed " + what
	}
	return what + " (" + e.ctx.String() + ")"
}
