package fake

import (
	"sort"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/pools"
	"github.com/nocgo/cuda/fake/internal/race"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/core"
)

type allocKind int

const (
	deviceMem  allocKind = iota // cuMemAlloc / cuMemAllocAsync
	hostMem                     // cuMemHostAlloc (page-locked host memory)
	ipcMapping                  // cuIpcOpenMemHandle: another backend's storage
)

// poison fills fresh device allocations, so that reading memory nobody
// wrote shows up in tests instead of passing as zeros.
const poison = 0xA5

type alloc struct {
	base  uintptr
	size  uintptr
	data  []byte
	kind  allocKind
	dev   *device // deviceMem, ipcMapping
	ctx   *context
	async bool        // stream-ordered (cuMemAllocAsync)
	pool  *pools.Pool // the pool of a stream-ordered allocation
	// managed: cuMemAllocManaged memory, which the host reads and writes
	// at the address PointerAttrHostPointer gives (its storage).
	managed bool
	// registered: host memory of the caller's, page-locked by
	// cuMemHostRegister (kind hostMem; data views the caller's memory).
	registered bool
	// freeQueued: a cuMemFreeAsync is pending.
	freeQueued bool
	// pendingFree: that free, for a pool allocation (see pools.go).
	pendingFree *pools.PendingFree
	id          uint64       // buffer id
	ipcID       uint64       // exported under this id, 0 if not
	race        race.Shadow  // the race detector's record of its bytes (fake/internal/race)
	mapping     *mappingView // a cuMemMap mapping's (kind vmmMapping; vmm.go)

	site callSite // who made it, for Leaks (leak_site.go)
}

func (a *alloc) end() uintptr { return a.base + a.size }

// findLocked returns the allocation containing p, or nil.
func (b *fakeBackend) findLocked(p uintptr) *alloc {
	i := sort.Search(len(b.mem), func(i int) bool { return b.mem[i].end() > p })
	if i < len(b.mem) && b.mem[i].base <= p {
		return b.mem[i]
	}
	return nil
}

func (b *fakeBackend) insertLocked(a *alloc) {
	b.bufferID++
	a.id = b.bufferID
	i := sort.Search(len(b.mem), func(i int) bool { return b.mem[i].base > a.base })
	b.mem = append(b.mem, nil)
	copy(b.mem[i+1:], b.mem[i:])
	b.mem[i] = a
}

// removeLocked forgets a and gives its bytes back to its device.
func (b *fakeBackend) removeLocked(a *alloc) {
	i := sort.Search(len(b.mem), func(i int) bool { return b.mem[i].base >= a.base })
	if i < len(b.mem) && b.mem[i] == a {
		copy(b.mem[i:], b.mem[i+1:])
		b.mem[len(b.mem)-1] = nil
		b.mem = b.mem[:len(b.mem)-1]
	}
	if a.kind == deviceMem {
		if a.pool != nil {
			b.giveBack(a.pool.Device(), b.pools.Return(a.pool, a.size, a.pendingFree))
			a.pendingFree = nil
		} else {
			a.dev.used -= uint64(a.size)
		}
		b.unexportMemLocked(a)
	}
}

// spanLocked returns the n bytes at p, which must lie inside one allocation.
func (b *fakeBackend) spanLocked(p, n uintptr) ([]byte, error) {
	a := b.findLocked(p)
	if a != nil && a.kind == vmmMapping {
		return b.vmmSpanLocked(a, p, n) // may run on into the next mapping (vmm.go)
	}
	if a == nil || n > a.end()-p {
		return nil, driver.ErrInvalidValue
	}
	off := p - a.base
	return a.data[off : off+n : off+n], nil
}

// span is spanLocked for code that does not hold the table lock.
func (b *fakeBackend) span(p, n uintptr) ([]byte, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.spanLocked(p, n)
}

// hostBytes views n bytes of caller memory at p.
func hostBytes(p unsafe.Pointer, n uintptr) []byte {
	return unsafe.Slice((*byte)(p), n)
}

// pinnedLocked reports whether [p, p+n) lies in page-locked host memory.
func (b *fakeBackend) pinnedLocked(p unsafe.Pointer, n uintptr) bool {
	a := b.findLocked(uintptr(p))
	return a != nil && a.kind == hostMem && n <= a.end()-uintptr(p)
}

