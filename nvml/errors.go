package nvml

import (
	"errors"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// Return is an nvmlReturn_t other than NVML_SUCCESS: the error code of a
// failed NVML call, matched with errors.Is. It is backend.NVMLReturn under
// the user's name.
type Return = backend.NVMLReturn

// The NVML errors programs test for (nvmlReturn_t; the NVML API reference,
// "Error reporting").
const (
	// ErrUninitialized: NVML was not initialised (or shut down).
	ErrUninitialized Return = backend.NVMLUninitialized
	// ErrInvalidArgument: a bad argument (a handle of no device, an index
	// out of range, a link or counter the device has not).
	ErrInvalidArgument Return = backend.NVMLInvalidArgument
	// ErrNotSupported: the device or the driver does not do this (a query of
	// fans on a GPU without fans, a whole-GPU query of a MIG device).
	ErrNotSupported Return = backend.NVMLNotSupported
	// ErrNoPermission: the caller lacks the privilege.
	ErrNoPermission Return = backend.NVMLNoPermission
	// ErrNotFound: no device has the UUID or PCI bus id asked for.
	ErrNotFound Return = backend.NVMLNotFound
	// ErrInsufficientSize: a buffer was too small (the binding retries).
	ErrInsufficientSize Return = backend.NVMLInsufficientSize
	// ErrDriverNotLoaded: the NVIDIA kernel driver is not running.
	ErrDriverNotLoaded Return = backend.NVMLDriverNotLoaded
	// ErrTimeout: a wait ended with no event (EventSet.Wait retries it).
	ErrTimeout Return = backend.NVMLTimeout
	// ErrGPUIsLost: the GPU has fallen off the bus or otherwise become
	// inaccessible; it needs a reset or a reboot.
	ErrGPUIsLost Return = backend.NVMLGPUIsLost
	// ErrResetRequired: the GPU needs a reset before it can be used.
	ErrResetRequired Return = backend.NVMLResetRequired
	// ErrLibRMVersionMismatch: libnvidia-ml and the kernel driver differ.
	ErrLibRMVersionMismatch Return = backend.NVMLLibRMVersionMismatch
	// ErrInUse: the operation cannot run while the GPU is in use.
	ErrInUse Return = backend.NVMLInUse
	// ErrNoData: no data is available yet.
	ErrNoData Return = backend.NVMLNoData
	// ErrUnknown: an internal driver error.
	ErrUnknown Return = backend.NVMLUnknown
)

// ErrClosed is returned by every use of a closed Library and of what was
// got from it.
var ErrClosed = driver.ErrClosed

// ErrInvalidValue is matched (with errors.Is) by the errors of nil and zero
// values and of bad arguments refused before NVML is called: they wrap
// [driver.ErrInvalidInput], which matches it and says no library was asked.
var ErrInvalidValue = driver.ErrInvalidValue

// errNoNVML is the cause of Open on a backend without NVML.
var errNoNVML = errors.New("this backend has no NVML (backend.NVMLProvider)")
