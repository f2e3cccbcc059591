package core

import (
	"errors"
	"fmt"

	"github.com/nocgo/cuda/driver/backend"
)

// ErrStickyFault marks the errors of a sticky fault (see
// backend.Result.Sticky). Package driver exports it.
var ErrStickyFault = errors.New("driver: a kernel faulted (a sticky error): the driver refuses all further CUDA work in this process, in every context, new ones too; close the objects (closing succeeds) and restart the process, or run GPU work that may fault in a child process")

// Unusable returns err marked with ErrStickyFault when it carries a sticky
// result, and err unchanged otherwise.
func Unusable(err error) error {
	var r backend.Result
	if err == nil || !errors.As(err, &r) || !r.Sticky() || errors.Is(err, ErrStickyFault) {
		return err
	}
	return fmt.Errorf("%w (%w)", err, ErrStickyFault)
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

// ErrClosedAnyway is driver.ErrClosedAnyway (see there): it marks the error
// of a teardown that closed its object although the driver call failed,
// because the object went with its context (Gone).
var ErrClosedAnyway = errors.New("driver: the object is closed all the same (it went with its context): nothing to retry")

// ClosedAnyway returns the error of a teardown that failed with err, which
// Gone reports, and closed its object all the same: err marked with
// ErrStickyFault for a sticky fault (Unusable), and with ErrClosedAnyway.
func ClosedAnyway(err error) error {
	return fmt.Errorf("%w; %w", Unusable(err), ErrClosedAnyway)
}
