package memory

import (
	"errors"
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// Virtual memory management (CUDA's cuMem* "VMM" API) in four objects:
//
//   - an [AddressRange] is reserved device address space with no memory
//     behind it ([ReserveAddress]; cuMemAddressReserve);
//   - a [PhysicalMemory] is device memory with no address ([NewPhysical];
//     cuMemCreate), which may be exported to another process as a file
//     descriptor ([PhysicalMemory.Export], [ImportPhysical]);
//   - a [Mapping] puts part of a PhysicalMemory at an address of an
//     AddressRange ([AddressRange.Map]; cuMemMap), usable once given access
//     ([Mapping.SetAccess]; cuMemSetAccess), and seen by copies and kernels
//     through [MappedBuffer];
//   - a [Growable] is a device array that grows without moving, built from
//     the three (what PyTorch's expandable segments do).
//
// Sizes and offsets are multiples of the device's [Granularity] (2 MiB on an
// H200); the objects check them, and everything else the driver would
// refuse, before calling it.

// ErrNoVirtualMemory is wrapped by the virtual memory functions when the
// backend has none (errors.Is(err, errors.ErrUnsupported) holds too).
var ErrNoVirtualMemory = fmt.Errorf("memory: the backend has no virtual memory management (backend.VirtualMemory): %w", errors.ErrUnsupported)

// ErrMapped is what [AddressRange.Close] returns while mappings made in the
// range are open: unmap them ([Mapping.Close]) first.
var ErrMapped = errors.New("memory: the address range still has mappings")

// AccessRead lets a device read mapped memory but not write it
// (CU_MEM_ACCESS_FLAGS_PROT_READ), for [Mapping.SetAccess]. Pools take only
// AccessNone and AccessReadWrite.
const AccessRead = Access(backend.MemAccessRead)

// vmOf returns ctx's backend as backend.VirtualMemory.
func vmOf(op string, ctx *driver.Context) (*core.Context, backend.VirtualMemory, error) {
	c, err := core.Of(op, ctx)
	if err != nil {
		return nil, nil, err
	}
	vm, ok := c.API.(backend.VirtualMemory)
	if !ok {
		return nil, nil, fmt.Errorf("%s: %w", op, ErrNoVirtualMemory)
	}
	return c, vm, nil
}

// deviceProp is the CUmemAllocationProp of pinned memory on ctx's device.
func deviceProp(ctx *driver.Context, handles backend.MemHandleType) backend.MemAllocationProp {
	return backend.MemAllocationProp{
		Type:                 backend.MemAllocationTypePinned,
		RequestedHandleTypes: handles,
		Location:             backend.MemLocation{Type: backend.MemLocationDevice, ID: int32(ctx.Device().Ordinal())},
	}
}

// granularity asks the driver for the granularity of ctx's device
// (cuMemGetAllocationGranularity), ctx current.
func granularity(vm backend.VirtualMemory, ctx *driver.Context, option backend.MemGranularity) (uintptr, error) {
	g, err := vm.MemGetAllocationGranularity(deviceProp(ctx, backend.MemHandleNone), option)
	if err != nil {
		return 0, fmt.Errorf("cuMemGetAllocationGranularity(device %d): %w", ctx.Device().Ordinal(), err)
	}
	if g == 0 || g&(g-1) != 0 {
		return 0, fmt.Errorf("cuMemGetAllocationGranularity(device %d) = %d, not a power of two: %w", ctx.Device().Ordinal(), g, driver.ErrUnknown)
	}
	return g, nil
}

// Granularity returns the granularity of virtual memory on ctx's device,
// in bytes (cuMemGetAllocationGranularity, CU_MEM_ALLOC_GRANULARITY_MINIMUM):
// the sizes of [ReserveAddress] and [NewPhysical], and the offsets and sizes of
// [AddressRange.Map], are multiples of it. An H200 reports 2 MiB.
func Granularity(ctx *driver.Context) (int, error) {
	return granularityOf("memory.Granularity", ctx, backend.MemGranularityMinimum)
}

// RecommendedGranularity returns the granularity the driver recommends for
// performance on ctx's device (CU_MEM_ALLOC_GRANULARITY_RECOMMENDED), a
// multiple of Granularity.
func RecommendedGranularity(ctx *driver.Context) (int, error) {
	return granularityOf("memory.RecommendedGranularity", ctx, backend.MemGranularityRecommended)
}

func granularityOf(op string, ctx *driver.Context, option backend.MemGranularity) (int, error) {
	c, vm, err := vmOf(op, ctx)
	if err != nil {
		return 0, err
	}
	var g uintptr
	err = c.Do(func(backend.API) error {
		var r error
		g, r = granularity(vm, ctx, option)
		return r
	})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	return int(g), nil
}

// vmSize checks a size or offset in bytes given to the virtual memory
// functions: not negative, and a multiple of the granularity g (a positive
// one when positive is set).
func vmSize(what string, n int, g uintptr, positive bool) (uintptr, error) {
	switch {
	case n < 0 || (positive && n == 0):
		return 0, fmt.Errorf("%s %d: want a positive multiple of the granularity %d: %w", what, n, g, driver.ErrInvalidInput)
	case uintptr(n)%g != 0:
		return 0, fmt.Errorf("%s %d is not a multiple of the granularity %d (round up to %d): %w",
			what, n, g, (uintptr(n)+g-1)/g*g, driver.ErrInvalidInput)
	}
	return uintptr(n), nil
}

// sameDriver checks that an object of ctx is used with one of other.
func sameDriver(op string, ctx, other *driver.Context, what string) error {
	if ctx.Driver() != other.Driver() {
		return fmt.Errorf("%s: %s belongs to another *driver.Driver: %w", op, what, driver.ErrWrongContext)
	}
	return nil
}

// described is a description as a fmt.Stringer, for the calls that name
// their object in errors.
type described string

func (d described) String() string { return string(d) }
