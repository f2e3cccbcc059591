package conformance

import (
	"testing"

	"github.com/nocgo/cuda/driver"
)

// allLimits are the CUlimit values of cuda.h 13.0.
var allLimits = []driver.Limit{
	driver.LimitStackSize, driver.LimitPrintfFIFOSize, driver.LimitMallocHeapSize,
	driver.LimitDevRuntimeSyncDepth, driver.LimitDevRuntimePendingLaunchCount,
	driver.LimitMaxL2FetchGranularity, driver.LimitPersistingL2CacheSize,
	driver.LimitSharedMemSize, driver.LimitCIGEnabled, driver.LimitCIGSharedMemFallbackEnabled,
}

// testContextLimits checks cuCtxGetLimit/cuCtxSetLimit and the cache and
// shared-memory preferences on a context of its own (so that nothing it
// sets reaches the primary context the other cases share), asserting what
// NVIDIA documents and logging every value it reads: the defaults of a
// fresh context, what each set kept, the answers for the limits a device
// may not have. The lead compares the H200's log with the fake's.
func testContextLimits(t *testing.T, drv *driver.Driver) {
	dev, err := drv.Device(0)
	must(t, err)
	props, err := dev.Properties()
	must(t, err)
	ctx, err := dev.NewContext(driver.ContextOptions{})
	must(t, err)
	defer ctx.Close()
	prim, err := dev.PrimaryContext()
	must(t, err)
	defer prim.Close()

	defaults := map[driver.Limit]uint64{}
	for _, l := range allLimits {
		v, err := ctx.Limit(l)
		t.Logf("fresh context: %s = %d (err %v)", l, v, err)
		if err == nil {
			defaults[l] = v
		}
		pv, perr := prim.Limit(l)
		t.Logf("primary context: %s = %d (err %v)", l, pv, perr)
	}
	for _, l := range []driver.Limit{driver.LimitStackSize, driver.LimitPrintfFIFOSize, driver.LimitMallocHeapSize, driver.LimitDevRuntimePendingLaunchCount} {
		compare(t, defaults[l], ">", 0, "%s has a default", l)
	}
	compare(t, defaults[driver.LimitMaxL2FetchGranularity], "<=", 128, "the L2 fetch granularity is 0 to 128 bytes")
	// The persisting L2 size is the device's (a fresh context on the H200
	// reads what earlier work of the process set aside): logged above.

	// CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH is gone from compute capability 9.0.
	if props.Major >= 9 {
		_, err := ctx.Limit(driver.LimitDevRuntimeSyncDepth)
		errorIs(t, err, driver.ErrUnsupportedLimit, "sync depth read on compute capability %d.%d", props.Major, props.Minor)
		_, err = ctx.SetLimit(driver.LimitDevRuntimeSyncDepth, 4)
		errorIs(t, err, driver.ErrUnsupportedLimit, "sync depth set on compute capability %d.%d", props.Major, props.Minor)
		contains(t, err.Error(), "CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH")
	}
	for _, l := range []driver.Limit{10, 1000} {
		_, err := ctx.Limit(l)
		errorIs(t, err, driver.ErrInvalidValue, "%s", l)
		_, err = ctx.SetLimit(l, 1)
		errorIs(t, err, driver.ErrInvalidValue, "%s", l)
	}

	// Sets keep at least what was asked (the driver may round up) and apply
	// to this context alone.
	primStack, err := prim.Limit(driver.LimitStackSize)
	must(t, err)
	for _, c := range []struct {
		l driver.Limit
		v uint64
	}{
		{driver.LimitStackSize, 4096},
		{driver.LimitStackSize, 1000},
		{driver.LimitPrintfFIFOSize, 4 << 20},
		{driver.LimitMallocHeapSize, 64 << 20},
		{driver.LimitMallocHeapSize, 1<<20 + 1},
		{driver.LimitDevRuntimePendingLaunchCount, 4096},
	} {
		kept, err := ctx.SetLimit(c.l, c.v)
		t.Logf("set %s = %d: kept %d (err %v)", c.l, c.v, kept, err)
		if noError(t, err, "%s = %d", c.l, c.v) {
			compare(t, kept, ">=", c.v, "%s keeps at least what was asked", c.l)
			got, err := ctx.Limit(c.l)
			must(t, err)
			equal(t, got, kept, "SetLimit returns what Limit reads")
		}
	}
	again, err := prim.Limit(driver.LimitStackSize)
	must(t, err)
	equal(t, again, primStack, "a limit is the context's own: the primary context's stack is unchanged")
	for _, l := range []driver.Limit{driver.LimitStackSize, driver.LimitPrintfFIFOSize, driver.LimitMallocHeapSize, driver.LimitDevRuntimePendingLaunchCount} {
		kept, err := ctx.SetLimit(l, defaults[l])
		if noError(t, err, "%s back to %d", l, defaults[l]) {
			equal(t, kept, defaults[l], "%s set back to its default keeps it exactly", l)
		}
	}

	// How large a stack the driver grants (H200 run S2: 64 KiB, not
	// 512 KiB or more, which are INVALID_VALUE).
	for _, v := range []uint64{64 << 10, 512 << 10, 1 << 20, 1 << 40} {
		kept, err := ctx.SetLimit(driver.LimitStackSize, v)
		t.Logf("set %s = %d: kept %d (err %v)", driver.LimitStackSize, v, kept, err)
		if v <= 64<<10 {
			noError(t, err, "a stack of %d bytes", v)
		} else {
			errorIs(t, err, driver.ErrInvalidValue, "a stack of %d bytes", v)
		}
	}
	_, err = ctx.SetLimit(driver.LimitStackSize, defaults[driver.LimitStackSize])
	noError(t, err, "the stack set back to its default")

	// The hints (H200 run S2): the persisting L2 size is rounded up to a
	// tenth of the device's maximum and refused above it; the L2 fetch
	// granularity is kept as asked up to 128 bytes and refused above.
	_, err = ctx.SetLimit(driver.LimitPersistingL2CacheSize, uint64(2*props.PersistingL2CacheMaxSize+1))
	errorIs(t, err, driver.ErrInvalidValue, "a persisting L2 size above the device's maximum %d", props.PersistingL2CacheMaxSize)
	kept, err := ctx.SetLimit(driver.LimitPersistingL2CacheSize, 1<<20)
	t.Logf("set %s = %d: kept %d (err %v)", driver.LimitPersistingL2CacheSize, 1<<20, kept, err)
	if noError(t, err) && props.PersistingL2CacheMaxSize >= 10 {
		step := uint64(props.PersistingL2CacheMaxSize / 10)
		equal(t, kept, (1<<20+step-1)/step*step, "the persisting L2 size rounds up to a tenth of the maximum")
	}
	_, err = ctx.SetLimit(driver.LimitPersistingL2CacheSize, 0)
	noError(t, err)
	for _, v := range []uint64{32, 100} {
		kept, err := ctx.SetLimit(driver.LimitMaxL2FetchGranularity, v)
		if noError(t, err, "L2 fetch granularity %d", v) {
			equal(t, kept, v, "an L2 fetch granularity up to 128 is kept")
		}
	}
	_, err = ctx.SetLimit(driver.LimitMaxL2FetchGranularity, 256)
	errorIs(t, err, driver.ErrInvalidValue, "an L2 fetch granularity above 128")

	// CU_LIMIT_CIG_ENABLED can only be read.
	_, err = ctx.SetLimit(driver.LimitCIGEnabled, 1)
	t.Logf("set %s = 1: err %v", driver.LimitCIGEnabled, err)
	errorIs(t, err, driver.ErrNotPermitted, "CU_LIMIT_CIG_ENABLED is read only")

	testCacheConfig(t, ctx, props)

	// A closed context answers ErrClosed, before any driver call.
	owned, err := dev.NewContext(driver.ContextOptions{})
	must(t, err)
	must(t, owned.Close())
	_, err = owned.Limit(driver.LimitStackSize)
	errorIs(t, err, driver.ErrClosed)
	_, err = owned.SetLimit(driver.LimitStackSize, 2048)
	errorIs(t, err, driver.ErrClosed)
	errorIs(t, owned.SetCacheConfig(driver.CachePreferL1), driver.ErrClosed)
	var nilCtx *driver.Context
	_, err = nilCtx.Limit(driver.LimitStackSize)
	errorIs(t, err, driver.ErrInvalidValue)
}