// newStorage returns size poisoned bytes.
func newStorage(size uintptr) []byte {
	data := make([]byte, size)
	data[0] = poison
	for i := 1; i < len(data); i *= 2 {
		copy(data[i:], data[:i])
	}
	return data
}

// carveLocked takes size bytes of d's address space (no memory: see
// reserveLocked). A size whose end does not fit in the address space is
// ErrOutOfMemory, never a wrapped-around address.
func (d *device) carveLocked(size uintptr) (uintptr, error) {
	if d.next > ^uintptr(0)-(allocAlign-1) {
		return 0, driver.ErrOutOfMemory
	}
	base := (d.next + allocAlign - 1) &^ (allocAlign - 1)
	if size > ^uintptr(0)-allocGap-base {
		return 0, driver.ErrOutOfMemory
	}
	d.next = base + size + allocGap
	return base, nil
}

// maxStorage is the most one allocation of the fake holds, whatever its
// device's memory (a DeviceSpec may claim any TotalMem): the size of a
// device's address range, and far less than Go refuses to make (makeslice
// panics past 1<<48 bytes).
const maxStorage = deviceSpaceSize

// reserveLocked carves size bytes of address space and memory from d. A
// request larger than what is left of d's memory (or than maxStorage) is
// ErrOutOfMemory, checked before anything, so that no storage is ever made
// for it.
func (b *fakeBackend) reserveLocked(d *device, size uintptr) (uintptr, error) {
	if uint64(size) > d.total-d.used || size > maxStorage {
		return 0, driver.ErrOutOfMemory
	}
	base, err := d.carveLocked(size)
	if err != nil {
		return 0, err
	}
	d.used += uint64(size)
	return base, nil
}

// pinnedFitsLocked reports whether size more bytes of page-locked host
// memory fit: the fake's host has as much of it as its largest device has
// device memory (8 GiB by default).
func (b *fakeBackend) pinnedFitsLocked(size uintptr) bool {
	var limit, used uint64
	for _, d := range b.devs {
		limit = max(limit, d.total)
	}
	for _, a := range b.mem {
		if a.kind == hostMem {
			used += uint64(a.size)
		}
	}
	return size <= maxStorage && used <= limit && uint64(size) <= limit-used
}

// MemAlloc is cuMemAlloc in the current context. The memory is poisoned
// (every byte 0xA5), not zeroed.
func (b *fakeBackend) MemAlloc(size uintptr) (uintptr, error) {
	if err := b.enter(abi.CuMemAlloc); err != nil {
		return 0, err
	}
	if size == 0 {
		return 0, driver.ErrInvalidValue
	}
	tid := core.ThreadID()
	if err := b.graphRoom.CaptureUnsafe(tid); err != nil {
		return 0, err
	}
	b.mu.Lock()
	c, err := b.currentLocked(tid)
	if err != nil {
		b.mu.Unlock()
		return 0, err
	}
	base, err := b.reserveLocked(c.dev, size)
	b.mu.Unlock()
	if err != nil {
		return 0, err
	}
	a := &alloc{base: base, size: size, data: newStorage(size), kind: deviceMem, dev: c.dev, ctx: c, site: here()}
	b.mu.Lock()
	defer b.mu.Unlock()
	if c.dead { // destroyed meanwhile
		c.dev.used -= uint64(size)
		return 0, errDestroyedCurrent
	}
	b.insertLocked(a)
	return base, nil
}

// MemFree is cuMemFree: 0 is a no-op; anything but the base of a live
// cuMemAlloc allocation is ErrInvalidValue. Like the driver, it waits for
// the allocation's context to finish its work first.
func (b *fakeBackend) MemFree(p uintptr) error {
	if err := b.enter(abi.CuMemFree); err != nil {
		return err
	}
	if p == 0 {
		return nil
	}
	b.mu.RLock()
	a := b.findLocked(p)
	b.mu.RUnlock()
	if a == nil || a.base != p || a.kind != deviceMem {
		return driver.ErrInvalidValue
	}
	if err := b.lockExec(); err != nil {
		return err
	}
	defer b.unlockExec()
	b.drainContext(a.ctx)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.findLocked(p) != a || a.freeQueued {
		return driver.ErrInvalidValue
	}
	b.removeLocked(a)
	return nil
}

// MemAllocAsync is cuMemAllocAsync, from the device's current pool (see
// pools.go): the pointer is returned now and usable by work enqueued after
// this call. Its context attribute is 0, as for the driver's pool memory.
func (b *fakeBackend) MemAllocAsync(size uintptr, s uintptr) (uintptr, error) {
	const op = abi.CuMemAllocAsync
	return b.allocFromPool(op, size, 0, s)
}

