package fake

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/ipc"
	"github.com/nocgo/cuda/internal/core"
)

// Interprocess sharing is a room of its own (fake/internal/ipc): ipcRoom,
// embedded in fakeBackend, whose methods are the cuIpc entry points, and
// the process-wide registry of what each fake (each process) exported. The
// core keeps the id an allocation or an event is exported under (ipcID),
// and withdraws it when the object goes; ipcCore gives the room the rest.
type ipcRoom = ipc.Room

// unexportMemLocked withdraws a's IPC handle (a is being freed).
func (b *fakeBackend) unexportMemLocked(a *alloc) {
	if a.ipcID != 0 {
		ipc.Withdraw(a.ipcID)
		a.ipcID = 0
	}
}

// unexportEventLocked withdraws e's IPC handle (e is being destroyed).
func (b *fakeBackend) unexportEventLocked(e *event) {
	if e.ipcID != 0 {
		ipc.Withdraw(e.ipcID)
		e.ipcID = 0
	}
}

// ipcCore is the core as the IPC room sees it (ipc.Core).
type ipcCore struct{ b *fakeBackend }

func (c ipcCore) Enter(op string) error { return c.b.enter(op) }

func (c ipcCore) Current() error {
	_, err := c.b.current()
	return err
}

func (c ipcCore) ExportMem(ptr uintptr, export func(data []byte, size uintptr) uint64) (uint64, error) {
	b := c.b
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.findLocked(ptr)
	if a == nil || a.kind != deviceMem || a.async {
		return 0, driver.ErrInvalidValue
	}
	if a.ipcID == 0 {
		a.ipcID = export(a.data, a.size)
	}
	return a.ipcID, nil
}

func (c ipcCore) MapMem(data []byte, size uintptr) (uintptr, error) {
	b := c.b
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	ctx, err := b.currentLocked(tid)
	if err != nil {
		return 0, err
	}
	d := ctx.dev
	base, err := d.carveLocked(size)
	if err != nil {
		return 0, err
	}
	b.insertLocked(&alloc{base: base, size: size, data: data, kind: ipcMapping, dev: d, ctx: ctx, site: here()})
	return base, nil
}

func (c ipcCore) UnmapMem(ptr uintptr) error {
	b := c.b
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

func (c ipcCore) ExportEvent(ev uintptr, export func(shared any) uint64) (uint64, error) {
	b := c.b
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.events[ev]
	if e == nil || e.flags&backend.EventInterprocess == 0 {
		return 0, driver.ErrInvalidHandle
	}
	if e.ipcID == 0 {
		e.ipcID = export(e.st)
	}
	return e.ipcID, nil
}

func (c ipcCore) OpenEvent(shared any) (uintptr, error) {
	b := c.b
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	ctx, err := b.currentLocked(tid)
	if err != nil {
		return 0, err
	}
	e := &event{h: newHandle(), ctx: ctx, flags: backend.EventDisableTiming | backend.EventInterprocess, st: shared.(*evState), site: here()}
	b.events[e.h] = e
	return e.h, nil
}