// testCacheConfig checks the cache and shared-memory preferences of ctx, a
// fresh context of its own.
func testCacheConfig(t *testing.T, ctx *driver.Context, props driver.Properties) {
	cfg, err := ctx.CacheConfig()
	t.Logf("fresh context: cache config %s (err %v)", cfg, err)
	must(t, err)
	equal(t, cfg, driver.CachePreferNone, "a fresh context prefers nothing")
	for _, want := range []driver.CacheConfig{driver.CachePreferShared, driver.CachePreferL1, driver.CachePreferEqual, driver.CachePreferNone} {
		must(t, ctx.SetCacheConfig(want))
		got, err := ctx.CacheConfig()
		must(t, err)
		t.Logf("set cache config %s: reads %s", want, got)
		equal(t, got, want, "a device whose L1 and shared memory share one store keeps the preference")
	}
	errorIs(t, ctx.SetCacheConfig(4), driver.ErrInvalidValue)

	sm, err := ctx.SharedMemConfig()
	t.Logf("fresh context: shared memory config %s (err %v)", sm, err)
	must(t, err)
	must(t, ctx.SetSharedMemConfig(driver.SharedMemBankSizeEightByte))
	after, err := ctx.SharedMemConfig()
	must(t, err)
	t.Logf("set shared memory config %s: reads %s", driver.SharedMemBankSizeEightByte, after)
	if props.Major >= 5 {
		equal(t, sm, driver.SharedMemBankSizeFourByte, "the fixed bank size of the hardware")
		equal(t, after, driver.SharedMemBankSizeFourByte, "a fixed bank size does not change")
	}
	must(t, ctx.SetSharedMemConfig(driver.SharedMemBankSizeDefault))
	errorIs(t, ctx.SetSharedMemConfig(3), driver.ErrInvalidValue)
}