// MemFreeAsync is cuMemFreeAsync: the memory is released when the stream
// reaches the free.
func (b *fakeBackend) MemFreeAsync(p uintptr, s uintptr) error {
	if err := b.enter(abi.CuMemFreeAsync); err != nil {
		return err
	}
	it := &item{}
	return b.enqueue(s, it, func(st *stream) error {
		a := b.findLocked(p)
		if a == nil || a.base != p || a.kind != deviceMem || a.freeQueued {
			return driver.ErrInvalidValue
		}
		a.freeQueued = true
		if a.pool != nil && !b.graphRoom.Capturing(&st.capture) {
			a.pendingFree = b.pools.FreeQueued(a.pool, a.size, a.data, st, it)
		}
		it.run = func() error {
			b.race.Range(p, a.size, race.Free, "cuMemFreeAsync")
			b.mu.Lock()
			defer b.mu.Unlock()
			if b.findLocked(p) == a {
				b.removeLocked(a)
			}
			return nil
		}
		return nil
	})
}

// MemGetInfo is cuMemGetInfo for the current context's device.
func (b *fakeBackend) MemGetInfo() (uint64, uint64, error) {
	if err := b.enter(abi.CuMemGetInfo); err != nil {
		return 0, 0, err
	}
	tid := core.ThreadID()
	b.mu.RLock()
	defer b.mu.RUnlock()
	c, err := b.currentLocked(tid)
	if err != nil {
		return 0, 0, err
	}
	return c.dev.total - c.dev.used, c.dev.total, nil
}

// errAddressRange is what cuMemGetAddressRange returns for an unknown pointer.
var errAddressRange error = driver.ErrNotFound

// MemGetAddressRange is cuMemGetAddressRange: the base and size of the
// allocation that contains p.
func (b *fakeBackend) MemGetAddressRange(p uintptr) (uintptr, uintptr, error) {
	if err := b.enter(abi.CuMemGetAddressRange); err != nil {
		return 0, 0, err
	}
	tid := core.ThreadID()
	b.mu.RLock()
	defer b.mu.RUnlock()
	if _, err := b.currentLocked(tid); err != nil {
		return 0, 0, err
	}
	a := b.findLocked(p)
	if a == nil {
		return 0, 0, errAddressRange
	}
	return a.base, a.size, nil
}

