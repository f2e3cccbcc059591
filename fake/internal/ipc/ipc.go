package ipc

import (
	"bytes"
	"encoding/binary"
	"sync"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
)

// Core is what the room needs of the fake's core. Its methods take the
// core's lock themselves; the room calls them holding no lock of its own.
// The export functions they are given take the registry's lock, a leaf.
type Core interface {
	// Enter is the prologue of an entry point: the symbol exists in the
	// configured driver version, FailNth, cuInit called, no sticky fault.
	Enter(op string) error
	// Current is nil when the calling thread has a current context, else
	// the driver's error for its absence.
	Current() error
	// ExportMem returns the id the allocation holding ptr is exported
	// under, calling export for its storage the first time: ptr must be in
	// a cuMemAlloc allocation (not stream-ordered memory), else
	// CUDA_ERROR_INVALID_VALUE.
	ExportMem(ptr uintptr, export func(data []byte, size uintptr) uint64) (uint64, error)
	// MapMem maps data, another process's storage of size bytes, at a new
	// address of the current context's device.
	MapMem(data []byte, size uintptr) (uintptr, error)
	// UnmapMem takes the mapping MapMem made at ptr away, once the work
	// queued in its context ran (CUDA_ERROR_INVALID_VALUE for any other
	// pointer).
	UnmapMem(ptr uintptr) error
	// ExportEvent returns the id event ev is exported under, calling export
	// for its shared state the first time: ev must be an event made with
	// CU_EVENT_INTERPROCESS, else CUDA_ERROR_INVALID_HANDLE.
	ExportEvent(ev uintptr, export func(shared any) uint64) (uint64, error)
	// OpenEvent makes an event of the current context over shared, the
	// state of another process's event.
	OpenEvent(shared any) (uintptr, error)
}

// Room is one fake backend's (one process's) side of the sharing. It is
// safe for concurrent use.
type Room struct{ core Core }

// New returns the room of a backend whose core is core.
func New(core Core) *Room { return &Room{core} }

// enter is Core.Enter, named so that the fake's entry-point check
// (TestEntryPointsMatchSources) finds each entry point this room counts.
func (r *Room) enter(op string) error { return r.core.Enter(op) }

// registry is the process-wide registry of what the fake's processes
// exported, by id.
var registry struct {
	sync.Mutex // a leaf
	next       uint64
	mems       map[uint64]mem
	events     map[uint64]event
}

type mem struct {
	owner *Room
	data  []byte
	size  uintptr
}

type event struct {
	owner  *Room
	shared any
}

var (
	memMagic   = []byte("nocgo-fake-ipc-m")
	eventMagic = []byte("nocgo-fake-ipc-e")
)

// errSameProcess is what opening a handle in the process that exported it
// returns.
var errSameProcess error = driver.ErrInvalidContext

func makeHandle(magic []byte, id uint64) driver.IPCHandle {
	var h driver.IPCHandle
	copy(h[:], magic)
	binary.LittleEndian.PutUint64(h[16:], id)
	return h
}

func parseHandle(magic []byte, h driver.IPCHandle) (uint64, bool) {
	if !bytes.Equal(h[:16], magic) {
		return 0, false
	}
	return binary.LittleEndian.Uint64(h[16:]), true
}

// export registers what register records under a new id.
func export(register func(id uint64)) uint64 {
	registry.Lock()
	defer registry.Unlock()
	if registry.mems == nil {
		registry.mems = map[uint64]mem{}
		registry.events = map[uint64]event{}
	}
	registry.next++
	register(registry.next)
	return registry.next
}

// Withdraw stops the memory or event exported under id (not 0) from
// opening: it is being freed or destroyed, or its process ended. The core
// may hold its lock.
func Withdraw(id uint64) {
	registry.Lock()
	delete(registry.mems, id)
	delete(registry.events, id)
	registry.Unlock()
}

// IPCGetMemHandle is cuIpcGetMemHandle: ptr must be in a cuMemAlloc
// allocation (not stream-ordered memory); the handle names the whole
// allocation, as the driver's does.
func (r *Room) IPCGetMemHandle(ptr uintptr) (driver.IPCHandle, error) {
	if err := r.enter(abi.CuIpcGetMemHandle); err != nil {
		return driver.IPCHandle{}, err
	}
	id, err := r.core.ExportMem(ptr, func(data []byte, size uintptr) uint64 {
		return export(func(id uint64) { registry.mems[id] = mem{owner: r, data: data, size: size} })
	})
	if err != nil {
		return driver.IPCHandle{}, err
	}
	return makeHandle(memMagic, id), nil
}

// IPCOpenMemHandle is cuIpcOpenMemHandle: in another backend it maps the
// exported storage at a new address of the current context's device; the
// mapping is closed with IPCCloseMemHandle, never freed.
func (r *Room) IPCOpenMemHandle(h driver.IPCHandle, flags uint32) (uintptr, error) {
	if err := r.enter(abi.CuIpcOpenMemHandle); err != nil {
		return 0, err
	}
	if flags&^backend.IPCMemLazyEnablePeerAccess != 0 {
		return 0, driver.ErrInvalidValue
	}
	id, ok := parseHandle(memMagic, h)
	if !ok {
		return 0, driver.ErrInvalidValue
	}
	registry.Lock()
	m, ok := registry.mems[id]
	registry.Unlock()
	if err := r.core.Current(); err != nil {
		return 0, err
	}
	if !ok {
		return 0, driver.ErrInvalidValue
	}
	if m.owner == r {
		return 0, errSameProcess
	}
	return r.core.MapMem(m.data, m.size)
}

// IPCCloseMemHandle is cuIpcCloseMemHandle: ptr must be a mapping made by
// IPCOpenMemHandle.
func (r *Room) IPCCloseMemHandle(ptr uintptr) error {
	if err := r.enter(abi.CuIpcCloseMemHandle); err != nil {
		return err
	}
	return r.core.UnmapMem(ptr)
}

// IPCGetEventHandle is cuIpcGetEventHandle: the event needs
// CU_EVENT_INTERPROCESS.
func (r *Room) IPCGetEventHandle(ev uintptr) (driver.IPCHandle, error) {
	if err := r.enter(abi.CuIpcGetEventHandle); err != nil {
		return driver.IPCHandle{}, err
	}
	// Measured on the H200: cuIpcGetEventHandle needs a current context (201).
	if err := r.core.Current(); err != nil {
		return driver.IPCHandle{}, err
	}
	id, err := r.core.ExportEvent(ev, func(shared any) uint64 {
		return export(func(id uint64) { registry.events[id] = event{owner: r, shared: shared} })
	})
	if err != nil {
		return driver.IPCHandle{}, err
	}
	return makeHandle(eventMagic, id), nil
}

// IPCOpenEventHandle is cuIpcOpenEventHandle: in another backend it returns
// an event of the current context that shares the exported one's state:
// records, queries, synchronizes and waits in either backend see each
// other's records.
func (r *Room) IPCOpenEventHandle(h driver.IPCHandle) (uintptr, error) {
	if err := r.enter(abi.CuIpcOpenEventHandle); err != nil {
		return 0, err
	}
	id, ok := parseHandle(eventMagic, h)
	if !ok {
		return 0, driver.ErrInvalidValue
	}
	registry.Lock()
	x, ok := registry.events[id]
	registry.Unlock()
	if err := r.core.Current(); err != nil {
		return 0, err
	}
	if !ok {
		return 0, driver.ErrInvalidValue
	}
	if x.owner == r {
		return 0, errSameProcess
	}
	return r.core.OpenEvent(x.shared)
}
