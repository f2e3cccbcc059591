package fake

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/internal/abi"
)

// primaryFlagsValid are the CU_CTX_* flags cuDevicePrimaryCtxSetFlags
// takes on driver 580 (H200 run S2): the scheduling flags (0x7), LMEM
// resize to max (0x10), the two coredump flags (0x20, 0x40) and sync
// memops (0x80). CU_CTX_MAP_HOST (0x8), though documented, is refused
// with INVALID_VALUE.
const primaryFlagsValid = 0x7 | 0x10 | 0x20 | 0x40 | 0x80

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
