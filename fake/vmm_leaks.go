package fake

import (
	"fmt"

	"github.com/nocgo/cuda/driver/backend"
)

// The fake's virtual memory in Leaks (vmm.go).

// Ranks of the fake's virtual memory leaks in Leaks, after the pools.
const (
	leakRankRange   = 12
	leakRankMapping = 13
	leakRankHandle  = 14
)

// vmmLeaksLocked lists the reserved ranges not freed, the mappings not
// unmapped and the allocation handles not released.
func (b *fakeBackend) vmmLeaksLocked(add func(rank int, l Leak)) {
	for _, r := range b.vmm.ranges {
		add(leakRankRange, Leak{Kind: backend.LeakAddressRange, Handle: r.base, Size: r.size,
			Detail: fmt.Sprintf("%d bytes reserved, %d mappings in it: not freed", r.size, r.mapped)})
	}
	for _, m := range b.vmm.maps {
		add(leakRankMapping, Leak{Kind: backend.LeakMapping, Handle: m.a.base, Size: m.a.size, Device: m.a.dev.ordinal,
			Detail: fmt.Sprintf("%d bytes of device %d's memory: not unmapped", m.a.size, m.a.dev.ordinal)})
	}
	for _, hd := range b.vmm.handles {
		add(leakRankHandle, Leak{Kind: backend.LeakPhysicalMemory, Handle: hd.h, Size: hd.phys.size,
			Device: int(hd.phys.prop.Location.ID), Refs: hd.refs,
			Detail: fmt.Sprintf("%d bytes on device %d, %d references not released", hd.phys.size, hd.phys.prop.Location.ID, hd.refs)})
	}
}
