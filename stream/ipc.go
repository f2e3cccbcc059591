package stream

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// IPCHandle returns the interprocess handle of an event created with
// Interprocess (and DisableTiming) (cuIpcGetEventHandle), for another
// process to open with OpenIPCEvent. The handle is plain data: send it any
// way you like. An event created without Interprocess is an error
// wrapping driver.ErrInvalidHandle, as the driver returns; for an owned
// event it is caught before calling the driver. The driver needs the event's
// context current: it is bound for the call.
func (e *Event) IPCHandle() (driver.IPCHandle, error) {
	const op = "stream.Event.IPCHandle"
	if err := e.check(); err != nil {
		return driver.IPCHandle{}, fmt.Errorf("%s: %w", op, err)
	}
	if e.flagsKnown && e.flags&Interprocess == 0 {
		return driver.IPCHandle{}, fmt.Errorf("%s: %s: the event was not created with stream.Interprocess: %w", op, e, driver.ErrInvalidHandle)
	}
	var h driver.IPCHandle
	err := e.hold.Do(func(api backend.API) error {
		var r error
		if h, r = api.IPCGetEventHandle(e.h); r != nil {
			return fmt.Errorf("%s: cuIpcGetEventHandle: %w", e, r)
		}
		return nil
	})
	if err != nil {
		return driver.IPCHandle{}, fmt.Errorf("%s: %w", op, err)
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
// ctx until Close (see driver.Context).
func OpenIPCEvent(ctx *driver.Context, h driver.IPCHandle) (*Event, error) {
	c, err := core.Of("stream.OpenIPCEvent", ctx)
	if err != nil {
		return nil, err
	}
	if h == (driver.IPCHandle{}) {
		return nil, fmt.Errorf("stream.OpenIPCEvent: all-zero IPC handle: %w", driver.ErrInvalidInput)
	}
	hold, err := c.Hold()
	if err != nil {
		return nil, fmt.Errorf("stream.OpenIPCEvent: %w", err)
	}
	var ev uintptr
	err = hold.Do(func(api backend.API) error {
		var r error
		if ev, r = api.IPCOpenEventHandle(h); r != nil {
			return fmt.Errorf("stream.OpenIPCEvent: %s: cuIpcOpenEventHandle: %w", ctx, r)
		}
		return nil
	})
	if err != nil {
		if ev != 0 { // opened, but unbinding failed
			err = hold.Undo(err, func(api backend.API) error { return api.EventDestroy(ev) })
		}
		return nil, hold.Drop(err)
	}
	return &Event{ctx: ctx, hold: hold, h: ev, kind: openedEvent, flags: Interprocess | DisableTiming, flagsKnown: true}, nil
}
