package fake

import (
	"github.com/nocgo/cuda/fake/internal/race"
	"math"
	"slices"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/core"
)

// The fake's stream-ordered memory pools. Each device has a default pool
// (made on first use) and a current pool, which cuMemAllocAsync takes from;
// cuMemPoolCreate makes more. A pool's accounting follows the driver's
// attributes, kept simple:
//
//   - used is the bytes of the live allocations taken from the pool;
//   - reserved is used plus the freed bytes the pool keeps cached: an
//     allocation takes cached bytes first and reserves the rest from the
//     device (which counts them as used in cuMemGetInfo);
//   - memory freed by cuMemFreeAsync is reused in stream order, as the
//     driver does, before its stream has even reached the free: an
//     allocation on the freeing stream takes those bytes at once (a 64 MiB
//     pool serves 48 MiB allocated and freed 200 times with no
//     synchronization, on the H200 and here); an allocation on another
//     stream takes them too while the pool allows internal dependencies
//     (its default), and then waits for the freeing stream up to the free,
//     the dependency the driver inserts; with that reuse off, only a stream
//     that waits on an event recorded after the free takes them (follow
//     event dependencies);
//   - when a free is reached, what no later allocation took is cached, and
//     the cached bytes above the release threshold go back to the device
//     at once (the driver returns them at the next synchronization; after
//     one, both agree);
//   - cuMemPoolTrimTo returns cached bytes until reserved is down to
//     minBytesToKeep, or nothing is cached;
//   - the high-water marks follow the current values; setting one to 0
//     resets it to the current value.
//
// The driver reserves in chunks (2 MiB and more) and rounds allocations up;
// the fake counts bytes exactly, so tests compare with >=.
type mempool struct {
	site callSite // who made it, for Leaks (leak_site.go)

	h         uintptr
	dev       *device
	owned     bool // made by cuMemPoolCreate (the default pool is not)
	destroyed bool // cuMemPoolDestroy was called; it ends when live is 0
	live      int  // allocations not yet freed

	threshold, maxSize                     uint64
	reserved, reservedHigh, used, usedHigh uint64
	cached                                 uint64
	reuse                                  [3]uint64 // the reuse attributes, 1 by default
	access                                 map[int]backend.MemAccessFlags

	pending []*pendingFree // frees queued (cuMemFreeAsync) but not reached
}

// The reuse attributes, as indexes of mempool.reuse.
const (
	reuseFollowEvents = iota // CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES
	reuseOpportunistic
	reuseInternalDeps // CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES
)

// pendingFree is a cuMemFreeAsync of a pool allocation that its stream has
// not reached: allocations after it in stream order may take its bytes.
type pendingFree struct {
	size   uint64
	reused uint64 // bytes later allocations took
	s      *stream
	it     *item  // the free's queue item (its seq orders it)
	data   []byte // the freed allocation's storage
}

// reservation is what poolReserveLocked took, for undoing it.
type reservation struct {
	cached, fresh uint64
	taken         map[*pendingFree]uint64
	// data is the storage of a pending free that the allocation took
	// whole: its bytes are the same memory, as on the device, and the
	// fake makes no new storage for them.
	data []byte
}

// poolState is the Backend's pool table (the zero value is ready).
type poolState struct {
	byHandle map[uintptr]*mempool
	defaults map[*device]*mempool
	current  map[*device]*mempool
}

// defaultPoolLocked returns d's default pool, made on first use. b.mu is
// held for writing.
func (b *fakeBackend) defaultPoolLocked(d *device) *mempool {
	ps := &b.pools
	if ps.defaults == nil {
		ps.byHandle = map[uintptr]*mempool{}
		ps.defaults = map[*device]*mempool{}
		ps.current = map[*device]*mempool{}
	}
	p := ps.defaults[d]
	if p == nil {
		p = newMempool(uintptr(mempoolHandle(d)), d, false, 0)
		ps.defaults[d] = p
		ps.byHandle[p.h] = p
	}
	return p
}

