package core

import (
	"errors"
	"fmt"

	"github.com/nocgo/cuda/driver/backend"
)

// ErrContextUnusable marks errors of a context that a sticky fault (see
// backend.Result.Sticky) has made unusable. Package driver exports it.
var ErrContextUnusable = errors.New("the context is unusable after a fault in a kernel: close every object made in it and its Context, then Device.ResetPrimaryContext for the primary context (an owned context is gone once closed), and make new objects")

// Unusable returns err marked with ErrContextUnusable when it carries a
// sticky result, and err unchanged otherwise.
func Unusable(err error) error {
	var r backend.Result
	if err == nil || !errors.As(err, &r) || !r.Sticky() || errors.Is(err, ErrContextUnusable) {
		return err
	}
	return fmt.Errorf("%w (%w)", err, ErrContextUnusable)
}

// Gone reports whether a failed teardown says the object went with its
// context: a sticky fault, a destroyed context, or a driver shutting down.
// The object is closed all the same; nothing is left to retry.
func Gone(err error) bool {
	var r backend.Result
	if !errors.As(err, &r) {
		return false
	}
	return r.Sticky() || r == backend.ErrContextIsDestroyed || r == backend.ErrDeinitialized
}
