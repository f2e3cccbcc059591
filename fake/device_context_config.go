package fake

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
)

// ctxConfig is a context's limits and cache preferences. The zero value is
// a fresh context's: every limit at its default (limitDefault), no cache
// preference. A context's activation (creation, or a primary context
// retained again after its release or reset) starts from the zero value.
type ctxConfig struct {
	limits [backend.LimitMax]uintptr
	set    [backend.LimitMax]bool // limits[l] was set
	cache  backend.CacheConfig
}

// The defaults the fake gives a context's limits, those of CUDA 13 on a
// Hopper GPU: a 1 KiB stack per thread, a 1 MiB printf FIFO, an 8 MiB
// malloc heap, 2048 pending device-side launches, a 64-byte L2 fetch
// granularity, no persisting L2.
const (
	defaultStackSize       = 1024
	defaultPrintfFIFOSize  = 8650752 // 8.25 MiB on driver 580 (H200 run S2)
	defaultMallocHeapSize  = 8 << 20
	defaultSyncDepth       = 2
	defaultPendingLaunches = 2048
	defaultL2Fetch         = 64
	maxL2Fetch             = 128
)

// limitSupported reports whether device d has limit l for a context that is
// no CIG context (the fake makes none): the device runtime's sync depth
// exists below compute capability 9.0 only, and the CIG shared-memory
// limits in CIG contexts only.
func limitSupported(d *device, l backend.Limit) bool {
	switch l {
	case backend.LimitDevRuntimeSyncDepth:
		return d.attrs[driver.AttrComputeCapabilityMajor] < 9
	case backend.LimitCIGSharedMemFallbackEnabled:
		return false
	}
	return true
}

// limitDefault is limit l's value in a fresh context on d.
func limitDefault(l backend.Limit) uintptr {
	switch l {
	case backend.LimitStackSize:
		return defaultStackSize
	case backend.LimitPrintfFIFOSize:
		return defaultPrintfFIFOSize
	case backend.LimitMallocHeapSize:
		return defaultMallocHeapSize
	case backend.LimitDevRuntimeSyncDepth:
		return defaultSyncDepth
	case backend.LimitDevRuntimePendingLaunchCount:
		return defaultPendingLaunches
	case backend.LimitMaxL2FetchGranularity:
		return defaultL2Fetch
	}
	return 0 // persisting L2, CIG enabled
}

// maxStackSize bounds CU_LIMIT_STACK_SIZE: the H200 (run S2) grants 64 KiB
// and refuses 512 KiB with INVALID_VALUE; the bound between is not
// measured.
const maxStackSize = 256 << 10

// roundUp rounds v up to a multiple of step.
func roundUp(v, step uintptr) uintptr { return (v + step - 1) / step * step }

