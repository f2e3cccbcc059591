package memory

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/stream"
)

// Pool is a stream-ordered memory pool of a device (CUmemoryPool): the
// memory AllocAsync and AllocFromPool hand out and FreeAsync gives back.
// Freed memory stays in the pool, reserved from the device, until the pool
// releases it: at a synchronization (stream, event or context), the pool
// keeps up to its release threshold and gives the rest back to the device.
//
// # Release threshold
//
// The default threshold is 0: every synchronization returns all cached
// memory to the device, and the next allocation maps it again, which makes
// stream-ordered allocation in a loop that synchronizes slow (the cost
// cuda.core and PyTorch users meet). Programs that own the device should
// set it high, as cuda.core and PyTorch do:
//
//	pool.SetReleaseThreshold(math.MaxUint64) // keep everything; Trim when needed
//
// and call Trim when memory should go back to the device (or to another
// process). Programs sharing the device pick a bound instead.
//
// # Ownership
//
// A pool made by NewPool is owned: Close destroys it (cuMemPoolDestroy;
// memory still allocated from it stays valid until freed, and is then
// released). DefaultPool and CurrentPool wrap the device's pools, shared
// with every other user of the device in the process: Close only detaches.
// Every Pool holds its context until Close (see driver.Context), and pool
// calls bind it.
//
// Methods are safe for concurrent use, except Close with other calls.
type Pool struct {
	ctx   *driver.Context
	hold  *core.Hold
	h     uintptr
	dev   int
	owned bool

	// live counts the buffers the pool backs and that are not yet freed:
	// those of AllocFromPool, and those of AllocAsync while the pool was its
	// device's current pool (see SetCurrent); used records that any ever
	// were, or that the pool was made current.
	live atomic.Int64
	used atomic.Bool
	// lost records that a buffer of the pool was dropped when its free
	// failed because the process can do no more CUDA work (a sticky fault,
	// a driver shutting down): the driver may count its memory as used
	// for good, which then no longer keeps the pool.
	lost atomic.Bool
}

// madeCurrent lists the open owned pools that SetCurrent made current, per
// driver and device: AllocAsync on such a device asks the driver which pool
// is current (cuDeviceGetMemPool) and counts its buffer in that Pool, so
// that the Pool is not destroyed under it. Empty (the common case), it
// costs AllocAsync one atomic load.
var madeCurrent struct {
	n     atomic.Int32
	mu    sync.Mutex
	pools map[deviceKey][]*Pool
}

// deviceKey names a device of a driver.
type deviceKey struct {
	drv *driver.Driver
	dev int
}

// noteCurrent records that p was made current.
func (p *Pool) noteCurrent() {
	p.used.Store(true)
	madeCurrent.mu.Lock()
	defer madeCurrent.mu.Unlock()
	k := deviceKey{p.ctx.Driver(), p.dev}
	if slices.Contains(madeCurrent.pools[k], p) {
		return
	}
	if madeCurrent.pools == nil {
		madeCurrent.pools = map[deviceKey][]*Pool{}
	}
	madeCurrent.pools[k] = append(madeCurrent.pools[k], p)
	madeCurrent.n.Add(1)
}

// forgetCurrent drops p from madeCurrent once it is destroyed.
func (p *Pool) forgetCurrent() {
	madeCurrent.mu.Lock()
	defer madeCurrent.mu.Unlock()
	k := deviceKey{p.ctx.Driver(), p.dev}
	if i := slices.Index(madeCurrent.pools[k], p); i >= 0 {
		madeCurrent.pools[k] = slices.Delete(madeCurrent.pools[k], i, i+1)
		if len(madeCurrent.pools[k]) == 0 {
			delete(madeCurrent.pools, k)
		}
		madeCurrent.n.Add(-1)
	}
}

