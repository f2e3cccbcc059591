package memory

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// PhysicalMemory is device memory with no address of its own
// (cuMemCreate, or cuMemImportFromShareableHandle for ImportPhysical): a
// CUmemGenericAllocationHandle that [AddressRange.Map] puts at addresses,
// possibly several at once (every mapping sees the same bytes). The caller
// owns the handle: Close releases it (cuMemRelease). Memory still mapped
// stays until its last Mapping is closed, so Close may come right after
// Map. It holds its context until Close.
//
// Methods are safe for concurrent use, except Close with other calls.
type PhysicalMemory struct {
	ctx       *driver.Context
	hold      *core.Hold
	vm        backend.VirtualMemory
	h         uintptr
	size      uintptr
	g         uintptr
	shareable bool // may be exported (CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
	imported  bool
}

// PhysicalOptions configure NewPhysical. The zero value is memory of the
// context's device that cannot be exported.
type PhysicalOptions struct {
	// Shareable lets Export hand the memory to other processes as a POSIX
	// file descriptor (CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR; Linux).
	Shareable bool
}

// NewPhysical allocates size bytes of ctx's device memory with no address
// (cuMemCreate, pinned, on ctx's device). size must be a positive multiple
// of [Granularity], checked before the allocation. Like cuMemAlloc, the
// memory is not zeroed.
func NewPhysical(ctx *driver.Context, size int, opts PhysicalOptions) (*PhysicalMemory, error) {
	const op = "memory.NewPhysical"
	c, vm, err := vmOf(op, ctx)
	if err != nil {
		return nil, err
	}
	handles := backend.MemHandleNone
	if opts.Shareable {
		handles = backend.MemHandlePOSIXFileDescriptor
	}
	h, err := c.Hold()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	var ph, g, n uintptr
	made := false
	err = h.Do(func(backend.API) error {
		var r error
		if g, r = granularity(vm, ctx, backend.MemGranularityMinimum); r != nil {
			return r
		}
		if n, r = vmSize("size", size, g, true); r != nil {
			return r
		}
		if ph, r = vm.MemCreate(n, deviceProp(ctx, handles), 0); r != nil {
			return fmt.Errorf("cuMemCreate(%d bytes on device %d): %w", n, ctx.Device().Ordinal(), r)
		}
		made = true
		return nil
	})
	if err != nil {
		if made {
			err = h.Undo(err, func(backend.API) error { return vm.MemRelease(ph) })
		}
		return nil, h.Drop(fmt.Errorf("%s: %w", op, err))
	}
	return &PhysicalMemory{ctx: ctx, hold: h, vm: vm, h: ph, size: n, g: g, shareable: opts.Shareable}, nil
}

// Handle returns the CUmemGenericAllocationHandle, or 0 once closed. It
// stays owned by p: do not release it.
func (p *PhysicalMemory) Handle() uintptr {
	if p == nil || p.hold == nil || p.hold.Closed() {
		return 0
	}
	return p.h
}

// Size returns the size of the memory in bytes.
func (p *PhysicalMemory) Size() int {
	if p == nil {
		return 0
	}
	return int(p.size)
}

// Shareable reports whether Export works: NewPhysical with Shareable, or
// ImportPhysical.
func (p *PhysicalMemory) Shareable() bool { return p != nil && p.shareable }

// Context returns the context the memory was made or imported through;
// the memory is on its device.
func (p *PhysicalMemory) Context() *driver.Context {
	if p == nil {
		return nil
	}
	return p.ctx
}

// String describes the memory, for errors and logs.
func (p *PhysicalMemory) String() string {
	if p == nil || p.hold == nil {
		return "nil physical memory"
	}
	what := "physical memory"
	if p.imported {
		what = "imported physical memory"
	}
	s := fmt.Sprintf("%s %#x (%d bytes on device %d)", what, p.h, p.size, p.ctx.Device().Ordinal())
	if p.hold.Closed() {
		s = "closed " + s
	}
	return s
}

// check returns nil when p can be used by op.
func (p *PhysicalMemory) check(op string) error {
	if p == nil || p.hold == nil {
		return fmt.Errorf("%s: nil physical memory: %w", op, driver.ErrInvalidInput)
	}
	if err := p.hold.Check(p); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// Close releases the handle (cuMemRelease). The memory is freed once no
// Mapping of it is open either; mappings keep working until closed. A
// second Close is a no-op returning nil; if the driver refuses, the error
// is returned and p stays open, so that Close can be retried.
func (p *PhysicalMemory) Close() error {
	const op = "memory.PhysicalMemory.Close"
	if p == nil || p.hold == nil {
		return fmt.Errorf("%s: nil physical memory: %w", op, driver.ErrInvalidInput)
	}
	err := p.hold.Close(func(backend.API) error {
		if r := p.vm.MemRelease(p.h); r != nil {
			return fmt.Errorf("%s: cuMemRelease: %w", p, r)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}
