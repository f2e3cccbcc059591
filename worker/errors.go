package worker

import (
	"errors"
	"fmt"

	"github.com/nocgo/cuda/driver"
)

// ErrWorkerExited is wrapped by the error of a call whose worker ended
// without answering: it crashed (a segfault, os.Exit, a Go fatal error,
// runtime.Goexit in the function), was killed from outside, or lost its
// pipes. The worker is replaced; the call's effects on its buffers are
// those it made before it ended.
var ErrWorkerExited = errors.New("worker: the worker process exited during the call")

// ErrPanicked is wrapped by the error of a call whose function panicked
// in the worker. The panic's value and stack are in the error's text; the
// worker is replaced, since the function may have left it half way through.
var ErrPanicked = errors.New("worker: the function panicked in the worker")

// ErrStart is wrapped by the error of a call that found no worker able to
// start: the child process (or the fake's process) could not be started,
// or did not greet in time (Options.StartTimeout). The next call tries to
// start one again.
var ErrStart = errors.New("worker: the worker could not start")

// Failure says how a call ended when it did not end with its function's
// result.
type Failure int

// The ways a call fails.
const (
	// Returned: the function returned an error; the worker stays.
	Returned Failure = iota + 1
	// Faulted: the worker hit a sticky fault (a kernel faulted); it is
	// replaced. The error wraps driver.ErrStickyFault and the fault's
	// driver.Result.
	Faulted
	// Panicked: the function panicked; the worker is replaced. The error
	// wraps ErrPanicked.
	Panicked
	// Exited: the worker died during the call; it is replaced. The error
	// wraps ErrWorkerExited.
	Exited
	// Expired: the call's context ended first; the worker was killed and
	// is replaced. The error wraps the context's error.
	Expired
)

// String names the failure ("faulted").
func (f Failure) String() string {
	switch f {
	case Returned:
		return "returned an error"
	case Faulted:
		return "faulted"
	case Panicked:
		return "panicked"
	case Exited:
		return "exited"
	case Expired:
		return "expired"
	}
	return fmt.Sprintf("Failure(%d)", int(f))
}

// CallError is the error of a call that the worker did not complete with
// a result: its function returned an error, the worker faulted, panicked,
// died or was killed at the call's deadline. It carries the worker's own
// error text, since Go errors do not cross processes; errors.Is matches
// the driver.Result the worker's error wrapped (as its code), and the
// sentinel of its Failure (driver.ErrStickyFault, ErrPanicked,
// ErrWorkerExited, or the context's error).
type CallError struct {
	Func    string        // the registered name of the function called
	Worker  int           // the worker's process id (for the fake, its serial number)
	Failure Failure       // how the call ended
	Text    string        // the worker's error text (the function's error, the fault, the panic and its stack)
	Code    driver.Result // the driver.Result the worker's error wrapped; 0 when it wrapped none, as for a panic or an exit (Error and String then name no CUDA code): test Failure first
	cause   error         // the context's error for Expired
}

// Error describes the failure, with the worker's text.
func (e *CallError) Error() string {
	msg := fmt.Sprintf("worker: %s in worker %d: %s", e.Func, e.Worker, e.Failure)
	if e.Failure == Faulted {
		msg += " (a sticky fault; the worker is replaced, this process and its buffers are unharmed)"
	}
	if e.Failure == Expired && e.cause != nil {
		msg += ": " + e.cause.Error() + "; the worker was killed"
	}
	if e.Text != "" {
		msg += ": " + e.Text
	}
	return msg
}

// String is Error, so that a CallError printed as a value (fmt's %v or
// %+v of *err) reads as its message, not as its fields, among them a zero
// Code that would print as CUDA_SUCCESS.
func (e CallError) String() string { return e.Error() }

// Unwrap returns the sentinel of the failure and the worker's driver.Result.
func (e *CallError) Unwrap() []error {
	var errs []error
	switch e.Failure {
	case Faulted:
		errs = append(errs, driver.ErrStickyFault)
	case Panicked:
		errs = append(errs, ErrPanicked)
	case Exited:
		errs = append(errs, ErrWorkerExited)
	case Expired:
		if e.cause != nil {
			errs = append(errs, e.cause)
		}
	}
	if e.Code != 0 {
		errs = append(errs, e.Code)
	}
	return errs
}
