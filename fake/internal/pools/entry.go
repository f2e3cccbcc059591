package pools

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
)

// Core is what the pools' entry points need of the fake's core.
type Core interface {
	// Enter is the prologue of an entry point: the symbol exists in the
	// configured driver version, FailNth, cuInit called, no sticky fault.
	Enter(op string) error
	// CheckDevice is nil for a device ordinal of the backend, else
	// CUDA_ERROR_INVALID_DEVICE.
	CheckDevice(ordinal int) error
	// Locked runs fn holding the core's lock, under which the room is
	// called (its own lock a leaf below it); give, valid only inside fn,
	// hands bytes the room released back to device dev.
	Locked(fn func(give func(dev int, n uint64)))
	// NewHandle returns a handle no object of any backend has had, and
	// Site the user's call site, for a pool's leak.
	NewHandle() uintptr
	Site() fmt.Stringer
}

// EntryPoints is backend.MemPools over a Room: the pool entry points, each
// checking its arguments, then asking the room under the core's lock
// (Core.Locked). The stream-ordered allocations and frees
// (MemAllocFromPoolAsync among them) are the core's, which calls the room
// for them itself (Reserve, FreeQueued, Return).
type EntryPoints struct {
	room *Room
	core Core
}

// NewEntryPoints returns the entry points of room over core.
func NewEntryPoints(room *Room, core Core) *EntryPoints { return &EntryPoints{room, core} }

// enter is Core.Enter, named so that the fake's entry-point check
// (TestEntryPointsMatchSources) finds each entry point counted here.
func (e *EntryPoints) enter(op string) error { return e.core.Enter(op) }

// locked runs fn on the room under the core's lock.
func (e *EntryPoints) locked(fn func(r *Room, give func(dev int, n uint64)) error) error {
	var err error
	e.core.Locked(func(give func(dev int, n uint64)) { err = fn(e.room, give) })
	return err
}

// DeviceGetDefaultMemPool is cuDeviceGetDefaultMemPool.
func (e *EntryPoints) DeviceGetDefaultMemPool(dev int) (h uintptr, err error) {
	if err := e.enter(abi.CuDeviceGetDefaultMemPool); err != nil {
		return 0, err
	}
	if err := e.core.CheckDevice(dev); err != nil {
		return 0, err
	}
	err = e.locked(func(r *Room, _ func(int, uint64)) error { h = r.Default(dev).Handle(); return nil })
	return h, err
}

// DeviceGetMemPool is cuDeviceGetMemPool.
func (e *EntryPoints) DeviceGetMemPool(dev int) (h uintptr, err error) {
	if err := e.enter(abi.CuDeviceGetMemPool); err != nil {
		return 0, err
	}
	if err := e.core.CheckDevice(dev); err != nil {
		return 0, err
	}
	err = e.locked(func(r *Room, _ func(int, uint64)) error { h = r.Current(dev).Handle(); return nil })
	return h, err
}

// DeviceSetMemPool is cuDeviceSetMemPool: the pool must be of dev
// (ErrInvalidValue otherwise, and for an unknown pool).
func (e *EntryPoints) DeviceSetMemPool(dev int, pool uintptr) error {
	if err := e.enter(abi.CuDeviceSetMemPool); err != nil {
		return err
	}
	if err := e.core.CheckDevice(dev); err != nil {
		return err
	}
	return e.locked(func(r *Room, _ func(int, uint64)) error { return r.SetCurrent(dev, pool) })
}