func newMempool(h uintptr, d *device, owned bool, maxSize uint64) *mempool {
	return &mempool{h: h, dev: d, owned: owned, maxSize: maxSize, reuse: [3]uint64{1, 1, 1},
		access: map[int]backend.MemAccessFlags{d.ordinal: backend.MemAccessReadWrite}}
}

// currentPoolLocked returns the pool cuMemAllocAsync takes from on d.
func (b *fakeBackend) currentPoolLocked(d *device) *mempool {
	def := b.defaultPoolLocked(d)
	if p := b.pools.current[d]; p != nil {
		return p
	}
	return def
}

// poolLocked returns the live pool with handle h, or ErrInvalidValue.
func (b *fakeBackend) poolLocked(h uintptr) (*mempool, error) {
	for _, d := range b.devs { // the default pools exist once asked for
		b.defaultPoolLocked(d)
	}
	p := b.pools.byHandle[h]
	if p == nil || p.destroyed {
		return nil, driver.ErrInvalidValue
	}
	return p, nil
}

// poolReserveLocked takes size bytes for an allocation from p on stream
// st: cached bytes first, then bytes of frees queued before it in stream
// order (see the reuse rules above), the rest from p's device. It returns
// the allocation's address, what it took, and the streams the allocation
// must wait for (up to their frees) to reuse their bytes.
func (b *fakeBackend) poolReserveLocked(p *mempool, size uintptr, st *stream) (uintptr, reservation, []*pendingFree, error) {
	d := p.dev
	n := uint64(size)
	r := reservation{cached: min(p.cached, n)}
	need := n - r.cached
	var waits []*pendingFree
	for _, pf := range p.pending {
		if need == 0 {
			break
		}
		free := pf.size - pf.reused
		if free == 0 || !b.mayReuseLocked(p, pf, st) {
			continue
		}
		k := min(free, need)
		if k == n && pf.reused == 0 && uint64(len(pf.data)) >= n {
			r.data = pf.data[:n:n]
		}
		if r.taken == nil {
			r.taken = map[*pendingFree]uint64{}
		}
		r.taken[pf] += k
		need -= k
		if pf.s != st {
			waits = append(waits, pf)
		}
	}
	r.fresh = need
	if size > maxStorage || r.fresh > d.total-d.used || (p.maxSize > 0 && p.reserved+r.fresh > p.maxSize) {
		return 0, reservation{}, nil, driver.ErrOutOfMemory
	}
	base, err := d.carveLocked(size)
	if err != nil {
		return 0, reservation{}, nil, err
	}
	for pf, k := range r.taken {
		pf.reused += k
	}
	d.used += r.fresh
	p.cached -= r.cached
	p.reserved += r.fresh
	p.used += r.cached + r.fresh // reused bytes of a pending free are still counted as used
	p.live++
	p.reservedHigh = max(p.reservedHigh, p.reserved)
	p.usedHigh = max(p.usedHigh, p.used)
	return base, r, waits, nil
}

// mayReuseLocked says whether an allocation on st may take the bytes of
// the pending free pf: always on pf's own stream; on another, when the
// pool lets the allocator insert the dependency, or when st waits (in an
// item not yet run) on pf's stream at or after the free.
func (b *fakeBackend) mayReuseLocked(p *mempool, pf *pendingFree, st *stream) bool {
	if pf.s == st || p.reuse[reuseInternalDeps] != 0 {
		return true
	}
	if p.reuse[reuseFollowEvents] == 0 {
		return false
	}
	for _, it := range st.q {
		if it.waitS == pf.s && it.waitSeq >= pf.it.seq {
			return true
		}
	}
	return false
}

// poolUndoLocked gives back what a reservation took, for an allocation
// that was never made.
func (b *fakeBackend) poolUndoLocked(p *mempool, r reservation) {
	for pf, k := range r.taken {
		pf.reused -= k
	}
	p.dev.used -= r.fresh
	p.reserved -= r.fresh
	p.cached += r.cached
	p.used -= r.cached + r.fresh
	p.live--
}

// poolFreeQueuedLocked records a cuMemFreeAsync of pool allocation a on st,
// queued as item it, so that later allocations may reuse its bytes.
func (b *fakeBackend) poolFreeQueuedLocked(a *alloc, st *stream, it *item) {
	a.pendingFree = &pendingFree{size: uint64(a.size), s: st, it: it, data: a.data}
	a.pool.pending = append(a.pool.pending, a.pendingFree)
}

