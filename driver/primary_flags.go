package driver

import (
	"errors"
	"fmt"

	"github.com/nocgo/cuda/driver/backend"
)

// More CU_CTX_* flags, for the primary context (Device.SetPrimaryContextFlags)
// and NewContext.
const (
	// SchedMask covers the scheduling flags, of which one at most is set.
	SchedMask ContextFlags = 0x7 // CU_CTX_SCHED_MASK
	// LMemResizeToMax keeps the local memory grown for a launch instead of
	// shrinking it back (CU_CTX_LMEM_RESIZE_TO_MAX); NVIDIA documents it
	// as the default behaviour in recent drivers.
	LMemResizeToMax ContextFlags = 0x10
	// CoredumpEnable makes a GPU exception in the context write a coredump
	// (CU_CTX_COREDUMP_ENABLE, CUDA 12.1), documented for cuCtxCreate.
	CoredumpEnable ContextFlags = 0x20
	// UserCoredumpEnable lets a user pipe trigger a coredump
	// (CU_CTX_USER_COREDUMP_ENABLE, CUDA 12.1), documented for cuCtxCreate.
	UserCoredumpEnable ContextFlags = 0x40
	// SyncMemops makes synchronous memory operations of the context always
	// synchronize (CU_CTX_SYNC_MEMOPS, CUDA 12.1).
	SyncMemops ContextFlags = 0x80
	// ContextFlagsMask covers every flag (CU_CTX_FLAGS_MASK).
	ContextFlagsMask ContextFlags = 0xff
)

// PrimaryContextState is what Device.PrimaryContextState reports.
type PrimaryContextState struct {
	// Flags are the flags the primary context has, or will be made with
	// when it is next retained.
	Flags ContextFlags
	// Active reports whether the primary context exists: some user in the
	// process (this library, the CUDA runtime, another library) retains it.
	Active bool
}

// PrimaryContextState returns the flags of the device's primary context
// and whether it is active (cuDevicePrimaryCtxGetState).
func (d *Device) PrimaryContextState() (PrimaryContextState, error) {
	const op = "driver.Device.PrimaryContextState"
	if d == nil || d.drv == nil {
		return PrimaryContextState{}, nilDevice(op)
	}
	flags, active, r := d.drv.api.DevicePrimaryCtxGetState(d.handle)
	if r != nil {
		return PrimaryContextState{}, d.errf(op, "cuDevicePrimaryCtxGetState", r)
	}
	return PrimaryContextState{Flags: ContextFlags(flags), Active: active}, nil
}

// SetPrimaryContextFlags sets the flags of the device's primary context
// (cuDevicePrimaryCtxSetFlags_v2), overwriting those set before: how a
// thread waiting for the GPU behaves (SchedAuto, SchedSpin, SchedYield,
// SchedBlockingSync), LMemResizeToMax, SyncMemops. A process sets them
// before anyone retains the primary context, as cudaSetDeviceFlags does;
// since CUDA 11.0 the driver also accepts them while the primary context
// is active, and they then apply to the live context, for every user of it
// in the process (this library, the CUDA runtime, other libraries). The
// flags are the device's, not the context's: they outlive the primary
// context's last release (PrimaryContextState reads them while it is
// inactive). The fake keeps them across ResetPrimaryContext too.
//
// More than one scheduling flag, or a bit outside ContextFlagsMask, is an
// error wrapping ErrInvalidValue before any driver call; flags the driver
// refuses for a primary context, its error. It needs a backend with
// backend.PrimaryContextFlags (an error wrapping errors.ErrUnsupported
// otherwise; the real backend needs a CUDA 11.0 driver).
func (d *Device) SetPrimaryContextFlags(flags ContextFlags) error {
	const op = "driver.Device.SetPrimaryContextFlags"
	if d == nil || d.drv == nil {
		return nilDevice(op)
	}
	if flags&^ContextFlagsMask != 0 {
		return fmt.Errorf("%s: device %d: flags %#x: bits outside CU_CTX_FLAGS_MASK (%#x): %w", op, d.ordinal, uint32(flags), uint32(ContextFlagsMask), ErrInvalidValue)
	}
	if s := flags & SchedMask; s&(s-1) != 0 {
		return fmt.Errorf("%s: device %d: flags %#x: more than one scheduling flag: %w", op, d.ordinal, uint32(flags), ErrInvalidValue)
	}
	pf, ok := d.drv.api.(backend.PrimaryContextFlags)
	if !ok {
		return fmt.Errorf("%s: the backend cannot set primary context flags (backend.PrimaryContextFlags): %w", op, errors.ErrUnsupported)
	}
	if r := pf.DevicePrimaryCtxSetFlags(d.handle, uint32(flags)); r != nil {
		return d.errf(op, fmt.Sprintf("cuDevicePrimaryCtxSetFlags(%#x)", uint32(flags)), r)
	}
	return nil
}
