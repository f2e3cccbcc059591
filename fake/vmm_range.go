package fake

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/internal/abi"
)

// The fake's reserved address ranges (cuMemAddressReserve, cuMemAddressFree):
// addresses of the VMM space, each with its inaccessible host range (vmm.go).

// MemAddressReserve is cuMemAddressReserve: size (a multiple of the
// granularity) bytes of address space aligned to alignment (a power of
// two; 0 or less than the granularity: the granularity), at addr when that
// is aligned and free, else anywhere. No memory is taken.
func (b *fakeBackend) MemAddressReserve(size, alignment, addr uintptr, flags uint64) (uintptr, error) {
	if err := b.enter(abi.CuMemAddressReserve); err != nil || !vmmSupported {
		err = vmmErr(err)
		return 0, err
	}
	if flags != 0 || size == 0 || size%vmmGranularity != 0 || alignment&(alignment-1) != 0 {
		return 0, driver.ErrInvalidValue
	}
	alignment = max(alignment, vmmGranularity)
	b.mu.Lock()
	defer b.mu.Unlock()
	st := &b.vmm
	if st.next == 0 {
		st.next = vmmSpaceBase
	}
	const end = vmmSpaceBase + vmmSpaceSize
	fits := func(base uintptr) bool { return base >= vmmSpaceBase && base <= end && size <= end-base }
	base := uintptr(0)
	if addr != 0 && addr%alignment == 0 && fits(addr) && !b.vmmOverlapsLocked(addr, size) {
		base = addr
	} else {
		base = (st.next + alignment - 1) &^ (alignment - 1)
		if base < st.next || !fits(base) {
			return 0, driver.ErrOutOfMemory
		}
	}
	shadow, err := osReserve(size)
	if err != nil {
		return 0, driver.ErrOutOfMemory
	}
	if base+size > st.next {
		st.next = min(base+size+allocGap, end)
	}
	if st.ranges == nil {
		st.ranges = map[uintptr]*vmmRange{}
	}
	st.ranges[base] = &vmmRange{base: base, size: size, shadow: shadow}
	return base, nil
}

// vmmOverlapsLocked reports whether [base, base+size) meets a reserved
// range.
func (b *fakeBackend) vmmOverlapsLocked(base, size uintptr) bool {
	for _, r := range b.vmm.ranges {
		if base < r.base+r.size && r.base < base+size {
			return true
		}
	}
	return false
}

// rangeOfLocked returns the reserved range holding p, or nil.
func (b *fakeBackend) rangeOfLocked(p uintptr) *vmmRange {
	for _, r := range b.vmm.ranges {
		if p >= r.base && p-r.base < r.size {
			return r
		}
	}
	return nil
}

// MemAddressFree is cuMemAddressFree: the whole range, by its base and
// size, with nothing mapped in it (ErrInvalidValue otherwise, and the
// range stays).
func (b *fakeBackend) MemAddressFree(ptr, size uintptr) error {
	if err := b.enter(abi.CuMemAddressFree); err != nil || !vmmSupported {
		err = vmmErr(err)
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	r := b.vmm.ranges[ptr]
	if r == nil || r.size != size || r.mapped > 0 {
		return driver.ErrInvalidValue
	}
	if err := osRelease(r.shadow); err != nil {
		return driver.ErrInvalidValue
	}
	delete(b.vmm.ranges, ptr)
	return nil
}
