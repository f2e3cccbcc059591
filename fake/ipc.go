package fake

import (
	"bytes"
	"encoding/binary"
	"sync"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/core"
)

// IPC between fake backends: each Backend stands for one process, and this
// registry is the fake's kernel-level sharing. An exported allocation's
// storage is mapped, not copied, by the opener.
var ipcReg struct {
	sync.Mutex
	next   uint64
	mems   map[uint64]ipcMem
	events map[uint64]ipcEvent
}

type ipcMem struct {
	b    *fakeBackend
	data []byte
	size uintptr
}

type ipcEvent struct {
	b  *fakeBackend
	st *evState
}

var (
	ipcMemMagic   = []byte("nocgo-fake-ipc-m")
	ipcEventMagic = []byte("nocgo-fake-ipc-e")
)

// errIPCSameProcess is what opening a handle in the process that exported it
// returns.
var errIPCSameProcess error = driver.ErrInvalidContext

func makeIPCHandle(magic []byte, id uint64) driver.IPCHandle {
	var h driver.IPCHandle
	copy(h[:], magic)
	binary.LittleEndian.PutUint64(h[16:], id)
	return h
}

func parseIPCHandle(magic []byte, h driver.IPCHandle) (uint64, bool) {
	if !bytes.Equal(h[:16], magic) {
		return 0, false
	}
	return binary.LittleEndian.Uint64(h[16:]), true
}

func ipcExport(register func(id uint64)) uint64 {
	ipcReg.Lock()
	defer ipcReg.Unlock()
	if ipcReg.mems == nil {
		ipcReg.mems = map[uint64]ipcMem{}
		ipcReg.events = map[uint64]ipcEvent{}
	}
	ipcReg.next++
	register(ipcReg.next)
	return ipcReg.next
}

// unexportMemLocked withdraws a's IPC handle (a is being freed).
func (b *fakeBackend) unexportMemLocked(a *alloc) {
	if a.ipcID == 0 {
		return
	}
	ipcReg.Lock()
	delete(ipcReg.mems, a.ipcID)
	ipcReg.Unlock()
	a.ipcID = 0
}

// unexportEventLocked withdraws e's IPC handle (e is being destroyed).
func (b *fakeBackend) unexportEventLocked(e *event) {
	if e.ipcID == 0 {
		return
	}
	ipcReg.Lock()
	delete(ipcReg.events, e.ipcID)
	ipcReg.Unlock()
	e.ipcID = 0
}

// IPCGetMemHandle is cuIpcGetMemHandle: ptr must be the base of a
// cuMemAlloc allocation (not stream-ordered memory).
func (b *fakeBackend) IPCGetMemHandle(ptr uintptr) (driver.IPCHandle, error) {
	if err := b.enter(abi.CuIpcGetMemHandle); err != nil {
		return driver.IPCHandle{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	// The driver also takes a pointer inside the allocation; the handle
	// names the whole allocation.
	a := b.findLocked(ptr)
	if a == nil || a.kind != deviceMem || a.async {
		return driver.IPCHandle{}, driver.ErrInvalidValue
	}
	if a.ipcID == 0 {
		a.ipcID = ipcExport(func(id uint64) { ipcReg.mems[id] = ipcMem{b: b, data: a.data, size: a.size} })
	}
	return makeIPCHandle(ipcMemMagic, a.ipcID), nil
}

// IPCOpenMemHandle is cuIpcOpenMemHandle: in another Backend it maps the
// exported storage at a new address of the current context's device; the
// mapping is closed with IPCCloseMemHandle, never freed.
func (b *fakeBackend) IPCOpenMemHandle(h driver.IPCHandle, flags uint32) (uintptr, error) {
	if err := b.enter(abi.CuIpcOpenMemHandle); err != nil {
		return 0, err
	}
	if flags&^backend.IPCMemLazyEnablePeerAccess != 0 {
		return 0, driver.ErrInvalidValue
	}
	id, ok := parseIPCHandle(ipcMemMagic, h)
	if !ok {
		return 0, driver.ErrInvalidValue
	}
	ipcReg.Lock()
	m, ok := ipcReg.mems[id]
	ipcReg.Unlock()
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	c, err := b.currentLocked(tid)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, driver.ErrInvalidValue
	}
	if m.b == b {
		return 0, errIPCSameProcess
	}
	d := c.dev
	base, err := d.carveLocked(m.size)
	if err != nil {
		return 0, err
	}
	b.insertLocked(&alloc{base: base, size: m.size, data: m.data, kind: ipcMapping, dev: d, ctx: c, site: here()})
	return base, nil
}

// IPCCloseMemHandle is cuIpcCloseMemHandle: ptr must be a mapping made by
// IPCOpenMemHandle.
func (b *fakeBackend) IPCCloseMemHandle(ptr uintptr) error {
	if err := b.enter(abi.CuIpcCloseMemHandle); err != nil {
		return err
	}
	b.mu.RLock()
	a := b.findLocked(ptr)
	b.mu.RUnlock()
	if a == nil || a.base != ptr || a.kind != ipcMapping {
		return driver.ErrInvalidValue
	}
	if err := b.lockExec(); err != nil {
		return err
	}
	defer b.unlockExec()
	b.drainContext(a.ctx)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.findLocked(ptr) != a {
		return driver.ErrInvalidValue
	}
	b.removeLocked(a)
	return nil
}

// IPCGetEventHandle is cuIpcGetEventHandle: the event needs
// CU_EVENT_INTERPROCESS.
func (b *fakeBackend) IPCGetEventHandle(ev uintptr) (driver.IPCHandle, error) {
	if err := b.enter(abi.CuIpcGetEventHandle); err != nil {
		return driver.IPCHandle{}, err
	}
	// Measured on the H200: cuIpcGetEventHandle needs a current context (201).
	if _, err := b.current(); err != nil {
		return driver.IPCHandle{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.events[ev]
	if e == nil {
		return driver.IPCHandle{}, driver.ErrInvalidHandle
	}
	if e.flags&backend.EventInterprocess == 0 {
		return driver.IPCHandle{}, driver.ErrInvalidHandle
	}
	if e.ipcID == 0 {
		e.ipcID = ipcExport(func(id uint64) { ipcReg.events[id] = ipcEvent{b: b, st: e.st} })
	}
	return makeIPCHandle(ipcEventMagic, e.ipcID), nil
}

// IPCOpenEventHandle is cuIpcOpenEventHandle: in another Backend it returns
// an event of the current context that shares the exported one's state:
// records, queries, synchronizes and waits in either backend see each
// other's records.
func (b *fakeBackend) IPCOpenEventHandle(h driver.IPCHandle) (uintptr, error) {
	if err := b.enter(abi.CuIpcOpenEventHandle); err != nil {
		return 0, err
	}
	id, ok := parseIPCHandle(ipcEventMagic, h)
	if !ok {
		return 0, driver.ErrInvalidValue
	}
	ipcReg.Lock()
	x, ok := ipcReg.events[id]
	ipcReg.Unlock()
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	c, err := b.currentLocked(tid)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, driver.ErrInvalidValue
	}
	if x.b == b {
		return 0, errIPCSameProcess
	}
	e := &event{h: newHandle(), ctx: c, flags: backend.EventDisableTiming | backend.EventInterprocess, st: x.st, site: here()}
	b.events[e.h] = e
	return e.h, nil
}
