package graph

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// The driver's errors of stream capture and graph update, usable with
// errors.Is.
var (
	ErrCaptureUnsupported = driver.Result(backend.ErrStreamCaptureUnsupported) // not permitted while capturing
	ErrCaptureInvalidated = driver.Result(backend.ErrStreamCaptureInvalidated) // the capture failed earlier
	ErrCaptureMerge       = driver.Result(backend.ErrStreamCaptureMerge)       // two captures would merge
	ErrCaptureUnmatched   = driver.Result(backend.ErrStreamCaptureUnmatched)   // ended on another stream than begun
	ErrCaptureUnjoined    = driver.Result(backend.ErrStreamCaptureUnjoined)    // a forked stream was not joined back
	ErrCaptureIsolation   = driver.Result(backend.ErrStreamCaptureIsolation)   // dependency on uncaptured work
	ErrCaptureImplicit    = driver.Result(backend.ErrStreamCaptureImplicit)    // the legacy stream would depend on a capture
	ErrCapturedEvent      = driver.Result(backend.ErrCapturedEvent)            // event last recorded in a capture
	ErrCaptureWrongThread = driver.Result(backend.ErrStreamCaptureWrongThread) // thread-local capture ended elsewhere
	ErrUpdateFailure      = driver.Result(backend.ErrGraphExecUpdateFailure)   // cuGraphExecUpdate refused
)

// UpdateResult is why the driver refused an update (CUgraphExecUpdateResult).
type UpdateResult int

// Update results.
const (
	UpdateSuccess                   UpdateResult = 0
	UpdateUnexpected                UpdateResult = 1
	UpdateTopologyChanged           UpdateResult = 2
	UpdateNodeTypeChanged           UpdateResult = 3
	UpdateFunctionChanged           UpdateResult = 4
	UpdateParametersChanged         UpdateResult = 5
	UpdateNotSupported              UpdateResult = 6
	UpdateUnsupportedFunctionChange UpdateResult = 7
	UpdateAttributesChanged         UpdateResult = 8
)

var updateText = map[UpdateResult]string{
	UpdateSuccess:                   "success",
	UpdateUnexpected:                "unexpected error",
	UpdateTopologyChanged:           "the topology changed",
	UpdateNodeTypeChanged:           "a node's type changed",
	UpdateFunctionChanged:           "a kernel node's function changed",
	UpdateParametersChanged:         "a node's parameters changed in an unsupported way",
	UpdateNotSupported:              "a node is not supported for update",
	UpdateUnsupportedFunctionChange: "a kernel node's function changed in an unsupported way",
	UpdateAttributesChanged:         "a node's attributes changed in an unsupported way",
}

// String describes the result.
func (r UpdateResult) String() string {
	if s, ok := updateText[r]; ok {
		return s
	}
	return fmt.Sprintf("update result %d", int(r))
}

// UpdateError is Exec.Update's error when the driver refuses an update:
// why, and the node of the new graph (and of the instantiated one) it
// refused, when the driver names one (0 otherwise). It wraps the driver's
// error (ErrUpdateFailure).
type UpdateError struct {
	Result   UpdateResult
	Node     uintptr // CUgraphNode of the new graph, or 0
	FromNode uintptr // CUgraphNode of the instantiated graph, or 0
	Err      error
}

// Error describes the refusal: why, the node, and the driver's error.
func (e *UpdateError) Error() string {
	if e == nil {
		return "graph.UpdateError: nil"
	}
	s := "update refused: " + e.Result.String()
	if e.Node != 0 {
		s += fmt.Sprintf(" (node %#x)", e.Node)
	}
	if e.Err == nil {
		return s
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns the driver's error (nil for a nil UpdateError).
func (e *UpdateError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// Shorthands for the driver's errors that checks here wrap.
var (
	errInvalid      = driver.ErrInvalidInput
	errWrongContext = driver.ErrWrongContext
)