// poolReturnLocked gives a freed pool allocation a back to its pool: what
// later allocations did not already take is cached, and what is cached
// above the release threshold goes back to the device.
func (b *fakeBackend) poolReturnLocked(a *alloc) {
	p := a.pool
	back := uint64(a.size)
	if pf := a.pendingFree; pf != nil {
		back -= pf.reused
		if i := slices.Index(p.pending, pf); i >= 0 {
			p.pending = slices.Delete(p.pending, i, i+1)
		}
		a.pendingFree = nil
	}
	p.used -= back
	p.cached += back
	p.live--
	if p.reserved > p.threshold {
		b.poolReleaseLocked(p, p.reserved-p.threshold)
	}
	if p.destroyed && p.live == 0 {
		b.poolReleaseLocked(p, p.reserved)
		delete(b.pools.byHandle, p.h)
	}
}

// poolReleaseLocked returns up to n cached bytes of p to its device.
func (b *fakeBackend) poolReleaseLocked(p *mempool, n uint64) {
	r := min(n, p.cached)
	p.cached -= r
	p.reserved -= r
	p.dev.used -= r
}

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
	var p *mempool
	if err == nil {
		if pool == 0 {
			p = b.currentPoolLocked(st.ctx.dev)
		} else {
			p, err = b.poolLocked(pool)
		}
	}
	if err != nil || size == 0 { // the driver succeeds and returns 0
		b.mu.Unlock()
		return 0, err
	}
	// Reserve the memory first, so that a request the device cannot hold
	// fails before its storage is made.
	base, r, waits, err := b.poolReserveLocked(p, size, st)
	b.mu.Unlock()
	if err != nil {
		return 0, err
	}
	data := r.data
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
			if b.graphs.captures[st] != nil {
				break // a capture records no waits (see captureLocked)
			}
			if i == 0 {
				it.waitS, it.waitSeq = pf.s, pf.it.seq
				continue
			}
			b.pushLocked(st, &item{run: nop, waitS: pf.s, waitSeq: pf.it.seq})
		}
		b.insertLocked(&alloc{base: base, size: size, data: data, kind: deviceMem, dev: p.dev, ctx: st.ctx, async: true, pool: p, site: here()})
		if b.race != nil && b.graphs.captures[st] == nil {
			// Every use must follow the allocation in stream order, or
			// by an event or a synchronize: the race detector sees it
			// as an access of the allocating stream's work.
			it.run = func() error { b.race.Range(base, size, race.Alloc, op); return nil }
		}
		return nil
	})
	if err != nil {
		b.mu.Lock()
		b.poolUndoLocked(p, r)
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
	return b.defaultPoolLocked(d).h, nil
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
	return b.currentPoolLocked(d).h, nil
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
	p, err := b.poolLocked(pool)
	if err != nil {
		return err
	}
	if p.dev != d {
		return driver.ErrInvalidValue
	}
	b.pools.current[d] = p
	return nil
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
	b.mu.Lock()
	defer b.mu.Unlock()
	b.defaultPoolLocked(d)
	p := newMempool(newHandle(), d, true, uint64(props.MaxSize))
	p.site = here()
	b.pools.byHandle[p.h] = p
	return p.h, nil
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
	p, err := b.poolLocked(pool)
	if err != nil {
		return err
	}
	if !p.owned {
		return driver.ErrInvalidValue
	}
	if b.pools.current[p.dev] == p {
		delete(b.pools.current, p.dev)
	}
	p.destroyed = true
	b.poolReleaseLocked(p, p.cached)
	if p.live == 0 {
		delete(b.pools.byHandle, p.h)
	}
	return nil
}

// MemPoolTrimTo is cuMemPoolTrimTo.
func (b *fakeBackend) MemPoolTrimTo(pool uintptr, minBytesToKeep uintptr) error {
	if err := b.enter(abi.CuMemPoolTrimTo); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	p, err := b.poolLocked(pool)
	if err != nil {
		return err
	}
	if keep := uint64(minBytesToKeep); p.reserved > keep {
		b.poolReleaseLocked(p, p.reserved-keep)
	}
	return nil
}