// currentOwnedPool returns the Pool of this package that AllocAsync on
// ctx's device allocates from now, or nil when it is none of them. It asks
// the driver (cuDeviceGetMemPool) only while a Pool of this package has been
// made current on that device; its error is the driver's.
func currentOwnedPool(ctx *driver.Context) (*Pool, error) {
	if madeCurrent.n.Load() == 0 {
		return nil, nil
	}
	k := deviceKey{ctx.Driver(), ctx.Device().Ordinal()}
	madeCurrent.mu.Lock()
	candidates := slices.Clone(madeCurrent.pools[k])
	madeCurrent.mu.Unlock()
	if len(candidates) == 0 {
		return nil, nil
	}
	mp, ok := core.ContextOf(ctx).API.(backend.MemPools)
	if !ok {
		return nil, nil
	}
	h, err := mp.DeviceGetMemPool(k.dev)
	if err != nil {
		return nil, fmt.Errorf("cuDeviceGetMemPool(device %d): %w", k.dev, err)
	}
	for _, p := range candidates {
		if p.h == h && !p.hold.Closed() {
			return p, nil
		}
	}
	return nil, nil
}

// ErrPoolInUse is what Close of an owned Pool returns while buffers
// allocated from it are not yet closed. The driver allows destroying such
// a pool (it is released once the last allocation is freed), but on the
// H200 with driver 580 that deferred release corrupts the driver: a later
// cuMemPoolDestroy of a pool on another device crashes the process
// (SIGSEGV; a C program reproduces it, docs/h200-facts.md). So Close the
// buffers first, then the Pool.
var ErrPoolInUse = errors.New("memory: buffers allocated from the pool are not closed")

// PoolOptions configure NewPool. The zero value is a pool of the device's
// pinned memory with the driver's default maximum size.
type PoolOptions struct {
	// MaxSize caps the memory the pool reserves, in bytes (0: the
	// driver's default, the device's memory). Needs CUDA 12.2.
	MaxSize uint64
	// ReleaseThreshold is set on the new pool when not 0 (see Pool).
	ReleaseThreshold uint64
}

// PoolStats are a pool's counters, in bytes (the driver rounds allocations
// up and reserves in chunks, so they exceed the sizes asked for).
type PoolStats struct {
	ReservedCurrent uint64 // memory the pool holds from the device: used plus cached
	ReservedHigh    uint64 // the most ReservedCurrent has been since the last ResetHighWater
	UsedCurrent     uint64 // memory allocated from the pool and not freed
	UsedHigh        uint64 // the most UsedCurrent has been since the last ResetHighWater
}

// Access is a peer device's access to a pool's memory.
type Access int32

// Access levels (the driver accepts none and read-write for pools).
const (
	AccessNone      = Access(backend.MemAccessNone)
	AccessReadWrite = Access(backend.MemAccessReadWrite)
)

// String returns "none", "read-write", or the number.
func (a Access) String() string {
	switch a {
	case AccessNone:
		return "none"
	case AccessReadWrite:
		return "read-write"
	case Access(backend.MemAccessRead):
		return "read"
	}
	return fmt.Sprintf("Access(%d)", int32(a))
}

// ErrNoPools is wrapped by the pool functions when the backend has no
// memory pools (errors.Is(err, errors.ErrUnsupported) holds too).
var ErrNoPools = fmt.Errorf("memory: the backend has no stream-ordered memory pools (backend.MemPools): %w", errors.ErrUnsupported)

// poolsOf returns ctx's backend as backend.MemPools.
func poolsOf(op string, ctx *driver.Context) (*core.Context, backend.MemPools, error) {
	c, err := core.Of(op, ctx)
	if err != nil {
		return nil, nil, err
	}
	mp, ok := c.API.(backend.MemPools)
	if !ok {
		return nil, nil, fmt.Errorf("%s: %w", op, ErrNoPools)
	}
	return c, mp, nil
}

