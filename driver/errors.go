package driver

import (
	"errors"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// ErrClosed is wrapped by the error of every operation on an object after
// its Close, Release, Free or Unload, in every package of this library
// (stream, memory, module, graph, nccl): it is declared once, here, and
// matched with errors.Is(err, driver.ErrClosed).
var ErrClosed = core.ErrClosed

// ErrWrongContext is wrapped by the error of every operation given a handle,
// pointer, buffer, stream or kernel that belongs to another context (or
// device) than the one it was used with, in every package of this library:
// it is declared once, here.
var ErrWrongContext = errors.New("driver: wrong context")

// Result is a CUresult, the status code every driver API call returns. The
// zero value is success; every other value is an error whose text is the
// CUDA name and description ("CUDA_ERROR_INVALID_VALUE: invalid argument"),
// and which matches the constants below with errors.Is:
//
//	if errors.Is(err, driver.ErrNotReady) { ... }
//
// It is backend.Result under the user's name (an alias, so that a backend's
// errors reach users unconverted): users never need to import
// driver/backend.
type Result = backend.Result

// The CUresult codes the library names. Any other code is still a Result
// and prints its CUDA name.
const (
	ErrInvalidValue             = backend.ErrInvalidValue
	ErrOutOfMemory              = backend.ErrOutOfMemory
	ErrNotInitialized           = backend.ErrNotInitialized
	ErrDeinitialized            = backend.ErrDeinitialized
	ErrStubLibrary              = backend.ErrStubLibrary
	ErrDeviceUnavailable        = backend.ErrDeviceUnavailable
	ErrNoDevice                 = backend.ErrNoDevice
	ErrInvalidDevice            = backend.ErrInvalidDevice
	ErrInvalidImage             = backend.ErrInvalidImage
	ErrInvalidContext           = backend.ErrInvalidContext
	ErrContextAlreadyCurrent    = backend.ErrContextAlreadyCurrent
	ErrNoBinaryForGPU           = backend.ErrNoBinaryForGPU
	ErrPeerAccessUnsupported    = backend.ErrPeerAccessUnsupported
	ErrInvalidPTX               = backend.ErrInvalidPTX
	ErrUnsupportedPTXVersion    = backend.ErrUnsupportedPTXVersion
	ErrInvalidSource            = backend.ErrInvalidSource
	ErrFileNotFound             = backend.ErrFileNotFound
	ErrInvalidHandle            = backend.ErrInvalidHandle
	ErrIllegalState             = backend.ErrIllegalState
	ErrNotFound                 = backend.ErrNotFound
	ErrNotReady                 = backend.ErrNotReady
	ErrIllegalAddress           = backend.ErrIllegalAddress
	ErrLaunchOutOfResources     = backend.ErrLaunchOutOfResources
	ErrPeerAccessAlreadyEnabled = backend.ErrPeerAccessAlreadyEnabled
	ErrPeerAccessNotEnabled     = backend.ErrPeerAccessNotEnabled
	ErrPrimaryContextActive     = backend.ErrPrimaryContextActive
	ErrContextIsDestroyed       = backend.ErrContextIsDestroyed
	ErrLaunchFailed             = backend.ErrLaunchFailed
	ErrNotPermitted             = backend.ErrNotPermitted
	ErrNotSupported             = backend.ErrNotSupported
	ErrUnknown                  = backend.ErrUnknown
)

// IPCHandle is an interprocess handle (CUipcMemHandle / CUipcEventHandle):
// 64 opaque bytes that another process opens (see memory.OpenIPC and
// stream.OpenIPCEvent).
//
// It is backend.IPCHandle under the user's name (an alias): users never need
// to import driver/backend.
type IPCHandle = backend.IPCHandle

// ErrStickyFault marks the errors of a sticky fault: a kernel that faulted
// (an illegal address, a device-side assert, an unspecified launch failure;
// see Result.Sticky). NVIDIA's driver then refuses all further work in the
// process, in every context: on the H200 with driver 580, new contexts
// cannot be made either, even after Device.ResetPrimaryContext, and NVIDIA
// documents that the process must be restarted. What the library does:
// the error says so; closing objects succeeds (a Close that the dead
// context refuses closes the object all the same and returns the error
// marked with ErrStickyFault and ErrClosedAnyway), so nothing is left half
// open; and the
// process can then exit cleanly. A server that must survive a faulting
// kernel runs that GPU work in a child process it can restart.
var ErrStickyFault = core.ErrStickyFault

// ErrClosedAnyway is wrapped by the error of a Close (Free, Unload, ...)
// that closed its object although its driver call failed, because the
// object went with its context: after a sticky fault (the error then
// wraps ErrStickyFault too), or once the context was destroyed or the
// driver shut down. The object is closed (a second Close returns nil) and
// nothing is left to retry. Every other error of a Close leaves the object
// open, for a retry:
//
//	if err := buf.Close(); err != nil && !errors.Is(err, driver.ErrClosedAnyway) {
//		// retry later
//	}
var ErrClosedAnyway = core.ErrClosedAnyway