// MemPoolSetAttribute is cuMemPoolSetAttribute: the reuse flags and the
// release threshold are set; the high-water marks accept only 0 (which
// resets them); the current values are read-only (ErrInvalidValue).
func (b *fakeBackend) MemPoolSetAttribute(pool uintptr, attr backend.MemPoolAttribute, value uint64) error {
	if err := b.enter(abi.CuMemPoolSetAttribute); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	p, err := b.poolLocked(pool)
	if err != nil {
		return err
	}
	switch attr {
	case backend.MemPoolReuseFollowEventDependencies, backend.MemPoolReuseAllowOpportunistic, backend.MemPoolReuseAllowInternalDependencies:
		if value > math.MaxInt32 {
			return driver.ErrInvalidValue
		}
		p.reuse[attr-1] = min(value, 1)
	case backend.MemPoolReleaseThreshold:
		p.threshold = value
		if p.reserved > p.threshold {
			b.poolReleaseLocked(p, p.reserved-p.threshold)
		}
	case backend.MemPoolReservedMemHigh, backend.MemPoolUsedMemHigh:
		if value != 0 {
			return driver.ErrInvalidValue
		}
		if attr == backend.MemPoolReservedMemHigh {
			p.reservedHigh = p.reserved
		} else {
			p.usedHigh = p.used
		}
	default:
		return driver.ErrInvalidValue
	}
	return nil
}

// MemPoolGetAttribute is cuMemPoolGetAttribute.
func (b *fakeBackend) MemPoolGetAttribute(pool uintptr, attr backend.MemPoolAttribute) (uint64, error) {
	if err := b.enter(abi.CuMemPoolGetAttribute); err != nil {
		return 0, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	p, err := b.poolLocked(pool)
	if err != nil {
		return 0, err
	}
	switch attr {
	case backend.MemPoolReuseFollowEventDependencies, backend.MemPoolReuseAllowOpportunistic, backend.MemPoolReuseAllowInternalDependencies:
		return p.reuse[attr-1], nil
	case backend.MemPoolReleaseThreshold:
		return p.threshold, nil
	case backend.MemPoolReservedMemCurrent:
		return p.reserved, nil
	case backend.MemPoolReservedMemHigh:
		return p.reservedHigh, nil
	case backend.MemPoolUsedMemCurrent:
		return p.used, nil
	case backend.MemPoolUsedMemHigh:
		return p.usedHigh, nil
	}
	return 0, driver.ErrInvalidValue
}

// MemPoolSetAccess is cuMemPoolSetAccess: device locations only; the
// pool's own device keeps read-write access (anything else for it is
// ErrInvalidDevice); a device that cannot access the pool's device as a
// peer is ErrInvalidDevice; read-only access is ErrInvalidValue (the
// driver supports none and read-write for pools).
func (b *fakeBackend) MemPoolSetAccess(pool uintptr, descs []backend.MemAccessDesc) error {
	if err := b.enter(abi.CuMemPoolSetAccess); err != nil {
		return err
	}
	if len(descs) == 0 {
		return driver.ErrInvalidValue
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	p, err := b.poolLocked(pool)
	if err != nil {
		return err
	}
	for _, d := range descs {
		if d.Location.Type != backend.MemLocationDevice {
			return driver.ErrInvalidValue
		}
		if _, err := b.dev(int(d.Location.ID)); err != nil {
			return driver.ErrInvalidDevice
		}
		switch d.Flags {
		case backend.MemAccessNone, backend.MemAccessReadWrite:
		default:
			return driver.ErrInvalidValue
		}
		if int(d.Location.ID) == p.dev.ordinal && d.Flags != backend.MemAccessReadWrite {
			return driver.ErrInvalidDevice
		}
	}
	for _, d := range descs {
		p.access[int(d.Location.ID)] = d.Flags
	}
	return nil
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
	p, err := b.poolLocked(pool)
	if err != nil {
		return 0, err
	}
	return p.access[int(loc.ID)], nil
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