// NewPool creates a memory pool of ctx's device (cuMemPoolCreate). The
// caller owns it: Close destroys it. It is not the device's current pool
// (see SetCurrent): allocate from it with AllocFromPool.
func NewPool(ctx *driver.Context, opts PoolOptions) (*Pool, error) {
	const op = "memory.NewPool"
	c, mp, err := poolsOf(op, ctx)
	if err != nil {
		return nil, err
	}
	if uint64(uintptr(opts.MaxSize)) != opts.MaxSize {
		return nil, fmt.Errorf("%s: MaxSize %d does not fit a size_t: %w", op, opts.MaxSize, driver.ErrInvalidInput)
	}
	dev := ctx.Device().Ordinal()
	h, err := c.Hold()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	var pool uintptr
	made := false
	err = h.Do(func(backend.API) error {
		var r error
		props := backend.MemPoolProps{
			AllocType: backend.MemAllocationTypePinned,
			Location:  backend.MemLocation{Type: backend.MemLocationDevice, ID: int32(dev)},
			MaxSize:   uintptr(opts.MaxSize),
		}
		if pool, r = mp.MemPoolCreate(props); r != nil {
			return fmt.Errorf("%s: cuMemPoolCreate: %w", ctx, r)
		}
		if opts.ReleaseThreshold != 0 {
			if r = mp.MemPoolSetAttribute(pool, backend.MemPoolReleaseThreshold, opts.ReleaseThreshold); r != nil {
				mp.MemPoolDestroy(pool)
				return fmt.Errorf("%s: cuMemPoolSetAttribute(release threshold): %w", ctx, r)
			}
		}
		made = true
		return nil
	})
	if err != nil {
		if made { // made, but unbinding failed
			err = h.Undo(err, func(backend.API) error { return mp.MemPoolDestroy(pool) })
		}
		return nil, h.Drop(fmt.Errorf("%s: %w", op, err))
	}
	return &Pool{ctx: ctx, hold: h, h: pool, dev: dev, owned: true}, nil
}

// DefaultPool wraps the default pool of ctx's device
// (cuDeviceGetDefaultMemPool), shared with every user of the device in the
// process; Close only detaches.
func DefaultPool(ctx *driver.Context) (*Pool, error) {
	return wrapPool("memory.DefaultPool", ctx, "cuDeviceGetDefaultMemPool", backend.MemPools.DeviceGetDefaultMemPool)
}

// CurrentPool wraps the pool AllocAsync allocates from on ctx's device
// (cuDeviceGetMemPool): the default pool unless SetCurrent (here or in
// another library) changed it. Close only detaches.
func CurrentPool(ctx *driver.Context) (*Pool, error) {
	return wrapPool("memory.CurrentPool", ctx, "cuDeviceGetMemPool", backend.MemPools.DeviceGetMemPool)
}

func wrapPool(op string, ctx *driver.Context, call string, get func(backend.MemPools, int) (uintptr, error)) (*Pool, error) {
	c, mp, err := poolsOf(op, ctx)
	if err != nil {
		return nil, err
	}
	dev := ctx.Device().Ordinal()
	h, err := c.Hold()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	var pool uintptr
	err = h.Do(func(backend.API) error {
		var r error
		if pool, r = get(mp, dev); r != nil {
			return fmt.Errorf("%s: %s: %w", ctx, call, r)
		}
		return nil
	})
	if err != nil {
		return nil, h.Drop(fmt.Errorf("%s: %w", op, err))
	}
	return &Pool{ctx: ctx, hold: h, h: pool, dev: dev}, nil
}

// Handle returns the raw CUmemoryPool (0 for a nil Pool).
func (p *Pool) Handle() uintptr {
	if p == nil {
		return 0
	}
	return p.h
}

// Context returns the context the pool was obtained through.
func (p *Pool) Context() *driver.Context {
	if p == nil {
		return nil
	}
	return p.ctx
}

// Owned reports whether Close destroys the pool (NewPool).
func (p *Pool) Owned() bool { return p != nil && p.owned }

// String describes the pool, for errors and logs.
func (p *Pool) String() string {
	if p == nil || p.hold == nil {
		return "nil pool"
	}
	what := "wrapped"
	if p.owned {
		what = "owned"
	}
	s := fmt.Sprintf("%s pool %#x of device %d", what, p.h, p.dev)
	if p.hold.Closed() {
		s = "closed " + s
	}
	return s
}

