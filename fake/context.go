package fake

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/core"
)

// ctxAPIVersion is what cuCtxGetApiVersion reports for every context.
const ctxAPIVersion = 3020

type context struct {
	h       uintptr
	dev     *device
	flags   uint32
	primary bool
	refs    int  // primary: retain count
	dead    bool // destroyed (owned) or inactive (primary with no reference)

	null      *stream   // the NULL / legacy stream
	perThread *stream   // CU_STREAM_PER_THREAD
	streams   []*stream // created streams, in creation order
	peers     map[*context]bool

	cfg ctxConfig // limits and cache preferences (device_context_config.go)

	site callSite // who made it, for Leaks (leak_site.go)
}

// errDestroyedCurrent is returned when the calling thread's current context
// has been destroyed by another thread.
var errDestroyedCurrent error = driver.ErrContextIsDestroyed

// errDeadHandle is returned when a destroyed context is named explicitly.
var errDeadHandle error = driver.ErrInvalidContext

func (b *fakeBackend) newContextLocked(d *device, flags uint32, primary bool) *context {
	c := &context{h: newHandle(), dev: d, flags: flags, primary: primary, site: here()}
	b.activateLocked(c)
	b.ctxs[c.h] = c
	return c
}

// activateLocked gives a (re)activated context its default streams.
func (b *fakeBackend) activateLocked(c *context) {
	c.dead = false
	c.null = &stream{ctx: c, kind: nullStream}
	c.perThread = &stream{ctx: c, kind: perThreadStream}
	c.streams = nil
	c.peers = map[*context]bool{}
	c.cfg = ctxConfig{}
}

// currentLocked returns the calling thread's current context.
func (b *fakeBackend) currentLocked(tid int64) (*context, error) {
	st := b.stacks[int(tid)]
	if len(st) == 0 {
		return nil, driver.ErrInvalidContext
	}
	c := st[len(st)-1]
	if c.dead {
		return nil, errDestroyedCurrent
	}
	return c, nil
}

// current returns the calling thread's current context.
func (b *fakeBackend) current() (*context, error) {
	tid := core.ThreadID()
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.currentLocked(tid)
}

// liveCtxLocked resolves a context handle named by the caller.
func (b *fakeBackend) liveCtxLocked(h uintptr) (*context, error) {
	c := b.ctxs[h]
	if c == nil {
		return nil, driver.ErrInvalidContext
	}
	if c.dead {
		return nil, errDeadHandle
	}
	return c, nil
}

