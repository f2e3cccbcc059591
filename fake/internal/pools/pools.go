package pools

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// The fake's pools keep the driver's accounting, kept simple:
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

// Stream is a stream of the core, as the pools see it.
type Stream interface {
	// WaitsFor reports whether the stream waits, in work not yet run, on
	// other at or after other's item of sequence number seq.
	WaitsFor(other Stream, seq uint64) bool
}

// Item is a queued piece of work of the core: a cuMemFreeAsync.
type Item interface {
	// Seq is its place in stream order.
	Seq() uint64
}

// Pool is one memory pool.
type Pool struct {
	site fmt.Stringer // who made it, for Leaks

	h         uintptr
	dev       int
	owned     bool // made by cuMemPoolCreate (the default pool is not)
	destroyed bool // cuMemPoolDestroy was called; it ends when live is 0
	live      int  // allocations not yet freed

	threshold, maxSize                     uint64
	reserved, reservedHigh, used, usedHigh uint64
	cached                                 uint64
	reuse                                  [3]uint64 // the reuse attributes, 1 by default
	access                                 map[int]backend.MemAccessFlags

	pending []*PendingFree // frees queued (cuMemFreeAsync) but not reached
}

// Handle is the pool's CUmemoryPool.
func (p *Pool) Handle() uintptr { return p.h }

// Device is the ordinal of the pool's device.
func (p *Pool) Device() int { return p.dev }

// The reuse attributes, as indexes of Pool.reuse.
const (
	reuseFollowEvents = iota // CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES
	reuseOpportunistic
	reuseInternalDeps // CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES
)

// PendingFree is a cuMemFreeAsync of a pool allocation that its stream has
// not reached: allocations after it in stream order may take its bytes.
type PendingFree struct {
	size   uint64
	reused uint64 // bytes later allocations took
	Stream Stream // the free's stream
	Item   Item   // the free's queue item (its Seq orders it)
	data   []byte // the freed allocation's storage
}

// Reservation is what Reserve took, for undoing it.
type Reservation struct {
	cached, fresh uint64
	taken         map[*PendingFree]uint64
	// Data is the storage of a pending free that the allocation took
	// whole: its bytes are the same memory, as on the device, and the
	// fake makes no new storage for them.
	Data []byte
}

// Room is a backend's pools. Every method is called with the core's lock
// held, and takes the room's.
type Room struct {
	devices int // the backend's devices, ordinals 0..devices-1

	mu       sync.Mutex
	byHandle map[uintptr]*Pool
	defaults map[int]*Pool
	current  map[int]*Pool
}

// New returns the pools of a backend of the given number of devices.
func New(devices int) *Room { r := &Room{devices: devices}; r.reset(); return r }

func (r *Room) reset() {
	r.byHandle = map[uintptr]*Pool{}
	r.defaults = map[int]*Pool{}
	r.current = map[int]*Pool{}
}

// Reset forgets every pool, as the end of the process that made them does.
func (r *Room) Reset() {
	r.mu.Lock()
	r.reset()
	r.mu.Unlock()
}

// defaultHandle is the fake's CUmemoryPool of device dev's default pool.
func defaultHandle(dev int) uintptr { return 0x9900 + uintptr(dev)*0x40 }

// defaultPool returns dev's default pool, made on first use. The room's
// lock is held.
func (r *Room) defaultPool(dev int) *Pool {
	p := r.defaults[dev]
	if p == nil {
		p = newPool(defaultHandle(dev), dev, false, 0)
		r.defaults[dev] = p
		r.byHandle[p.h] = p
	}
	return p
}

func newPool(h uintptr, dev int, owned bool, maxSize uint64) *Pool {
	return &Pool{h: h, dev: dev, owned: owned, maxSize: maxSize, reuse: [3]uint64{1, 1, 1},
		access: map[int]backend.MemAccessFlags{dev: backend.MemAccessReadWrite}}
}

// Default returns device dev's default pool (cuDeviceGetDefaultMemPool).
func (r *Room) Default(dev int) *Pool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.defaultPool(dev)
}

// Current returns the pool cuMemAllocAsync takes from on dev.
func (r *Room) Current(dev int) *Pool {
	r.mu.Lock()
	defer r.mu.Unlock()
	def := r.defaultPool(dev)
	if p := r.current[dev]; p != nil {
		return p
	}
	return def
}

// lookup returns the live pool with handle h, or ErrInvalidValue. The
// room's lock is held.
func (r *Room) lookup(h uintptr) (*Pool, error) {
	for d := range r.devices { // the default pools exist once asked for
		r.defaultPool(d)
	}
	p := r.byHandle[h]
	if p == nil || p.destroyed {
		return nil, driver.ErrInvalidValue
	}
	return p, nil
}

// Lookup returns the live pool with handle h, or ErrInvalidValue.
func (r *Room) Lookup(h uintptr) (*Pool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lookup(h)
}