// MemPoolCreate is cuMemPoolCreate: pinned device memory only, no
// exportable handle types (ErrNotSupported), a valid device
// (ErrInvalidValue otherwise, as for any other bad property).
func (e *EntryPoints) MemPoolCreate(props backend.MemPoolProps) (h uintptr, err error) {
	if err := e.enter(abi.CuMemPoolCreate); err != nil {
		return 0, err
	}
	if props.AllocType != backend.MemAllocationTypePinned || props.Location.Type != backend.MemLocationDevice || props.Usage != 0 {
		return 0, driver.ErrInvalidValue
	}
	dev := int(props.Location.ID)
	if e.core.CheckDevice(dev) != nil {
		return 0, driver.ErrInvalidValue
	}
	if props.HandleTypes != 0 {
		return 0, driver.ErrNotSupported
	}
	site := e.core.Site()
	err = e.locked(func(r *Room, _ func(int, uint64)) error {
		h = r.Create(e.core.NewHandle(), dev, uint64(props.MaxSize), site)
		return nil
	})
	return h, err
}

// MemPoolDestroy is cuMemPoolDestroy. A default pool is ErrInvalidValue.
// A pool that is a device's current pool stops being it (the default
// takes over). Allocations not yet freed keep their memory until freed.
func (e *EntryPoints) MemPoolDestroy(pool uintptr) error {
	if err := e.enter(abi.CuMemPoolDestroy); err != nil {
		return err
	}
	return e.locked(func(r *Room, give func(int, uint64)) error {
		p, err := r.Lookup(pool)
		if err != nil {
			return err
		}
		back, err := r.Destroy(pool)
		give(p.Device(), back)
		return err
	})
}

// MemPoolTrimTo is cuMemPoolTrimTo.
func (e *EntryPoints) MemPoolTrimTo(pool uintptr, minBytesToKeep uintptr) error {
	if err := e.enter(abi.CuMemPoolTrimTo); err != nil {
		return err
	}
	return e.locked(func(r *Room, give func(int, uint64)) error {
		p, err := r.Lookup(pool)
		if err != nil {
			return err
		}
		back, err := r.TrimTo(pool, uint64(minBytesToKeep))
		give(p.Device(), back)
		return err
	})
}

// MemPoolSetAttribute is cuMemPoolSetAttribute (see Room.SetAttribute).
func (e *EntryPoints) MemPoolSetAttribute(pool uintptr, attr backend.MemPoolAttribute, value uint64) error {
	if err := e.enter(abi.CuMemPoolSetAttribute); err != nil {
		return err
	}
	return e.locked(func(r *Room, give func(int, uint64)) error {
		p, err := r.Lookup(pool)
		if err != nil {
			return err
		}
		back, err := r.SetAttribute(pool, attr, value)
		give(p.Device(), back)
		return err
	})
}

// MemPoolGetAttribute is cuMemPoolGetAttribute.
func (e *EntryPoints) MemPoolGetAttribute(pool uintptr, attr backend.MemPoolAttribute) (v uint64, err error) {
	if err := e.enter(abi.CuMemPoolGetAttribute); err != nil {
		return 0, err
	}
	err = e.locked(func(r *Room, _ func(int, uint64)) (err error) { v, err = r.GetAttribute(pool, attr); return err })
	return v, err
}

// MemPoolSetAccess is cuMemPoolSetAccess (see Room.SetAccess).
func (e *EntryPoints) MemPoolSetAccess(pool uintptr, descs []backend.MemAccessDesc) error {
	if err := e.enter(abi.CuMemPoolSetAccess); err != nil {
		return err
	}
	return e.locked(func(r *Room, _ func(int, uint64)) error { return r.SetAccess(pool, descs) })
}

// MemPoolGetAccess is cuMemPoolGetAccess.
func (e *EntryPoints) MemPoolGetAccess(pool uintptr, loc backend.MemLocation) (f backend.MemAccessFlags, err error) {
	if err := e.enter(abi.CuMemPoolGetAccess); err != nil {
		return 0, err
	}
	if loc.Type != backend.MemLocationDevice {
		return 0, driver.ErrInvalidValue
	}
	if e.core.CheckDevice(int(loc.ID)) != nil {
		return 0, driver.ErrInvalidDevice
	}
	err = e.locked(func(r *Room, _ func(int, uint64)) (err error) { f, err = r.GetAccess(pool, int(loc.ID)); return err })
	return f, err
}