// CtxGetLimit is cuCtxGetLimit on the current context.
func (b *fakeBackend) CtxGetLimit(l backend.Limit) (uintptr, error) {
	if err := b.enter(abi.CuCtxGetLimit); err != nil {
		return 0, err
	}
	c, err := b.current()
	if err != nil {
		return 0, err
	}
	if l >= backend.LimitMax {
		return 0, driver.ErrInvalidValue
	}
	if !limitSupported(c.dev, l) {
		return 0, backend.ErrUnsupportedLimit
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	if c.cfg.set[l] {
		return c.cfg.limits[l], nil
	}
	if l == backend.LimitSharedMemSize { // the opt-in shared memory per block: 232448 on the H200
		return uintptr(max(c.dev.attrs[driver.AttrMaxSharedMemoryPerBlockOptin], 0)), nil
	}
	return limitDefault(l), nil
}

// CtxSetLimit is cuCtxSetLimit on the current context, with the driver's
// documented adjustments: the L2 fetch granularity is clamped to 128
// bytes, the persisting L2 size to the device's maximum
// (CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE); a stack that every
// resident thread of the device could not have at once in its memory is
// CUDA_ERROR_OUT_OF_MEMORY; the read-only limits (the CIG ones) are
// CUDA_ERROR_NOT_PERMITTED, as on the H200.
func (b *fakeBackend) CtxSetLimit(l backend.Limit, v uintptr) error {
	if err := b.enter(abi.CuCtxSetLimit); err != nil {
		return err
	}
	c, err := b.current()
	if err != nil {
		return err
	}
	if l >= backend.LimitMax {
		return driver.ErrInvalidValue
	}
	if !limitSupported(c.dev, l) {
		return backend.ErrUnsupportedLimit
	}
	d := c.dev
	// What driver 580 does on the H200 (run S2): the stack rounds up to 16
	// bytes, the malloc heap to 4 MiB (1 MiB+1 keeps 4 MiB), the persisting
	// L2 size to a tenth of the device's maximum; values above the stack's
	// bound, 128 bytes of L2 fetch or the persisting maximum are
	// INVALID_VALUE; the CIG limits are NOT_PERMITTED.
	switch l {
	case backend.LimitCIGEnabled, backend.LimitSharedMemSize:
		return driver.ErrNotPermitted
	case backend.LimitStackSize:
		if v > maxStackSize {
			return driver.ErrInvalidValue
		}
		v = roundUp(v, 16)
	case backend.LimitMallocHeapSize:
		v = roundUp(v, 4<<20)
	case backend.LimitMaxL2FetchGranularity:
		if v > maxL2Fetch {
			return driver.ErrInvalidValue
		}
	case backend.LimitPersistingL2CacheSize:
		most := uintptr(max(d.attrs[driver.AttrMaxPersistingL2CacheSize], 0))
		if v > most {
			return driver.ErrInvalidValue
		}
		if step := most / 10; step > 0 {
			v = min(roundUp(v, step), most)
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	c.cfg.limits[l], c.cfg.set[l] = v, true
	return nil
}

// CtxGetCacheConfig is cuCtxGetCacheConfig: the current context's
// preference, as last set.
func (b *fakeBackend) CtxGetCacheConfig() (backend.CacheConfig, error) {
	if err := b.enter(abi.CuCtxGetCacheConfig); err != nil {
		return 0, err
	}
	c, err := b.current()
	if err != nil {
		return 0, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	return c.cfg.cache, nil
}

// CtxSetCacheConfig is cuCtxSetCacheConfig: kept, and without effect on
// the fake's kernels, as on a device that ignores the preference.
func (b *fakeBackend) CtxSetCacheConfig(cfg backend.CacheConfig) error {
	if err := b.enter(abi.CuCtxSetCacheConfig); err != nil {
		return err
	}
	c, err := b.current()
	if err != nil {
		return err
	}
	if cfg > backend.CachePreferEqual {
		return driver.ErrInvalidValue
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	c.cfg.cache = cfg
	return nil
}

// CtxGetSharedMemConfig is cuCtxGetSharedMemConfig: the fixed bank size of
// the hardware, four bytes, whatever was set.
func (b *fakeBackend) CtxGetSharedMemConfig() (backend.SharedMemConfig, error) {
	if err := b.enter(abi.CuCtxGetSharedMemConfig); err != nil {
		return 0, err
	}
	if _, err := b.current(); err != nil {
		return 0, err
	}
	return backend.SharedMemBankSizeFourByte, nil
}

// CtxSetSharedMemConfig is cuCtxSetSharedMemConfig: a valid value is
// accepted and changes nothing, as on every device with a fixed bank size.
func (b *fakeBackend) CtxSetSharedMemConfig(cfg backend.SharedMemConfig) error {
	if err := b.enter(abi.CuCtxSetSharedMemConfig); err != nil {
		return err
	}
	if _, err := b.current(); err != nil {
		return err
	}
	if cfg > backend.SharedMemBankSizeEightByte {
		return driver.ErrInvalidValue
	}
	return nil
}