// SetCurrent is cuDeviceSetMemPool: the pool must be of dev.
func (r *Room) SetCurrent(dev int, h uintptr) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, err := r.lookup(h)
	if err != nil {
		return err
	}
	if p.dev != dev {
		return driver.ErrInvalidValue
	}
	r.current[dev] = p
	return nil
}

// Create is cuMemPoolCreate of a pool on dev, made at site (nil: none
// known).
func (r *Room) Create(h uintptr, dev int, maxSize uint64, site fmt.Stringer) uintptr {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.defaultPool(dev)
	p := newPool(h, dev, true, maxSize)
	p.site = site
	r.byHandle[p.h] = p
	return p.h
}

// Reserve takes size bytes for an allocation from p on stream st: cached
// bytes first, then bytes of frees queued before it in stream order (see
// the reuse rules above), the rest from p's device, through carve: it is
// given the fresh bytes the device must hold and returns the address (or
// the device's error, ErrOutOfMemory when they do not fit); the caller
// counts them as used. Reserve returns the address, what it took, and the
// frees whose streams the allocation must wait for (up to the free) to
// reuse their bytes.
func (r *Room) Reserve(p *Pool, size uintptr, st Stream, carve func(fresh uint64) (uintptr, error)) (uintptr, Reservation, []*PendingFree, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := uint64(size)
	res := Reservation{cached: min(p.cached, n)}
	need := n - res.cached
	var waits []*PendingFree
	for _, pf := range p.pending {
		if need == 0 {
			break
		}
		free := pf.size - pf.reused
		if free == 0 || !mayReuse(p, pf, st) {
			continue
		}
		k := min(free, need)
		if k == n && pf.reused == 0 && uint64(len(pf.data)) >= n {
			res.Data = pf.data[:n:n]
		}
		if res.taken == nil {
			res.taken = map[*PendingFree]uint64{}
		}
		res.taken[pf] += k
		need -= k
		if pf.Stream != st {
			waits = append(waits, pf)
		}
	}
	res.fresh = need
	if p.maxSize > 0 && p.reserved+res.fresh > p.maxSize {
		return 0, Reservation{}, nil, driver.ErrOutOfMemory
	}
	base, err := carve(res.fresh)
	if err != nil {
		return 0, Reservation{}, nil, err
	}
	for pf, k := range res.taken {
		pf.reused += k
	}
	p.cached -= res.cached
	p.reserved += res.fresh
	p.used += res.cached + res.fresh // reused bytes of a pending free are still counted as used
	p.live++
	p.reservedHigh = max(p.reservedHigh, p.reserved)
	p.usedHigh = max(p.usedHigh, p.used)
	return base, res, waits, nil
}

// mayReuse says whether an allocation on st may take the bytes of the
// pending free pf: always on pf's own stream; on another, when the pool
// lets the allocator insert the dependency, or when st waits (in an item
// not yet run) on pf's stream at or after the free.
func mayReuse(p *Pool, pf *PendingFree, st Stream) bool {
	if pf.Stream == st || p.reuse[reuseInternalDeps] != 0 {
		return true
	}
	if p.reuse[reuseFollowEvents] == 0 {
		return false
	}
	return st.WaitsFor(pf.Stream, pf.Item.Seq())
}

// Undo gives back what a reservation took, for an allocation that was
// never made; it returns the fresh bytes, which the device gets back.
func (r *Room) Undo(p *Pool, res Reservation) (toDevice uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for pf, k := range res.taken {
		pf.reused -= k
	}
	p.reserved -= res.fresh
	p.cached += res.cached
	p.used -= res.cached + res.fresh
	p.live--
	return res.fresh
}

// FreeQueued records a cuMemFreeAsync of a pool allocation of size bytes
// and storage data on st, queued as it, so that later allocations may
// reuse its bytes.
func (r *Room) FreeQueued(p *Pool, size uintptr, data []byte, st Stream, it Item) *PendingFree {
	r.mu.Lock()
	defer r.mu.Unlock()
	pf := &PendingFree{size: uint64(size), Stream: st, Item: it, data: data}
	p.pending = append(p.pending, pf)
	return pf
}

// Return gives a freed pool allocation of size bytes back to its pool (pf:
// its queued free, if any): what later allocations did not already take
// is cached, and what is cached above the release threshold goes back to
// the device. It returns the bytes the device gets back.
func (r *Room) Return(p *Pool, size uintptr, pf *PendingFree) (toDevice uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	back := uint64(size)
	if pf != nil {
		back -= pf.reused
		if i := slices.Index(p.pending, pf); i >= 0 {
			p.pending = slices.Delete(p.pending, i, i+1)
		}
	}
	p.used -= back
	p.cached += back
	p.live--
	if p.reserved > p.threshold {
		toDevice += release(p, p.reserved-p.threshold)
	}
	if p.destroyed && p.live == 0 {
		toDevice += release(p, p.reserved)
		delete(r.byHandle, p.h)
	}
	return toDevice
}