// do runs call on the pool's backend with its context bound, for op.
func (p *Pool) do(op string, call func(mp backend.MemPools) error) error {
	if p == nil || p.hold == nil {
		return fmt.Errorf("%s: nil pool: %w", op, driver.ErrInvalidInput)
	}
	if p.hold.Closed() {
		return fmt.Errorf("%s: %s: %w", op, p, driver.ErrClosed)
	}
	mp := p.hold.Context().API.(backend.MemPools) // checked when made
	if err := p.hold.Do(func(backend.API) error { return call(mp) }); err != nil {
		return fmt.Errorf("%s: %s: %w", op, p, err)
	}
	return nil
}

func (p *Pool) get(op string, attr backend.MemPoolAttribute) (uint64, error) {
	var v uint64
	err := p.do(op, func(mp backend.MemPools) error {
		var r error
		if v, r = mp.MemPoolGetAttribute(p.h, attr); r != nil {
			return fmt.Errorf("cuMemPoolGetAttribute: %w", r)
		}
		return nil
	})
	return v, err
}

func (p *Pool) set(op string, attr backend.MemPoolAttribute, v uint64) error {
	return p.do(op, func(mp backend.MemPools) error {
		if r := mp.MemPoolSetAttribute(p.h, attr, v); r != nil {
			return fmt.Errorf("cuMemPoolSetAttribute: %w", r)
		}
		return nil
	})
}

// SetReleaseThreshold sets how many bytes of freed memory the pool keeps
// reserved across synchronizations (CU_MEMPOOL_ATTR_RELEASE_THRESHOLD; see
// Pool: math.MaxUint64 keeps everything). On a wrapped pool it changes the
// pool for every user in the process.
func (p *Pool) SetReleaseThreshold(bytes uint64) error {
	return p.set("memory.Pool.SetReleaseThreshold", backend.MemPoolReleaseThreshold, bytes)
}

// ReleaseThreshold returns the pool's release threshold in bytes.
func (p *Pool) ReleaseThreshold() (uint64, error) {
	return p.get("memory.Pool.ReleaseThreshold", backend.MemPoolReleaseThreshold)
}

// Trim releases cached memory back to the device until the pool reserves
// at most minBytesToKeep bytes, or holds nothing unused (cuMemPoolTrimTo).
// Memory in use is never released.
func (p *Pool) Trim(minBytesToKeep uint64) error {
	const op = "memory.Pool.Trim"
	keep := uintptr(minBytesToKeep)
	if uint64(keep) != minBytesToKeep { // more than the address space: keep all
		keep = ^uintptr(0)
	}
	return p.do(op, func(mp backend.MemPools) error {
		if r := mp.MemPoolTrimTo(p.h, keep); r != nil {
			return fmt.Errorf("cuMemPoolTrimTo(%d): %w", keep, r)
		}
		return nil
	})
}

// Stats returns the pool's counters.
func (p *Pool) Stats() (PoolStats, error) {
	const op = "memory.Pool.Stats"
	var st PoolStats
	err := p.do(op, func(mp backend.MemPools) error {
		for _, f := range []struct {
			attr backend.MemPoolAttribute
			v    *uint64
		}{
			{backend.MemPoolReservedMemCurrent, &st.ReservedCurrent},
			{backend.MemPoolReservedMemHigh, &st.ReservedHigh},
			{backend.MemPoolUsedMemCurrent, &st.UsedCurrent},
			{backend.MemPoolUsedMemHigh, &st.UsedHigh},
		} {
			var r error
			if *f.v, r = mp.MemPoolGetAttribute(p.h, f.attr); r != nil {
				return fmt.Errorf("cuMemPoolGetAttribute(%d): %w", f.attr, r)
			}
		}
		return nil
	})
	return st, err
}

// ResetHighWater resets both high-water marks to the current values.
func (p *Pool) ResetHighWater() error {
	const op = "memory.Pool.ResetHighWater"
	return p.do(op, func(mp backend.MemPools) error {
		for _, attr := range []backend.MemPoolAttribute{backend.MemPoolReservedMemHigh, backend.MemPoolUsedMemHigh} {
			if r := mp.MemPoolSetAttribute(p.h, attr, 0); r != nil {
				return fmt.Errorf("cuMemPoolSetAttribute(%d, 0): %w", attr, r)
			}
		}
		return nil
	})
}

