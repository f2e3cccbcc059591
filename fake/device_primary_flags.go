package fake

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/internal/abi"
)

// primaryFlagsValid are the CU_CTX_* flags cuDevicePrimaryCtxSetFlags
// documents: a scheduling flag, CU_CTX_MAP_HOST (no effect since CUDA
// 11.0), CU_CTX_LMEM_RESIZE_TO_MAX and CU_CTX_SYNC_MEMOPS. The coredump
// flags (0x20, 0x40) are documented for cuCtxCreate only.
const primaryFlagsValid = 0x1f | 0x80

// DevicePrimaryCtxSetFlags is cuDevicePrimaryCtxSetFlags_v2: the flags are
// the device's, kept across the primary context's release and reset, and
// given to the live primary context at once when it is active.
func (b *fakeBackend) DevicePrimaryCtxSetFlags(dev int, flags uint32) error {
	if err := b.enter(abi.CuDevicePrimaryCtxSetFlags); err != nil {
		return err
	}
	d, err := b.dev(dev)
	if err != nil {
		return err
	}
	if s := flags & 0x7; flags&^primaryFlagsValid != 0 || s&(s-1) != 0 {
		return driver.ErrInvalidValue
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	d.primaryFlags = flags
	if d.primary != nil {
		d.primary.flags = flags
	}
	return nil
}
