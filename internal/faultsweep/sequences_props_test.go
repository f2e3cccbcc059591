package faultsweep

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
)

// seqProps: the primary context's flags set and read, its limits, cache
// and shared-memory preferences set and read back.
func seqProps(e *env) error {
	drv, err := e.driver()
	if err != nil {
		return err
	}
	dev, err := drv.Device(0)
	if err != nil {
		return err
	}
	if err := dev.SetPrimaryContextFlags(driver.SchedBlockingSync); err != nil {
		return err
	}
	ctx, err := e.primary()
	if err != nil {
		return err
	}
	st, err := dev.PrimaryContextState()
	if err != nil {
		return err
	}
	if st.Flags != driver.SchedBlockingSync || !st.Active {
		return fmt.Errorf("primary context state %+v, want blocking sync and active", st)
	}
	kept, err := ctx.SetLimit(driver.LimitMallocHeapSize, 16<<20)
	if err != nil {
		return err
	}
	if got, err := ctx.Limit(driver.LimitMallocHeapSize); err != nil {
		return err
	} else if got != kept || kept != 16<<20 {
		return fmt.Errorf("malloc heap: set kept %d, reads %d, want %d", kept, got, 16<<20)
	}
	if err := ctx.SetCacheConfig(driver.CachePreferShared); err != nil {
		return err
	}
	if cfg, err := ctx.CacheConfig(); err != nil {
		return err
	} else if cfg != driver.CachePreferShared {
		return fmt.Errorf("cache config %s, want %s", cfg, driver.CachePreferShared)
	}
	if err := ctx.SetSharedMemConfig(driver.SharedMemBankSizeFourByte); err != nil {
		return err
	}
	if sm, err := ctx.SharedMemConfig(); err != nil {
		return err
	} else if sm != driver.SharedMemBankSizeFourByte {
		return fmt.Errorf("shared memory config %s, want four-byte banks", sm)
	}
	return nil
}
