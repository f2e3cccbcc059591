package fake

import (
	"errors"

	"github.com/nocgo/cuda/driver/backend"
)

// A sticky fault in a kernel (an illegal address, a misaligned address, a
// launch failure) poisons the process, as the real driver does: on the H200
// with driver 580, after one kernel wrote to an illegal address, every call
// that works in a context failed with the same error for the rest of the
// process, in every context, old or new, even after the primary context was
// reset (GPU run 8 of the 2026-11-30 session; NVIDIA documents that "the
// process must be terminated and relaunched"). A Backend stands for one
// process: once poisoned, it stays poisoned.

// survivesFault lists the entry points that still succeed in a poisoned
// process: device queries, the calling thread's context stack, and
// releasing or resetting the primary context.
var survivesFault = map[string]bool{
	"cuInit":                     true,
	"cuDriverGetVersion":         true,
	"cuDeviceGetCount":           true,
	"cuDeviceGet":                true,
	"cuDeviceGetName":            true,
	"cuDeviceGetAttribute":       true,
	"cuDeviceTotalMem":           true,
	"cuDeviceGetUuid":            true,
	"cuDeviceGetPCIBusId":        true,
	"cuDeviceCanAccessPeer":      true,
	"cuDevicePrimaryCtxRelease":  true,
	"cuDevicePrimaryCtxGetState": true,
	"cuDevicePrimaryCtxReset":    true,
	"cuCtxGetCurrent":            true,
	"cuCtxSetCurrent":            true,
	"cuCtxPushCurrent":           true,
	"cuCtxPopCurrent":            true,
	"cuCtxGetDevice":             true,
	"cuCtxGetApiVersion":         true,
}

// noteFault poisons the backend when err, the outcome of running queued
// work, is a sticky fault.
func (b *fakeBackend) noteFault(err error) {
	var r backend.Result
	if !errors.As(err, &r) || !r.Sticky() {
		return
	}
	e := error(r)
	b.poison.CompareAndSwap(nil, &e)
}
