package stream

import (
	"fmt"
	"time"

	"github.com/nocgo/cuda/driver"
)

// Elapsed returns the time between two recorded events
// (cuEventElapsedTime; the driver's resolution is about half a
// microsecond). It is an error when either event was created with
// DisableTiming or was never recorded (errors wrapping
// driver.ErrInvalidHandle, as the driver returns), and an error wrapping
// driver.ErrNotReady when either has not completed yet: synchronize end
// first.
func Elapsed(start, end *Event) (time.Duration, error) {
	if err := start.check(); err != nil {
		return 0, fmt.Errorf("stream.Elapsed: start: %w", err)
	}
	if err := end.check(); err != nil {
		return 0, fmt.Errorf("stream.Elapsed: end: %w", err)
	}
	for _, e := range [2]struct {
		name string
		ev   *Event
	}{{"start", start}, {"end", end}} {
		if e.ev.flagsKnown && e.ev.flags&DisableTiming != 0 {
			return 0, fmt.Errorf("stream.Elapsed: %s %s was created with DisableTiming: %w", e.name, e.ev, driver.ErrInvalidHandle)
		}
	}
	ms, r := start.ctx.API().EventElapsedTime(start.h, end.h)
	if r != nil {
		for _, e := range [2]struct {
			name string
			ev   *Event
		}{{"start", start}, {"end", end}} {
			if e.ev.kind == ownedEvent && !e.ev.recorded.Load() {
				return 0, fmt.Errorf("stream.Elapsed: %s %s was never recorded: cuEventElapsedTime: %w", e.name, e.ev, r)
			}
		}
		return 0, fmt.Errorf("stream.Elapsed(%s, %s): cuEventElapsedTime: %w", start, end, r)
	}
	return time.Duration(float64(ms) * float64(time.Millisecond)), nil
}
