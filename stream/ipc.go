package stream

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
)

// IPCHandle returns the interprocess handle of an event created with
// Interprocess (and DisableTiming) (cuIpcGetEventHandle), for another
// process to open with OpenIPCEvent. The handle is plain data: send it any
// way you like. An event created without Interprocess is an error
// wrapping driver.ErrInvalidHandle, as the driver returns; for an owned
// event it is caught before calling the driver. The driver needs the event's
// context current: it is bound through the event's Hold for an owned or
// IPC-opened event (this works after the Context's Release), through the
// Context for a wrapped one (ErrClosed after the Context's Release).
func (e *Event) IPCHandle() (driver.IPCHandle, error) {
	if err := e.check(); err != nil {
		return driver.IPCHandle{}, err
	}
	if e.flagsKnown && e.flags&Interprocess == 0 {
		return driver.IPCHandle{}, fmt.Errorf("stream: %s: IPCHandle: the event was not created with stream.Interprocess: %w", e, driver.ErrInvalidHandle)
	}
	b, err := e.bind()
	if err != nil {
		return driver.IPCHandle{}, fmt.Errorf("stream: %s: IPCHandle: %w", e, err)
	}
	h, r := e.ctx.API().IpcGetEventHandle(e.h)
	b.Unbind()
	if r != nil {
		return driver.IPCHandle{}, fmt.Errorf("stream: %s: cuIpcGetEventHandle: %w", e, r)
	}
	return h, nil
}

// OpenIPCEvent opens an event exported by another process with
// Event.IPCHandle (cuIpcOpenEventHandle) in ctx. The exporting process owns
// the event; this process holds a reference that Close releases
// (cuEventDestroy). The opened event has the flags Interprocess and
// DisableTiming; Record, Query, Synchronize and Stream.Wait work on it, in
// either process (the driver shares its state). Opening a handle in the
// process that exported it fails with an error wrapping
// driver.ErrInvalidContext, as the driver returns. The opened event holds
// ctx (driver.Context.Hold) until Close, so it keeps working after
// ctx.Release.
func OpenIPCEvent(ctx *driver.Context, h driver.IPCHandle) (*Event, error) {
	if ctx == nil {
		return nil, fmt.Errorf("stream.OpenIPCEvent: nil context: %w", driver.ErrInvalidValue)
	}
	if h == (driver.IPCHandle{}) {
		return nil, fmt.Errorf("stream.OpenIPCEvent: all-zero IPC handle: %w", driver.ErrInvalidValue)
	}
	hold, err := ctx.Hold()
	if err != nil {
		return nil, fmt.Errorf("stream.OpenIPCEvent: %w", err)
	}
	ev, err := openIPCEvent(ctx, hold, h)
	if err != nil {
		return nil, dropHold(hold, err)
	}
	return &Event{ctx: ctx, hold: hold, h: ev, kind: openedEvent, flags: Interprocess | DisableTiming, flagsKnown: true}, nil
}

// openIPCEvent opens the handle with ctx bound through hold, and unbinds
// before returning, so that a failure may release the Hold.
func openIPCEvent(ctx *driver.Context, hold *driver.Hold, h driver.IPCHandle) (uintptr, error) {
	b, err := hold.Bind()
	if err != nil {
		return 0, fmt.Errorf("stream.OpenIPCEvent: %w", err)
	}
	defer b.Unbind()
	ev, r := ctx.API().IpcOpenEventHandle(h)
	if r != nil {
		return 0, fmt.Errorf("stream.OpenIPCEvent: %s: cuIpcOpenEventHandle: %w", ctx, r)
	}
	return ev, nil
}