// release returns up to n cached bytes of p, for its device.
func release(p *Pool, n uint64) uint64 {
	k := min(n, p.cached)
	p.cached -= k
	p.reserved -= k
	return k
}

// Destroy is cuMemPoolDestroy: a default pool is ErrInvalidValue; a pool
// that is a device's current pool stops being it. It returns the bytes the
// device gets back.
func (r *Room) Destroy(h uintptr) (toDevice uint64, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, err := r.lookup(h)
	if err != nil {
		return 0, err
	}
	if !p.owned {
		return 0, driver.ErrInvalidValue
	}
	if r.current[p.dev] == p {
		delete(r.current, p.dev)
	}
	p.destroyed = true
	toDevice = release(p, p.cached)
	if p.live == 0 {
		delete(r.byHandle, p.h)
	}
	return toDevice, nil
}

// TrimTo is cuMemPoolTrimTo. It returns the bytes the device gets back.
func (r *Room) TrimTo(h uintptr, keep uint64) (toDevice uint64, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, err := r.lookup(h)
	if err != nil {
		return 0, err
	}
	if p.reserved > keep {
		toDevice = release(p, p.reserved-keep)
	}
	return toDevice, nil
}

// SetAttribute is cuMemPoolSetAttribute: the reuse flags and the release
// threshold are set; the high-water marks accept only 0 (which resets
// them); the current values are read-only (ErrInvalidValue). It returns
// the bytes the device gets back.
func (r *Room) SetAttribute(h uintptr, attr backend.MemPoolAttribute, value uint64) (toDevice uint64, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, err := r.lookup(h)
	if err != nil {
		return 0, err
	}
	switch attr {
	case backend.MemPoolReuseFollowEventDependencies, backend.MemPoolReuseAllowOpportunistic, backend.MemPoolReuseAllowInternalDependencies:
		if value > math.MaxInt32 {
			return 0, driver.ErrInvalidValue
		}
		p.reuse[attr-1] = min(value, 1)
	case backend.MemPoolReleaseThreshold:
		p.threshold = value
		if p.reserved > p.threshold {
			toDevice = release(p, p.reserved-p.threshold)
		}
	case backend.MemPoolReservedMemHigh, backend.MemPoolUsedMemHigh:
		if value != 0 {
			return 0, driver.ErrInvalidValue
		}
		if attr == backend.MemPoolReservedMemHigh {
			p.reservedHigh = p.reserved
		} else {
			p.usedHigh = p.used
		}
	default:
		return 0, driver.ErrInvalidValue
	}
	return toDevice, nil
}

// GetAttribute is cuMemPoolGetAttribute.
func (r *Room) GetAttribute(h uintptr, attr backend.MemPoolAttribute) (uint64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, err := r.lookup(h)
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

// SetAccess is cuMemPoolSetAccess: device locations only; the pool's own
// device keeps read-write access (anything else for it is
// ErrInvalidDevice); a device that is none of the backend's is
// ErrInvalidDevice; read-only access is ErrInvalidValue (the driver
// supports none and read-write for pools).
func (r *Room) SetAccess(h uintptr, descs []backend.MemAccessDesc) error {
	if len(descs) == 0 {
		return driver.ErrInvalidValue
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	p, err := r.lookup(h)
	if err != nil {
		return err
	}
	for _, d := range descs {
		if d.Location.Type != backend.MemLocationDevice {
			return driver.ErrInvalidValue
		}
		if d.Location.ID < 0 || int(d.Location.ID) >= r.devices {
			return driver.ErrInvalidDevice
		}
		switch d.Flags {
		case backend.MemAccessNone, backend.MemAccessReadWrite:
		default:
			return driver.ErrInvalidValue
		}
		if int(d.Location.ID) == p.dev && d.Flags != backend.MemAccessReadWrite {
			return driver.ErrInvalidDevice
		}
	}
	for _, d := range descs {
		p.access[int(d.Location.ID)] = d.Flags
	}
	return nil
}

// GetAccess is cuMemPoolGetAccess of device dev.
func (r *Room) GetAccess(h uintptr, dev int) (backend.MemAccessFlags, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, err := r.lookup(h)
	if err != nil {
		return 0, err
	}
	return p.access[dev], nil
}

// Leaks lists the pools made by cuMemPoolCreate and not destroyed.
func (r *Room) Leaks() []backend.Leak {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []backend.Leak
	for h, p := range r.byHandle {
		if p.owned && !p.destroyed {
			l := backend.Leak{Kind: backend.LeakMemPool, Handle: h, Device: p.dev}
			if p.site != nil {
				l.Site = p.site.String()
			}
			out = append(out, l)
		}
	}
	return out
}
