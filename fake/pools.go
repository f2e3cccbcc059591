package fake

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/pools"
	"github.com/nocgo/cuda/fake/internal/race"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/core"
)

// The stream-ordered memory pools are a room of their own
// (fake/internal/pools): a leaf of the lock ladder, called with Backend.mu
// held, because a pool's bytes and its device's used memory change
// together. The entry points below check their arguments, take the core's
// lock and ask the room; the bytes the room gives back go back to the
// device here.

// WaitsFor is pools.Stream: whether s waits, in an item not yet run, on
// other at or after other's item seq. Backend.mu is held.
func (s *stream) WaitsFor(other pools.Stream, seq uint64) bool {
	for _, it := range s.q {
		if it.waitS != nil && pools.Stream(it.waitS) == other && it.waitSeq >= seq {
			return true
		}
	}
	return false
}

// Seq is pools.Item: the item's place in stream order (set when it is
// queued). Backend.mu is held.
func (it *item) Seq() uint64 { return it.seq }

// giveBack returns n bytes a pool released to device dev. Backend.mu is
// held.
func (b *fakeBackend) giveBack(dev int, n uint64) { b.devs[dev].used -= n }

// allocFromPool is cuMemAllocAsync (pool 0: the device's current pool) and
// cuMemAllocFromPoolAsync: the pointer is returned now and usable by work
// enqueued after this call. Its context attribute is 0, as for the driver's
// pool memory.
func (b *fakeBackend) allocFromPool(op string, size uintptr, pool uintptr, s uintptr) (uintptr, error) {
	if err := b.enter(op); err != nil {
		return 0, err
	}
	tid := tidFor(s)
	b.mu.Lock()
	st, err := b.streamLocked(s, tid)
	var p *pools.Pool
	if err == nil {
		if pool == 0 {
			p = b.pools.Current(st.ctx.dev.ordinal)
		} else {
			p, err = b.pools.Lookup(pool)
		}
	}
	if err != nil || size == 0 { // the driver succeeds and returns 0
		b.mu.Unlock()
		return 0, err
	}
	// Reserve the memory first, so that a request the device cannot hold
	// fails before its storage is made.
	pd := b.devs[p.Device()]
	base, r, waits, err := b.pools.Reserve(p, size, st, func(fresh uint64) (uintptr, error) {
		if size > maxStorage || fresh > pd.total-pd.used {
			return 0, driver.ErrOutOfMemory
		}
		base, err := pd.carveLocked(size)
		if err == nil {
			pd.used += fresh
		}
		return base, err
	})
	b.mu.Unlock()
	if err != nil {
		return 0, err
	}
	data := r.Data
	if data == nil {
		data = newStorage(size)
	}
	d := st.ctx.dev
	it := &item{run: nop}
	err = b.enqueue(s, it, func(st *stream) error {
		if st.ctx.dev != d { // the stream went away meanwhile
			return driver.ErrInvalidHandle
		}
		// Reused bytes of another stream's free: wait for that stream up
		// to the free, the dependency the driver inserts.
		for i, pf := range waits {
			if b.graphRoom.Capturing(&st.capture) {
				break // a capture records no waits (graphs.Room.CaptureRecord)
			}
			ws, seq := pf.Stream.(*stream), pf.Item.Seq()
			if i == 0 {
				it.waitS, it.waitSeq = ws, seq
				continue
			}
			b.pushLocked(st, &item{run: nop, waitS: ws, waitSeq: seq})
		}
		b.insertLocked(&alloc{base: base, size: size, data: data, kind: deviceMem, dev: pd, ctx: st.ctx, async: true, pool: p, site: here()})
		if b.race != nil && !b.graphRoom.Capturing(&st.capture) {
			// Every use must follow the allocation in stream order, or
			// by an event or a synchronize: the race detector sees it
			// as an access of the allocating stream's work.
			it.run = func() error { b.race.Range(base, size, race.Alloc, op); return nil }
		}
		return nil
	})
	if err != nil {
		b.mu.Lock()
		b.giveBack(p.Device(), b.pools.Undo(p, r))
		b.mu.Unlock()
		return 0, err
	}
	return base, nil
}

// MemAllocFromPoolAsync is cuMemAllocFromPoolAsync. An unknown or
// destroyed pool is ErrInvalidValue.
func (b *fakeBackend) MemAllocFromPoolAsync(size uintptr, pool uintptr, s uintptr) (uintptr, error) {
	const op = abi.CuMemAllocFromPoolAsync
	if pool == 0 {
		if err := b.enter(op); err != nil {
			return 0, err
		}
		return 0, driver.ErrInvalidValue
	}
	return b.allocFromPool(op, size, pool, s)
}

