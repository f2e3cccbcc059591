package memory

import (
	"fmt"
	"sync"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// AddressRange is reserved device virtual address space
// (cuMemAddressReserve): addresses with no memory behind them, where
// [AddressRange.Map] puts [PhysicalMemory]. The caller owns it: Close frees the addresses
// (cuMemAddressFree), once every Mapping made in it is closed. It holds
// its context until Close.
//
// Methods are safe for concurrent use, except Close with other calls.
type AddressRange struct {
	ctx  *driver.Context
	hold *core.Hold
	vm   backend.VirtualMemory
	base uintptr
	size uintptr
	g    uintptr // the device's granularity

	mu   sync.Mutex
	maps []*Mapping // open mappings, to refuse overlaps and an early Close
	// lost is why a mapping of the range was dropped unmapped (its unmap
	// failed because the process can do no more CUDA work: a sticky fault,
	// a driver shutting down), nil if none was: the driver may keep that
	// mapping for good, and then refuse to free the range.
	lost error
}

// ReserveAddress reserves size bytes of device address space for ctx's
// device (cuMemAddressReserve, aligned to the granularity). size must be a
// positive multiple of [Granularity], checked before the reservation. No
// memory is taken: reserving far more than the device has is fine, and is
// what [Growable] does.
func ReserveAddress(ctx *driver.Context, size int) (*AddressRange, error) {
	const op = "memory.ReserveAddress"
	c, vm, err := vmOf(op, ctx)
	if err != nil {
		return nil, err
	}
	h, err := c.Hold()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	var base, g, n uintptr
	made := false
	err = h.Do(func(backend.API) error {
		var r error
		if g, r = granularity(vm, ctx, backend.MemGranularityMinimum); r != nil {
			return r
		}
		if n, r = vmSize("size", size, g, true); r != nil {
			return r
		}
		if base, r = vm.MemAddressReserve(n, 0, 0, 0); r != nil {
			return fmt.Errorf("cuMemAddressReserve(%d bytes): %w", n, r)
		}
		made = true
		return nil
	})
	if err != nil {
		if made {
			err = h.Undo(err, func(backend.API) error { return vm.MemAddressFree(base, n) })
		}
		return nil, h.Drop(fmt.Errorf("%s: %w", op, err))
	}
	return &AddressRange{ctx: ctx, hold: h, vm: vm, base: base, size: n, g: g}, nil
}

// Ptr returns the first address of the range (a CUdeviceptr), or 0 once
// it is closed.
func (r *AddressRange) Ptr() uintptr {
	if r == nil || r.hold == nil || r.hold.Closed() {
		return 0
	}
	return r.base
}

// Size returns the size of the range in bytes.
func (r *AddressRange) Size() int {
	if r == nil {
		return 0
	}
	return int(r.size)
}

// Granularity returns the granularity the range's offsets and sizes are
// multiples of (see the package function Granularity).
func (r *AddressRange) Granularity() int {
	if r == nil {
		return 0
	}
	return int(r.g)
}

// Context returns the context the range was reserved through.
func (r *AddressRange) Context() *driver.Context {
	if r == nil {
		return nil
	}
	return r.ctx
}

// String describes the range, for errors and logs.
func (r *AddressRange) String() string {
	if r == nil || r.hold == nil {
		return "nil address range"
	}
	s := fmt.Sprintf("address range [%#x, %#x) (%d bytes)", r.base, r.base+r.size, r.size)
	if r.hold.Closed() {
		s = "closed " + s
	}
	return s
}

// check returns nil when r can be used by op.
func (r *AddressRange) check(op string) error {
	if r == nil || r.hold == nil {
		return fmt.Errorf("%s: nil address range: %w", op, driver.ErrInvalidInput)
	}
	if err := r.hold.Check(r); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// Close frees the range (cuMemAddressFree). While mappings made in it are
// open it is refused with an error wrapping [ErrMapped], before any driver
// call, and changes nothing. After a mapping's Close dropped it unmapped
// (the process could do no more CUDA work, which that Close reported), a
// range the driver then refuses to free is closed all the same. A second Close is a no-op returning nil; if
// the driver refuses, the error is returned and the range stays open, so
// that Close can be retried.
func (r *AddressRange) Close() error {
	const op = "memory.AddressRange.Close"
	if r == nil || r.hold == nil {
		return fmt.Errorf("%s: nil address range: %w", op, driver.ErrInvalidInput)
	}
	if core.InCallback() { // see Mapping.Close
		return fmt.Errorf("%s: %s: %w", op, r, core.ErrInCallback)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.hold.Closed() {
		return nil
	}
	if n := len(r.maps); n > 0 {
		return fmt.Errorf("%s: %s: %d mappings still open (first at %#x): %w", op, r, n, r.maps[0].ptr, ErrMapped)
	}
	err := r.hold.Close(func(backend.API) error {
		if e := r.vm.MemAddressFree(r.base, r.size); e != nil {
			if r.lost != nil && !core.Gone(e) {
				// Refused because of the mapping dropped with the
				// process's CUDA state (whose Close reported it): the
				// range goes with that state too.
				return nil
			}
			return fmt.Errorf("%s: cuMemAddressFree: %w", r, e)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// forget drops a closed mapping from the range's list; lost, when not
// nil, is why it was dropped without being unmapped.
func (r *AddressRange) forget(m *Mapping, lost error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if lost != nil && r.lost == nil {
		r.lost = lost
	}
	for i, x := range r.maps {
		if x == m {
			r.maps = append(r.maps[:i], r.maps[i+1:]...)
			return
		}
	}
}
