package vmm

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/internal/abi"
)

// The fake's reserved address ranges (cuMemAddressReserve, cuMemAddressFree):
// addresses of the VMM space, each with its inaccessible host range.

// MemAddressReserve is cuMemAddressReserve: size (a multiple of the
// granularity) bytes of address space aligned to alignment (a power of
// two; 0 or less than the granularity: the granularity), at addr when that
// is aligned and free, else anywhere. No memory is taken.
func (r *Room) MemAddressReserve(size, alignment, addr uintptr, flags uint64) (uintptr, error) {
	if err := r.enter(abi.CuMemAddressReserve); err != nil {
		return 0, err
	}
	if flags != 0 || size == 0 || size%Granularity != 0 || alignment&(alignment-1) != 0 {
		return 0, driver.ErrInvalidValue
	}
	alignment = max(alignment, Granularity)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.next == 0 {
		r.next = spaceBase
	}
	const end = spaceBase + spaceSize
	fits := func(base uintptr) bool { return base >= spaceBase && base <= end && size <= end-base }
	base := uintptr(0)
	if addr != 0 && addr%alignment == 0 && fits(addr) && !r.overlaps(addr, size) {
		base = addr
	} else {
		base = (r.next + alignment - 1) &^ (alignment - 1)
		if base < r.next || !fits(base) {
			return 0, driver.ErrOutOfMemory
		}
	}
	shadow, err := osReserve(size)
	if err != nil {
		return 0, driver.ErrOutOfMemory
	}
	if base+size > r.next {
		r.next = min(base+size+rangeGap, end)
	}
	r.ranges[base] = &vrange{base: base, size: size, shadow: shadow}
	return base, nil
}

// overlaps reports whether [base, base+size) meets a reserved range. The
// room's lock is held.
func (r *Room) overlaps(base, size uintptr) bool {
	for _, v := range r.ranges {
		if base < v.base+v.size && v.base < base+size {
			return true
		}
	}
	return false
}

// rangeOf returns the reserved range holding p, or nil. The room's lock is
// held.
func (r *Room) rangeOf(p uintptr) *vrange {
	for _, v := range r.ranges {
		if p >= v.base && p-v.base < v.size {
			return v
		}
	}
	return nil
}

// MemAddressFree is cuMemAddressFree: the whole range, by its base and
// size, with nothing mapped in it (ErrInvalidValue otherwise, and the
// range stays).
func (r *Room) MemAddressFree(ptr, size uintptr) error {
	if err := r.enter(abi.CuMemAddressFree); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	v := r.ranges[ptr]
	if v == nil || v.size != size || v.mapped > 0 {
		return driver.ErrInvalidValue
	}
	if err := osRelease(v.shadow); err != nil {
		return driver.ErrInvalidValue
	}
	delete(r.ranges, ptr)
	return nil
}
