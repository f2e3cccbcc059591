package stream

import (
	"fmt"
	"time"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// Elapsed returns the time between two recorded events
// (cuEventElapsedTime; the driver's resolution is about half a
// microsecond); it is negative when end completed before start. It is an
// error when either event was created with DisableTiming or was never
// recorded (errors wrapping driver.ErrInvalidHandle, as the driver
// returns), and an error wrapping driver.ErrNotReady when either has not
// completed yet: synchronize end first.
//
// Both checks are made before calling the driver for events made by
// NewEvent, which know their flags and whether Event.Record has run (an
// owned event recorded only through raw driver calls counts as never
// recorded). For wrapped and IPC-opened events the driver decides.
//
// The call binds start's context.
func Elapsed(start, end *Event) (time.Duration, error) {
	if err := start.check(); err != nil {
		return 0, fmt.Errorf("stream.Elapsed: start: %w", err)
	}
	if err := end.check(); err != nil {
		return 0, fmt.Errorf("stream.Elapsed: end: %w", err)
	}
	if start.ctx.Driver() != end.ctx.Driver() {
		return 0, fmt.Errorf("stream.Elapsed: %s and %s belong to different *driver.Driver values: %w", start, end, driver.ErrWrongContext)
	}
	if err := timingErr("start", start); err != nil {
		return 0, err
	}
	if err := timingErr("end", end); err != nil {
		return 0, err
	}
	if err := end.use(); err != nil {
		return 0, fmt.Errorf("stream.Elapsed: end: %w", err)
	}
	defer end.hold.Unuse()
	var ms float32
	err := start.hold.Do(func(api backend.API) error {
		var r error
		if ms, r = api.EventElapsedTime(start.h, end.h); r != nil {
			return fmt.Errorf("stream.Elapsed: start %s, end %s: cuEventElapsedTime: %w", start, end, r)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return time.Duration(float64(ms) * float64(time.Millisecond)), nil
}

// timingErr reports what this package knows makes ev unusable for Elapsed.
func timingErr(name string, ev *Event) error {
	if ev.flagsKnown && ev.flags&DisableTiming != 0 {
		return fmt.Errorf("stream.Elapsed: %s %s was created with DisableTiming: %w", name, ev, driver.ErrInvalidHandle)
	}
	if ev.kind == ownedEvent && !ev.recorded.Load() {
		return fmt.Errorf("stream.Elapsed: %s %s was never recorded: %w", name, ev, driver.ErrInvalidHandle)
	}
	return nil
}
