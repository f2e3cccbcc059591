package driver

import (
	"errors"
	"fmt"
	"math"

	"github.com/nocgo/cuda/driver/backend"
)

// Limit is a context resource limit (a CUlimit, with the same values),
// read with Context.Limit and set with Context.SetLimit.
type Limit uint32

// Context limits. Sizes are in bytes.
const (
	// LimitStackSize is the stack of each GPU thread. The driver grows it
	// for a launch that needs more, and keeps the larger size.
	LimitStackSize Limit = 0
	// LimitPrintfFIFOSize is the FIFO of the device-side printf; it must be
	// set before a kernel that calls printf runs (CUDA_ERROR_INVALID_VALUE
	// after).
	LimitPrintfFIFOSize Limit = 1
	// LimitMallocHeapSize is the heap of the device-side malloc and free;
	// it must be set before a kernel that uses them runs.
	LimitMallocHeapSize Limit = 2
	// LimitDevRuntimeSyncDepth is the grid depth at which device code may
	// call cudaDeviceSynchronize. Devices of compute capability 9.0 and up
	// (the H200) have no such call, and answer ErrUnsupportedLimit.
	LimitDevRuntimeSyncDepth Limit = 3
	// LimitDevRuntimePendingLaunchCount is how many device-side launches
	// may be outstanding.
	LimitDevRuntimePendingLaunchCount Limit = 4
	// LimitMaxL2FetchGranularity is the L2 fetch granularity, 0 to 128
	// bytes: a hint the driver may ignore or clamp.
	LimitMaxL2FetchGranularity Limit = 5
	// LimitPersistingL2CacheSize is the L2 set aside for accesses marked
	// persisting: a hint, clamped to Properties.PersistingL2CacheMaxSize.
	LimitPersistingL2CacheSize Limit = 6
	// LimitSharedMemSize is the shared memory of kernels in a CIG (CUDA in
	// graphics) context; read only.
	LimitSharedMemSize Limit = 7
	// LimitCIGEnabled tells whether the context is a CIG context; read only.
	LimitCIGEnabled Limit = 8
	// LimitCIGSharedMemFallbackEnabled tells whether kernels of a CIG
	// context may run with less shared memory than they asked for.
	LimitCIGSharedMemFallbackEnabled Limit = 9
)

// ErrUnsupportedLimit is CUDA_ERROR_UNSUPPORTED_LIMIT: the device has no
// such limit (LimitDevRuntimeSyncDepth on compute capability 9.0 and up).
const ErrUnsupportedLimit = backend.ErrUnsupportedLimit

// limitNames are the CUlimit names, for errors.
var limitNames = [...]string{
	"CU_LIMIT_STACK_SIZE", "CU_LIMIT_PRINTF_FIFO_SIZE", "CU_LIMIT_MALLOC_HEAP_SIZE",
	"CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH", "CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT",
	"CU_LIMIT_MAX_L2_FETCH_GRANULARITY", "CU_LIMIT_PERSISTING_L2_CACHE_SIZE",
	"CU_LIMIT_SHMEM_SIZE", "CU_LIMIT_CIG_ENABLED", "CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED",
}

// String returns the CUlimit's name in cuda.h ("CU_LIMIT_STACK_SIZE"), or
// "CUlimit(n)" for a value it does not know.
func (l Limit) String() string {
	if int(l) < len(limitNames) {
		return limitNames[l]
	}
	return fmt.Sprintf("CUlimit(%d)", uint32(l))
}

// contextConfig returns c's backend as a backend.ContextConfig, or op's
// error wrapping errors.ErrUnsupported.
func (c *Context) contextConfig(op string) (backend.ContextConfig, error) {
	cc, ok := c.state().API.(backend.ContextConfig)
	if !ok {
		return nil, fmt.Errorf("%s: the backend has no context limits or cache configuration (backend.ContextConfig): %w", op, errors.ErrUnsupported)
	}
	return cc, nil
}

// checkLimit refuses a limit the driver does not know, before any call.
func (c *Context) checkLimit(op string, l Limit) error {
	if l >= Limit(backend.LimitMax) {
		return fmt.Errorf("%s: %s: %s: no such limit: %w", op, c, l, ErrInvalidValue)
	}
	return nil
}

// Limit returns the value of limit l in c (cuCtxGetLimit, with c current):
// the value the driver keeps, which may differ from what SetLimit was
// given. A limit the device does not have is an error wrapping
// ErrUnsupportedLimit; one the driver does not know, ErrInvalidValue.
func (c *Context) Limit(l Limit) (uint64, error) {
	const op = "driver.Context.Limit"
	if c.state() == nil {
		return 0, nilContext(op)
	}
	if err := c.checkLimit(op, l); err != nil {
		return 0, err
	}
	cc, err := c.contextConfig(op)
	if err != nil {
		return 0, err
	}
	var v uintptr
	err = c.state().Do(func(backend.API) error {
		var r error
		if v, r = cc.CtxGetLimit(backend.Limit(l)); r != nil {
			return fmt.Errorf("%s: cuCtxGetLimit(%s): %w", c, l, r)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	return uint64(v), nil
}

// SetLimit asks the driver to set limit l of c to value (cuCtxSetLimit,
// with c current) and returns the value it kept (cuCtxGetLimit): the
// driver may round or clamp what it is given (see the Limit constants).
// The limit is the context's, so for the primary context it is shared with
// every other user of it in the process. A limit the device does not have
// is an error wrapping ErrUnsupportedLimit (nothing changed); a read-only
// limit (LimitSharedMemSize, LimitCIGEnabled) ErrNotPermitted, as the
// H200's driver answers; a value out of the limit's range, or one set too late
// (LimitPrintfFIFOSize, LimitMallocHeapSize after a kernel used them),
// ErrInvalidValue.
func (c *Context) SetLimit(l Limit, value uint64) (uint64, error) {
	const op = "driver.Context.SetLimit"
	if c.state() == nil {
		return 0, nilContext(op)
	}
	if err := c.checkLimit(op, l); err != nil {
		return 0, err
	}
	if value > math.MaxUint {
		return 0, fmt.Errorf("%s: %s: %s: %d does not fit a size_t: %w", op, c, l, value, ErrInvalidValue)
	}
	cc, err := c.contextConfig(op)
	if err != nil {
		return 0, err
	}
	var kept uintptr
	err = c.state().Do(func(backend.API) error {
		if r := cc.CtxSetLimit(backend.Limit(l), uintptr(value)); r != nil {
			return fmt.Errorf("%s: cuCtxSetLimit(%s, %d): %w", c, l, value, r)
		}
		var r error
		if kept, r = cc.CtxGetLimit(backend.Limit(l)); r != nil {
			return fmt.Errorf("%s: cuCtxGetLimit(%s): %w", c, l, r)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	return uint64(kept), nil
}