// PointerGetAttribute is cuPointerGetAttribute for device, pinned host and
// IPC-mapped memory; unknown pointers are ErrInvalidValue.
func (b *fakeBackend) PointerGetAttribute(attr backend.PointerAttribute, p uintptr) (uint64, error) {
	if err := b.enter(abi.CuPointerGetAttribute); err != nil {
		return 0, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	a := b.findLocked(p)
	if a == nil {
		return 0, driver.ErrInvalidValue
	}
	if v, ok := b.vmmPointerAttrLocked(a, attr); ok { // a mapping's handle types and access (vmm.go)
		return v, nil
	}
	host := a.kind == hostMem
	switch attr {
	case backend.PointerAttrContext:
		if a.async {
			return 0, nil
		}
		return uint64(a.ctx.h), nil
	case backend.PointerAttrMemoryType:
		if host {
			return uint64(backend.MemoryTypeHost), nil
		}
		return uint64(backend.MemoryTypeDevice), nil
	case backend.PointerAttrDevicePointer:
		return uint64(p), nil
	case backend.PointerAttrHostPointer:
		if a.managed {
			return uint64(uintptr(unsafe.Pointer(&a.data[p-a.base]))), nil
		}
		if !host {
			return 0, driver.ErrInvalidValue
		}
		return uint64(p), nil
	case 6: // CU_POINTER_ATTRIBUTE_SYNC_MEMOPS
		return 0, nil
	case backend.PointerAttrBufferID:
		return a.id, nil
	case backend.PointerAttrIsManaged:
		if a.managed {
			return 1, nil
		}
		return 0, nil
	case backend.PointerAttrDeviceOrdinal:
		return uint64(a.ctx.dev.ordinal), nil
	case 10: // CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE
		if a.kind == deviceMem && !a.async {
			return 1, nil
		}
		return 0, nil
	case backend.PointerAttrRangeStart:
		return uint64(a.base), nil
	case backend.PointerAttrRangeSize:
		return uint64(a.size), nil
	case 13: // CU_POINTER_ATTRIBUTE_MAPPED
		return 1, nil
	case 14: // CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES
		return 0, nil
	case 16: // CU_POINTER_ATTRIBUTE_ACCESS_FLAGS: read-write
		return 3, nil
	case backend.PointerAttrMempool:
		if a.pool != nil {
			return uint64(a.pool.Handle()), nil
		}
		return 0, nil
	}
	return 0, driver.ErrInvalidValue
}

// copyItem validates a device-to-device style copy at enqueue and returns
// the work that performs it, re-checking the ranges when it runs (memory
// may have been freed by stream-ordered frees meanwhile).
func (b *fakeBackend) d2dWork(dst, src, n uintptr) (func() error, error) {
	if _, err := b.spanLocked(dst, n); err != nil {
		return nil, err
	}
	if _, err := b.spanLocked(src, n); err != nil {
		return nil, err
	}
	return func() error {
		b.mu.RLock()
		d, err1 := b.spanLocked(dst, n)
		s, err2 := b.spanLocked(src, n)
		b.mu.RUnlock()
		if err1 != nil || err2 != nil {
			return driver.ErrIllegalAddress
		}
		b.race.Copy(dst, src, n)
		copy(d, s)
		return nil
	}, nil
}

func (b *fakeBackend) h2dWork(dst uintptr, src unsafe.Pointer, n uintptr, async bool) (func() error, error) {
	if src == nil {
		return nil, driver.ErrInvalidValue
	}
	if _, err := b.spanLocked(dst, n); err != nil {
		return nil, err
	}
	from := hostBytes(src, n)
	pinned := b.pinnedLocked(src, n)
	if async && !pinned {
		// The driver stages pageable memory at enqueue.
		from = append([]byte(nil), from...)
	}
	return func() error {
		d, err := b.span(dst, n)
		if err != nil {
			return driver.ErrIllegalAddress
		}
		if pinned { // read as the copy runs, by DMA
			b.race.Range(uintptr(src), n, race.CopyRead, "memcpy HtoD")
		}
		b.race.Range(dst, n, race.Write, "memcpy HtoD")
		copy(d, from)
		return nil
	}, nil
}

func (b *fakeBackend) d2hWork(dst unsafe.Pointer, src uintptr, n uintptr) (func() error, error) {
	if dst == nil {
		return nil, driver.ErrInvalidValue
	}
	if _, err := b.spanLocked(src, n); err != nil {
		return nil, err
	}
	return func() error {
		s, err := b.span(src, n)
		if err != nil {
			return driver.ErrIllegalAddress
		}
		b.race.Range(src, n, race.Read, "memcpy DtoH")
		b.race.Range(uintptr(dst), n, race.Write, "memcpy DtoH") // page-locked host memory only (raceCore.Find)
		copy(hostBytes(dst, n), s)
		return nil
	}, nil
}

// syncOp runs a synchronous copy or memset: validate under the table lock
// with the current context, then run as a NULL-stream item and wait.
func (b *fakeBackend) syncOp(op string, n uintptr, prepare func() (func() error, error)) error {
	if err := b.enter(op); err != nil {
		return err
	}
	tid := core.ThreadID()
	b.mu.RLock()
	c, err := b.currentLocked(tid)
	var work func() error
	if err == nil && n > 0 {
		work, err = prepare()
	}
	b.mu.RUnlock()
	if err != nil || n == 0 {
		return err
	}
	return b.runSync(c, work)
}

// asyncOp enqueues a copy or memset on stream s.
func (b *fakeBackend) asyncOp(op string, n uintptr, s uintptr, prepare func() (func() error, error)) error {
	if err := b.enter(op); err != nil {
		return err
	}
	it := &item{}
	return b.enqueue(s, it, func(*stream) error {
		if n == 0 {
			it.run = nop
			return nil
		}
		var err error
		it.run, err = prepare()
		return err
	})
}

// MemcpyHtoD is cuMemcpyHtoD (synchronous; needs a current context).
func (b *fakeBackend) MemcpyHtoD(dst uintptr, src unsafe.Pointer, n uintptr) error {
	return b.syncOp(abi.CuMemcpyHtoD, n, func() (func() error, error) { return b.h2dWork(dst, src, n, false) })
}

// MemcpyDtoH is cuMemcpyDtoH (synchronous; needs a current context).
func (b *fakeBackend) MemcpyDtoH(dst unsafe.Pointer, src uintptr, n uintptr) error {
	return b.syncOp(abi.CuMemcpyDtoH, n, func() (func() error, error) { return b.d2hWork(dst, src, n) })
}

// MemcpyDtoD is cuMemcpyDtoD (synchronous; needs a current context).
func (b *fakeBackend) MemcpyDtoD(dst, src uintptr, n uintptr) error {
	return b.syncOp(abi.CuMemcpyDtoD, n, func() (func() error, error) { return b.d2dWork(dst, src, n) })
}

// MemcpyHtoDAsync is cuMemcpyHtoDAsync: pageable source memory is copied
// at enqueue (as the driver stages it); pinned memory is read when the
// stream runs the copy.
func (b *fakeBackend) MemcpyHtoDAsync(dst uintptr, src unsafe.Pointer, n uintptr, s uintptr) error {
	return b.asyncOp(abi.CuMemcpyHtoDAsync, n, s, func() (func() error, error) { return b.h2dWork(dst, src, n, true) })
}

// MemcpyDtoHAsync is cuMemcpyDtoHAsync: dst is written when the stream
// runs the copy.
func (b *fakeBackend) MemcpyDtoHAsync(dst unsafe.Pointer, src uintptr, n uintptr, s uintptr) error {
	return b.asyncOp(abi.CuMemcpyDtoHAsync, n, s, func() (func() error, error) { return b.d2hWork(dst, src, n) })
}

// MemcpyDtoDAsync is cuMemcpyDtoDAsync.
func (b *fakeBackend) MemcpyDtoDAsync(dst, src uintptr, n uintptr, s uintptr) error {
	return b.asyncOp(abi.CuMemcpyDtoDAsync, n, s, func() (func() error, error) { return b.d2dWork(dst, src, n) })
}

// MemcpyPeer is cuMemcpyPeer: a synchronous copy between contexts (and
// devices); it runs on the destination context's NULL stream.
func (b *fakeBackend) MemcpyPeer(dst, dstCtx, src, srcCtx uintptr, n uintptr) error {
	if err := b.enter(abi.CuMemcpyPeer); err != nil {
		return err
	}
	b.mu.RLock()
	dc, err := b.liveCtxLocked(dstCtx)
	if err == nil {
		_, err = b.liveCtxLocked(srcCtx)
	}
	var work func() error
	if err == nil && n > 0 {
		work, err = b.d2dWork(dst, src, n)
	}
	b.mu.RUnlock()
	if err != nil || n == 0 {
		return err
	}
	return b.runSync(dc, work)
}

// MemcpyPeerAsync is cuMemcpyPeerAsync.
func (b *fakeBackend) MemcpyPeerAsync(dst, dstCtx, src, srcCtx uintptr, n uintptr, s uintptr) error {
	if err := b.enter(abi.CuMemcpyPeerAsync); err != nil {
		return err
	}
	it := &item{}
	return b.enqueue(s, it, func(*stream) error {
		if _, err := b.liveCtxLocked(dstCtx); err != nil {
			return err
		}
		if _, err := b.liveCtxLocked(srcCtx); err != nil {
			return err
		}
		if n == 0 {
			it.run = nop
			return nil
		}
		var err error
		it.run, err = b.d2dWork(dst, src, n)
		return err
	})
}

// memsetWork validates a memset of n elements of size bytes at dst.
func (b *fakeBackend) memsetWork(dst uintptr, pattern uint32, size, n uintptr) (func() error, error) {
	if dst%size != 0 || n > ^uintptr(0)/size {
		return nil, driver.ErrInvalidValue
	}
	if _, err := b.spanLocked(dst, n*size); err != nil {
		return nil, err
	}
	return func() error {
		d, err := b.span(dst, n*size)
		if err != nil {
			return driver.ErrIllegalAddress
		}
		b.race.Range(dst, n*size, race.Write, "memset")
		var pat [4]byte
		for i := range pat {
			pat[i] = byte(pattern >> (8 * i))
		}
		copy(d, pat[:size])
		for i := size; i < uintptr(len(d)); i *= 2 {
			copy(d[i:], d[:i])
		}
		return nil
	}, nil
}

// MemsetD8 is cuMemsetD8 (synchronous).
func (b *fakeBackend) MemsetD8(dst uintptr, v uint8, n uintptr) error {
	return b.syncOp(abi.CuMemsetD8, n, func() (func() error, error) { return b.memsetWork(dst, uint32(v), 1, n) })
}

// MemsetD16 is cuMemsetD16 (synchronous); dst must be 2-byte aligned.
func (b *fakeBackend) MemsetD16(dst uintptr, v uint16, n uintptr) error {
	return b.syncOp(abi.CuMemsetD16, n, func() (func() error, error) { return b.memsetWork(dst, uint32(v), 2, n) })
}

// MemsetD32 is cuMemsetD32 (synchronous); dst must be 4-byte aligned.
func (b *fakeBackend) MemsetD32(dst uintptr, v uint32, n uintptr) error {
	return b.syncOp(abi.CuMemsetD32, n, func() (func() error, error) { return b.memsetWork(dst, v, 4, n) })
}

// MemsetD8Async is cuMemsetD8Async.
func (b *fakeBackend) MemsetD8Async(dst uintptr, v uint8, n uintptr, s uintptr) error {
	return b.asyncOp(abi.CuMemsetD8Async, n, s, func() (func() error, error) { return b.memsetWork(dst, uint32(v), 1, n) })
}

// MemsetD16Async is cuMemsetD16Async.
func (b *fakeBackend) MemsetD16Async(dst uintptr, v uint16, n uintptr, s uintptr) error {
	return b.asyncOp(abi.CuMemsetD16Async, n, s, func() (func() error, error) { return b.memsetWork(dst, uint32(v), 2, n) })
}

// MemsetD32Async is cuMemsetD32Async.
func (b *fakeBackend) MemsetD32Async(dst uintptr, v uint32, n uintptr, s uintptr) error {
	return b.asyncOp(abi.CuMemsetD32Async, n, s, func() (func() error, error) { return b.memsetWork(dst, v, 4, n) })
}

// MemHostAlloc is cuMemHostAlloc: page-locked host memory of the current
// context, backed by a Go byte slice the backend keeps until MemFreeHost.
// The fake's host has as much page-locked memory as its largest device has
// device memory: more is ErrOutOfMemory.
func (b *fakeBackend) MemHostAlloc(size uintptr, flags uint32) (unsafe.Pointer, error) {
	if err := b.enter(abi.CuMemHostAlloc); err != nil {
		return nil, err
	}
	if size == 0 || flags&^(backend.MemHostAllocPortable|backend.MemHostAllocDeviceMap|backend.MemHostAllocWriteCombined) != 0 {
		return nil, driver.ErrInvalidValue
	}
	tid := core.ThreadID()
	if err := b.graphRoom.CaptureUnsafe(tid); err != nil {
		return nil, err
	}
	b.mu.RLock()
	_, err := b.currentLocked(tid)
	if err == nil && !b.pinnedFitsLocked(size) {
		// Checked before the storage is made: a request beyond the host's
		// memory must fail, not take the process down.
		err = driver.ErrOutOfMemory
	}
	b.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	data := make([]byte, size)
	p := unsafe.Pointer(&data[0])
	b.mu.Lock()
	defer b.mu.Unlock()
	c, err := b.currentLocked(tid)
	if err != nil {
		return nil, err
	}
	if !b.pinnedFitsLocked(size) {
		return nil, driver.ErrOutOfMemory // taken by another thread meanwhile
	}
	b.insertLocked(&alloc{base: uintptr(p), size: size, data: data, kind: hostMem, ctx: c, site: here()})
	return p, nil
}

// MemFreeHost is cuMemFreeHost: p must be what MemHostAlloc returned.
// Work of its context that may still read or write it runs first.
func (b *fakeBackend) MemFreeHost(p unsafe.Pointer) error {
	if err := b.enter(abi.CuMemFreeHost); err != nil {
		return err
	}
	b.mu.RLock()
	a := b.findLocked(uintptr(p))
	b.mu.RUnlock()
	if p == nil || a == nil || a.base != uintptr(p) || a.kind != hostMem || a.registered {
		return driver.ErrInvalidValue
	}
	if err := b.lockExec(); err != nil {
		return err
	}
	defer b.unlockExec()
	b.drainContext(a.ctx)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.findLocked(uintptr(p)) != a {
		return driver.ErrInvalidValue
	}
	b.removeLocked(a)
	return nil
}

// freeContextMemoryLocked releases everything allocated in c.
func (b *fakeBackend) freeContextMemoryLocked(c *context) {
	for _, a := range append([]*alloc(nil), b.mem...) {
		if a.ctx == c {
			b.removeLocked(a)
		}
	}
}