// peer checks a device given to SetAccess or Access: a nil or zero one is
// an error wrapping ErrInvalidValue, one of another *driver.Driver than the
// pool's an error wrapping driver.ErrWrongContext (its ordinal would name a device
// of this driver).
func (p *Pool) peer(op string, dev *driver.Device) error {
	if dev == nil || dev.Driver() == nil {
		return fmt.Errorf("%s: %s: nil or zero device: %w", op, p, driver.ErrInvalidInput)
	}
	if p != nil && p.ctx != nil && dev.Driver() != p.ctx.Driver() {
		return fmt.Errorf("%s: %s: device %d belongs to another *driver.Driver: %w", op, p, dev.Ordinal(), driver.ErrWrongContext)
	}
	return nil
}

// SetAccess sets what dev, another device, may do with the pool's memory
// (cuMemPoolSetAccess): AccessReadWrite maps all the pool's memory, now and
// later, into dev; AccessNone unmaps it. The pool's own device always has
// read-write access: asking for it is an error wrapping
// driver.ErrInvalidDevice, before any driver call. The driver refuses
// devices that cannot access the pool's device as peers
// (Device.CanAccessPeer).
func (p *Pool) SetAccess(dev *driver.Device, a Access) error {
	const op = "memory.Pool.SetAccess"
	if err := p.peer(op, dev); err != nil {
		return err
	}
	if a != AccessNone && a != AccessReadWrite {
		return fmt.Errorf("%s: %s: access %s: pools take AccessNone or AccessReadWrite: %w", op, p, a, driver.ErrInvalidInput)
	}
	if p != nil && dev.Ordinal() == p.dev {
		return fmt.Errorf("%s: %s: device %d owns the pool and always has read-write access: %w", op, p, p.dev, driver.ErrInvalidDevice)
	}
	desc := []backend.MemAccessDesc{{Location: backend.MemLocation{Type: backend.MemLocationDevice, ID: int32(dev.Ordinal())}, Flags: backend.MemAccessFlags(a)}}
	return p.do(op, func(mp backend.MemPools) error {
		if r := mp.MemPoolSetAccess(p.h, desc); r != nil {
			return fmt.Errorf("cuMemPoolSetAccess(device %d, %s): %w", dev.Ordinal(), a, r)
		}
		return nil
	})
}

// Access returns dev's access to the pool's memory (cuMemPoolGetAccess);
// the pool's own device has AccessReadWrite.
func (p *Pool) Access(dev *driver.Device) (Access, error) {
	const op = "memory.Pool.Access"
	if err := p.peer(op, dev); err != nil {
		return 0, err
	}
	var a Access
	err := p.do(op, func(mp backend.MemPools) error {
		f, r := mp.MemPoolGetAccess(p.h, backend.MemLocation{Type: backend.MemLocationDevice, ID: int32(dev.Ordinal())})
		if r != nil {
			return fmt.Errorf("cuMemPoolGetAccess(device %d): %w", dev.Ordinal(), r)
		}
		a = Access(f)
		return nil
	})
	return a, err
}

// SetCurrent makes p the pool AllocAsync allocates from on its device
// (cuDeviceSetMemPool). This is process-wide state: it changes where every
// cudaMallocAsync and cuMemAllocAsync of the process allocates on the
// device, other libraries' included, and lasts until changed again or p is
// destroyed (then the default pool is current again). Prefer
// AllocFromPool, which touches nothing shared.
func (p *Pool) SetCurrent() error {
	const op = "memory.Pool.SetCurrent"
	return p.do(op, func(mp backend.MemPools) error {
		if p.owned {
			// Noted before the call, so that no AllocAsync from p goes
			// uncounted; a refused call leaves a note that costs only a
			// query per AllocAsync.
			p.noteCurrent()
		}
		if r := mp.DeviceSetMemPool(p.dev, p.h); r != nil {
			return fmt.Errorf("cuDeviceSetMemPool(device %d): %w", p.dev, r)
		}
		return nil
	})
}