// DevicePrimaryCtxRetain is cuDevicePrimaryCtxRetain. The primary context of
// a device keeps its handle for the life of the backend; it is active while
// retained.
func (b *fakeBackend) DevicePrimaryCtxRetain(dev int) (uintptr, error) {
	if err := b.enter(abi.CuDevicePrimaryCtxRetain); err != nil {
		return 0, err
	}
	d, err := b.dev(dev)
	if err != nil {
		return 0, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if d.primary == nil {
		d.primary = b.newContextLocked(d, d.primaryFlags, true)
	} else if d.primary.refs == 0 {
		b.activateLocked(d.primary)
	}
	d.primary.refs++
	d.primary.site = here() // the latest retain is what Leaks names
	return d.primary.h, nil
}

// DevicePrimaryCtxRelease is cuDevicePrimaryCtxRelease. Releasing the last
// reference destroys everything made in the primary context.
func (b *fakeBackend) DevicePrimaryCtxRelease(dev int) error {
	if err := b.enter(abi.CuDevicePrimaryCtxRelease); err != nil {
		return err
	}
	d, err := b.dev(dev)
	if err != nil {
		return err
	}
	b.mu.Lock()
	c := d.primary
	if c == nil || c.refs == 0 {
		b.mu.Unlock()
		return driver.ErrInvalidContext
	}
	if c.refs > 1 {
		c.refs--
		b.mu.Unlock()
		return nil
	}
	b.mu.Unlock()
	// Last reference: finish the context's work, then tear it down.
	if err := b.lockExec(); err != nil {
		return err
	}
	defer b.unlockExec()
	b.drainContext(c)
	b.mu.Lock()
	defer b.mu.Unlock()
	if c.refs == 0 {
		return driver.ErrInvalidContext
	}
	c.refs--
	if c.refs == 0 {
		b.teardownLocked(c)
		d.primaryFlags = 0 // as driver 580 does (H200 run S2)
	}
	return nil
}

// DevicePrimaryCtxReset is cuDevicePrimaryCtxReset: the primary context's
// work is finished, everything made in it destroyed, and its reference
// count dropped to zero, so the next retain gets a fresh context.
func (b *fakeBackend) DevicePrimaryCtxReset(dev int) error {
	if err := b.enter(abi.CuDevicePrimaryCtxReset); err != nil {
		return err
	}
	d, err := b.dev(dev)
	if err != nil {
		return err
	}
	if err := b.lockExec(); err != nil {
		return err
	}
	defer b.unlockExec()
	b.mu.Lock()
	c := d.primary
	b.mu.Unlock()
	if c == nil || c.refs == 0 {
		return nil
	}
	b.drainContext(c)
	b.mu.Lock()
	defer b.mu.Unlock()
	if c.refs > 0 {
		c.refs = 0
		b.teardownLocked(c)
	}
	return nil
}

// DevicePrimaryCtxGetState is cuDevicePrimaryCtxGetState.
func (b *fakeBackend) DevicePrimaryCtxGetState(dev int) (uint32, bool, error) {
	if err := b.enter(abi.CuDevicePrimaryCtxGetState); err != nil {
		return 0, false, err
	}
	d, err := b.dev(dev)
	if err != nil {
		return 0, false, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	return d.primaryFlags, d.primary != nil && d.primary.refs > 0, nil
}

// CtxCreate is cuCtxCreate: the new context is pushed on the calling
// thread's stack.
func (b *fakeBackend) CtxCreate(flags uint32, dev int) (uintptr, error) {
	if err := b.enter(abi.CuCtxCreate); err != nil {
		return 0, err
	}
	d, err := b.dev(dev)
	if err != nil {
		return 0, err
	}
	if flags&^0x1f != 0 {
		return 0, driver.ErrInvalidValue
	}
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.newContextLocked(d, flags, false)
	b.stacks[int(tid)] = append(b.stacks[int(tid)], c)
	return c.h, nil
}

// CtxDestroy is cuCtxDestroy: the context's pending work completes, then it
// and everything made in it are destroyed. It is popped from the calling
// thread's stack if current there; other threads that have it current get
// CUDA_ERROR_CONTEXT_IS_DESTROYED from calls that use it.
func (b *fakeBackend) CtxDestroy(h uintptr) error {
	if err := b.enter(abi.CuCtxDestroy); err != nil {
		return err
	}
	tid := core.ThreadID()
	b.mu.RLock()
	c, err := b.liveCtxLocked(h)
	if err == nil && c.primary {
		err = driver.ErrInvalidContext
	}
	b.mu.RUnlock()
	if err != nil {
		return err
	}
	if err := b.lockExec(); err != nil {
		return err
	}
	defer b.unlockExec()
	b.drainContext(c)
	b.mu.Lock()
	defer b.mu.Unlock()
	if c.dead {
		return errDeadHandle
	}
	b.teardownLocked(c)
	if st := b.stacks[int(tid)]; len(st) > 0 && st[len(st)-1] == c {
		st[len(st)-1] = nil
		b.setStackLocked(tid, st[:len(st)-1])
	}
	return nil
}

// setStackLocked stores a thread's stack. An emptied stack keeps its
// capacity, so that push/pop pairs (every Bind) allocate nothing.
func (b *fakeBackend) setStackLocked(tid int64, st []*context) {
	b.stacks[int(tid)] = st
}

// teardownLocked destroys everything made in c and marks it dead. Its work
// has been drained.
func (b *fakeBackend) teardownLocked(c *context) {
	for h, s := range b.streams {
		if s.ctx == c {
			s.dead = true
			delete(b.streams, h)
			b.tomb[h] = true
		}
	}
	c.null.dead = true
	c.perThread.dead = true
	for h, e := range b.events {
		if e.ctx == c {
			b.unexportEventLocked(e)
			delete(b.events, h)
			b.tomb[h] = true
		}
	}
	for h, m := range b.modules {
		if m.ctx == c {
			for _, f := range m.funcs {
				b.tomb[f.h] = true
			}
			b.unloadLocked(m)
			delete(b.modules, h)
			b.tomb[h] = true
		}
	}
	b.freeContextMemoryLocked(c)
	for _, o := range b.ctxs {
		delete(o.peers, c)
	}
	c.streams = nil
	c.peers = nil
	c.dead = true
}

// CtxGetCurrent is cuCtxGetCurrent: 0 when the thread has no context.
func (b *fakeBackend) CtxGetCurrent() (uintptr, error) {
	if err := b.enter(abi.CuCtxGetCurrent); err != nil {
		return 0, err
	}
	tid := core.ThreadID()
	b.mu.RLock()
	defer b.mu.RUnlock()
	st := b.stacks[int(tid)]
	if len(st) == 0 {
		return 0, nil
	}
	return st[len(st)-1].h, nil
}

// CtxSetCurrent is cuCtxSetCurrent: it replaces the top of the thread's
// stack (pushes onto an empty one); 0 pops.
func (b *fakeBackend) CtxSetCurrent(h uintptr) error {
	if err := b.enter(abi.CuCtxSetCurrent); err != nil {
		return err
	}
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.stacks[int(tid)]
	if h == 0 {
		if len(st) > 0 {
			st[len(st)-1] = nil
			b.setStackLocked(tid, st[:len(st)-1])
		}
		return nil
	}
	c := b.ctxs[h]
	if c == nil {
		return driver.ErrInvalidContext
	}
	if len(st) == 0 {
		b.stacks[int(tid)] = append(st, c)
		return nil
	}
	st[len(st)-1] = c
	return nil
}

// CtxPushCurrent is cuCtxPushCurrent.
func (b *fakeBackend) CtxPushCurrent(h uintptr) error {
	if err := b.enter(abi.CuCtxPushCurrent); err != nil {
		return err
	}
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	if h == 0 {
		return driver.ErrInvalidContext
	}
	// A destroyed context can be pushed, as on the driver; calls that use
	// it then fail with CUDA_ERROR_CONTEXT_IS_DESTROYED.
	c := b.ctxs[h]
	if c == nil {
		return driver.ErrInvalidContext
	}
	b.stacks[int(tid)] = append(b.stacks[int(tid)], c)
	return nil
}

// CtxPopCurrent is cuCtxPopCurrent: ErrInvalidContext on an empty stack.
func (b *fakeBackend) CtxPopCurrent() (uintptr, error) {
	if err := b.enter(abi.CuCtxPopCurrent); err != nil {
		return 0, err
	}
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.stacks[int(tid)]
	if len(st) == 0 {
		return 0, driver.ErrInvalidContext
	}
	c := st[len(st)-1]
	st[len(st)-1] = nil
	b.setStackLocked(tid, st[:len(st)-1])
	return c.h, nil
}

// CtxGetDevice is cuCtxGetDevice.
func (b *fakeBackend) CtxGetDevice() (int, error) {
	if err := b.enter(abi.CuCtxGetDevice); err != nil {
		return 0, err
	}
	c, err := b.current()
	if err != nil {
		return 0, err
	}
	return c.dev.ordinal, nil
}

// CtxSynchronize is cuCtxSynchronize: it runs all work queued in the
// current context and returns the first stream error there.
func (b *fakeBackend) CtxSynchronize() error {
	if err := b.enter(abi.CuCtxSynchronize); err != nil {
		return err
	}
	c, err := b.current()
	if err != nil {
		return err
	}
	if err := b.graphRoom.CaptureRefuseContext(c.h); err != nil {
		return err
	}
	if err := b.lockExec(); err != nil {
		return err
	}
	defer b.unlockExec()
	return b.drainContext(c)
}

// CtxGetAPIVersion is cuCtxGetApiVersion; 0 names the current context.
func (b *fakeBackend) CtxGetAPIVersion(h uintptr) (uint32, error) {
	if err := b.enter(abi.CuCtxGetApiVersion); err != nil {
		return 0, err
	}
	if h == 0 {
		if _, err := b.current(); err != nil {
			return 0, err
		}
		return ctxAPIVersion, nil
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	if _, err := b.liveCtxLocked(h); err != nil {
		return 0, err
	}
	return ctxAPIVersion, nil
}

// Stream priorities: the driver's range on the H200.
const (
	leastPriority    = 0
	greatestPriority = -5
)

// CtxGetStreamPriorityRange is cuCtxGetStreamPriorityRange: (0, -5).
func (b *fakeBackend) CtxGetStreamPriorityRange() (int, int, error) {
	if err := b.enter(abi.CuCtxGetStreamPriorityRange); err != nil {
		return 0, 0, err
	}
	if _, err := b.current(); err != nil {
		return 0, 0, err
	}
	return leastPriority, greatestPriority, nil
}

// CtxEnablePeerAccess is cuCtxEnablePeerAccess: the current context may
// access peer's memory (the fake allows it anyway; this only keeps the
// driver's bookkeeping and errors).
func (b *fakeBackend) CtxEnablePeerAccess(peer uintptr, flags uint32) error {
	if err := b.enter(abi.CuCtxEnablePeerAccess); err != nil {
		return err
	}
	if flags != 0 {
		return driver.ErrInvalidValue
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
	if p.dev == c.dev {
		// Two contexts of one device: the H200 (driver 580) answers
		// PEER_ACCESS_UNSUPPORTED, not INVALID_DEVICE.
		return driver.ErrPeerAccessUnsupported
	}
	if c.peers[p] {
		return driver.ErrPeerAccessAlreadyEnabled
	}
	c.peers[p] = true
	return nil
}
