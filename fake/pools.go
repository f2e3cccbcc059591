package fake

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/pools"
	"github.com/nocgo/cuda/fake/internal/race"
	"github.com/nocgo/cuda/internal/abi"
)

// The stream-ordered memory pools are a room of their own
// (fake/internal/pools): a leaf of the lock ladder, called with Backend.mu
// held, because a pool's bytes and its device's used memory change
// together. Its entry points (poolCalls, embedded in fakeBackend) check
// their arguments and ask the room under the core's lock (poolsCore); the
// stream-ordered allocations below are the core's, which asks the room
// itself; the bytes the room gives back go back to the device here.
type poolCalls = pools.EntryPoints

// poolsCore is the core as the pools' entry points see it (pools.Core).
type poolsCore struct{ b *fakeBackend }

func (c poolsCore) Enter(op string) error { return c.b.enter(op) }

func (c poolsCore) CheckDevice(ordinal int) error {
	_, err := c.b.dev(ordinal)
	return err
}

func (c poolsCore) Locked(fn func(give func(dev int, n uint64))) {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	fn(c.b.giveBack)
}

func (poolsCore) NewHandle() uintptr { return newHandle() }

func (poolsCore) Site() fmt.Stringer {
	s := here()
	return &s
}

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

var _ backend.MemPools = (*fakeBackend)(nil)