// Close ends the Pool: an owned pool is destroyed (cuMemPoolDestroy), a
// wrapped one detached. It then lets go of the context. While buffers the
// pool backs are open, Close of an owned pool is refused with an error
// wrapping ErrPoolInUse and changes nothing: those of AllocFromPool, those
// of AllocAsync made while the pool was current (SetCurrent), and any other
// memory the driver counts as in use in the pool (memory another library
// allocated from it). A second Close is a no-op returning nil; if the
// driver refuses, the error is returned and the Pool stays open.
func (p *Pool) Close() error {
	const op = "memory.Pool.Close"
	if p == nil || p.hold == nil {
		return fmt.Errorf("%s: nil pool: %w", op, driver.ErrInvalidInput)
	}
	var destroy func(backend.API) error
	if p.owned {
		if n := p.live.Load(); n > 0 && !p.hold.Closed() {
			return fmt.Errorf("%s: %s: %d buffers still allocated from it: %w", op, p, n, ErrPoolInUse)
		}
		destroy = func(api backend.API) error {
			if p.used.Load() {
				// Frees queued on streams (FreeAsync) must be done before
				// the pool goes, or the driver defers its release (see
				// ErrPoolInUse).
				if r := api.CtxSynchronize(); r != nil {
					return fmt.Errorf("%s: cuCtxSynchronize: %w", p, r)
				}
			}
			mp := api.(backend.MemPools)
			// Whatever allocated it, memory in use in the pool keeps it.
			if used, r := mp.MemPoolGetAttribute(p.h, backend.MemPoolUsedMemCurrent); r != nil {
				return fmt.Errorf("%s: cuMemPoolGetAttribute(USED_MEM_CURRENT): %w", p, r)
			} else if used > 0 && !p.lost.Load() {
				return fmt.Errorf("%s: %d bytes of it are still allocated: %w", p, used, ErrPoolInUse)
			}
			if r := mp.MemPoolDestroy(p.h); r != nil {
				return fmt.Errorf("%s: cuMemPoolDestroy: %w", p, r)
			}
			return nil
		}
	}
	if err := p.hold.Close(destroy); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if p.owned {
		p.forgetCurrent()
	}
	return nil
}

// AllocFromPool is AllocAsync from a chosen pool (cuMemAllocFromPoolAsync):
// n elements of T, usable by work queued on s after this call, returned as
// a stream-ordered Buffer that Close or FreeAsync frees (back to pool). s
// and pool must be of the same device (driver.ErrWrongContext otherwise, before any
// driver call). The buffer does not keep the pool: destroying the pool
// first leaves the buffer valid until freed.
func AllocFromPool[T any](s *stream.Stream, pool *Pool, n int) (*Buffer[T], error) {
	e := elemOf[T]()
	op := "memory.AllocFromPool[" + e.name + "]"
	q, err := queueOf(op, s)
	if err != nil {
		return nil, err
	}
	if pool == nil || pool.hold == nil {
		return nil, fmt.Errorf("%s: nil pool: %w", op, driver.ErrInvalidInput)
	}
	if pool.hold.Closed() {
		return nil, fmt.Errorf("%s: %s: %w", op, pool, driver.ErrClosed)
	}
	if d := s.Context().Device(); d.Driver() != pool.ctx.Driver() || d.Ordinal() != pool.dev {
		return nil, fmt.Errorf("%s: %s on stream %#x of %s: %w", op, pool, s.Handle(), s.Context(), driver.ErrWrongContext)
	}
	size, err := e.sizeOf(op, n)
	if err != nil {
		return nil, err
	}
	mp := pool.hold.Context().API.(backend.MemPools)
	ptr, h, err := allocAsyncWith(s, q, size, op, n, "cuMemAllocFromPoolAsync", func(size uintptr) (uintptr, error) {
		return mp.MemAllocFromPoolAsync(size, pool.h, s.Handle())
	})
	if err != nil {
		return nil, err
	}
	a := &allocation{ctx: s.Context(), hold: h, kind: kindAsync, base: ptr, size: size, s: s}
	if ptr != 0 {
		a.pool = pool
		pool.live.Add(1)
		pool.used.Store(true)
	}
	return newBuffer[T](a, ptr, n), nil
}