// DeviceGetDefaultMemPool is cuDeviceGetDefaultMemPool.
func (b *fakeBackend) DeviceGetDefaultMemPool(dev int) (uintptr, error) {
	if err := b.enter(abi.CuDeviceGetDefaultMemPool); err != nil {
		return 0, err
	}
	d, err := b.dev(dev)
	if err != nil {
		return 0, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pools.Default(d.ordinal).Handle(), nil
}

// DeviceGetMemPool is cuDeviceGetMemPool.
func (b *fakeBackend) DeviceGetMemPool(dev int) (uintptr, error) {
	if err := b.enter(abi.CuDeviceGetMemPool); err != nil {
		return 0, err
	}
	d, err := b.dev(dev)
	if err != nil {
		return 0, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pools.Current(d.ordinal).Handle(), nil
}

// DeviceSetMemPool is cuDeviceSetMemPool: the pool must be of dev
// (ErrInvalidValue otherwise, and for an unknown pool).
func (b *fakeBackend) DeviceSetMemPool(dev int, pool uintptr) error {
	if err := b.enter(abi.CuDeviceSetMemPool); err != nil {
		return err
	}
	d, err := b.dev(dev)
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pools.SetCurrent(d.ordinal, pool)
}

// MemPoolCreate is cuMemPoolCreate: pinned device memory only, no
// exportable handle types (ErrNotSupported), a valid device
// (ErrInvalidValue otherwise, as for any other bad property).
func (b *fakeBackend) MemPoolCreate(props backend.MemPoolProps) (uintptr, error) {
	if err := b.enter(abi.CuMemPoolCreate); err != nil {
		return 0, err
	}
	if props.AllocType != backend.MemAllocationTypePinned || props.Location.Type != backend.MemLocationDevice || props.Usage != 0 {
		return 0, driver.ErrInvalidValue
	}
	d, err := b.dev(int(props.Location.ID))
	if err != nil {
		return 0, driver.ErrInvalidValue
	}
	if props.HandleTypes != 0 {
		return 0, driver.ErrNotSupported
	}
	site := here()
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pools.Create(newHandle(), d.ordinal, uint64(props.MaxSize), &site), nil
}

// MemPoolDestroy is cuMemPoolDestroy. A default pool is ErrInvalidValue.
// A pool that is a device's current pool stops being it (the default
// takes over). Allocations not yet freed keep their memory until freed.
func (b *fakeBackend) MemPoolDestroy(pool uintptr) error {
	if err := b.enter(abi.CuMemPoolDestroy); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	p, err := b.pools.Lookup(pool)
	if err != nil {
		return err
	}
	back, err := b.pools.Destroy(pool)
	b.giveBack(p.Device(), back)
	return err
}

// MemPoolTrimTo is cuMemPoolTrimTo.
func (b *fakeBackend) MemPoolTrimTo(pool uintptr, minBytesToKeep uintptr) error {
	if err := b.enter(abi.CuMemPoolTrimTo); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	p, err := b.pools.Lookup(pool)
	if err != nil {
		return err
	}
	back, err := b.pools.TrimTo(pool, uint64(minBytesToKeep))
	b.giveBack(p.Device(), back)
	return err
}

// MemPoolSetAttribute is cuMemPoolSetAttribute (see pools.Room.SetAttribute).
func (b *fakeBackend) MemPoolSetAttribute(pool uintptr, attr backend.MemPoolAttribute, value uint64) error {
	if err := b.enter(abi.CuMemPoolSetAttribute); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	p, err := b.pools.Lookup(pool)
	if err != nil {
		return err
	}
	back, err := b.pools.SetAttribute(pool, attr, value)
	b.giveBack(p.Device(), back)
	return err
}

// MemPoolGetAttribute is cuMemPoolGetAttribute.
func (b *fakeBackend) MemPoolGetAttribute(pool uintptr, attr backend.MemPoolAttribute) (uint64, error) {
	if err := b.enter(abi.CuMemPoolGetAttribute); err != nil {
		return 0, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pools.GetAttribute(pool, attr)
}

// MemPoolSetAccess is cuMemPoolSetAccess (see pools.Room.SetAccess).
func (b *fakeBackend) MemPoolSetAccess(pool uintptr, descs []backend.MemAccessDesc) error {
	if err := b.enter(abi.CuMemPoolSetAccess); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pools.SetAccess(pool, descs)
}

// MemPoolGetAccess is cuMemPoolGetAccess.
func (b *fakeBackend) MemPoolGetAccess(pool uintptr, loc backend.MemLocation) (backend.MemAccessFlags, error) {
	if err := b.enter(abi.CuMemPoolGetAccess); err != nil {
		return 0, err
	}
	if loc.Type != backend.MemLocationDevice {
		return 0, driver.ErrInvalidValue
	}
	if _, err := b.dev(int(loc.ID)); err != nil {
		return 0, driver.ErrInvalidDevice
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pools.GetAccess(pool, int(loc.ID))
}

// CtxDisablePeerAccess is cuCtxDisablePeerAccess: ErrPeerAccessNotEnabled
// when the current context has no access to peer.
func (b *fakeBackend) CtxDisablePeerAccess(peer uintptr) error {
	if err := b.enter(abi.CuCtxDisablePeerAccess); err != nil {
		return err
	}
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	c, err := b.currentLocked(tid)
	if err != nil {
		return err
	}
	p, err := b.liveCtxLocked(peer)
	if err != nil {
		return err
	}
	if !c.peers[p] {
		return driver.ErrPeerAccessNotEnabled
	}
	delete(c.peers, p)
	return nil
}

var (
	_ backend.MemPools           = (*fakeBackend)(nil)
	_ backend.PeerAccessDisabler = (*fakeBackend)(nil)
)
