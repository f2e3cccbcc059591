package memory

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/stream"
)

// ManagedFlag says which streams may touch managed memory at first
// (cuMemAllocManaged's flags).
type ManagedFlag uint32

const (
	// AttachGlobal: any stream of any device (CU_MEM_ATTACH_GLOBAL).
	AttachGlobal = ManagedFlag(backend.MemAttachGlobal)
	// AttachHost: the host, until a stream attaches it
	// (CU_MEM_ATTACH_HOST).
	AttachHost = ManagedFlag(backend.MemAttachHost)
)

// Location is where Prefetch moves managed memory and what Advise names:
// the host (Host) or a device (On).
//
// The zero Location names no memory: Prefetch and Advise refuse it (and
// On(nil)) with an error wrapping ErrInvalidValue, and a device of another
// *driver.Driver than the buffer's with one wrapping driver.ErrWrongContext.
type Location struct {
	host bool
	dev  *driver.Device
}

// Host is the CPU's memory.
var Host = Location{host: true}

// On is dev's memory.
func On(dev *driver.Device) Location { return Location{dev: dev} }

func (l Location) raw() backend.MemLocation {
	if l.host {
		return backend.MemLocation{Type: backend.MemLocationHost}
	}
	return backend.MemLocation{Type: backend.MemLocationDevice, ID: int32(l.dev.Ordinal())}
}

// check refuses a Location that names no memory, or a device of another
// driver than ctx's.
func (l Location) check(op string, ctx *driver.Context) error {
	switch {
	case l.host:
		return nil
	case l.dev == nil || l.dev.Driver() == nil:
		return fmt.Errorf("%s: no location (a zero Location, or On of a nil or zero device): use memory.Host or memory.On: %w", op, driver.ErrInvalidInput)
	case l.dev.Driver() != ctx.Driver():
		return fmt.Errorf("%s: %s belongs to another *driver.Driver than %s: %w", op, l, ctx, driver.ErrWrongContext)
	}
	return nil
}

// String returns "host", "device N", or "no location" for the zero
// Location.
func (l Location) String() string {
	switch {
	case l.host:
		return "host"
	case l.dev == nil:
		return "no location"
	}
	return fmt.Sprintf("device %d", l.dev.Ordinal())
}

// Advice is a hint about how managed memory is used (CUmem_advise).
type Advice int32

// Advice values; the Location passed with them matters for the preferred
// location and accessed-by advice only.
const (
	SetReadMostly          = Advice(backend.MemAdviseSetReadMostly)
	UnsetReadMostly        = Advice(backend.MemAdviseUnsetReadMostly)
	SetPreferredLocation   = Advice(backend.MemAdviseSetPreferredLocation)
	UnsetPreferredLocation = Advice(backend.MemAdviseUnsetPreferredLocation)
	SetAccessedBy          = Advice(backend.MemAdviseSetAccessedBy)
	UnsetAccessedBy        = Advice(backend.MemAdviseUnsetAccessedBy)
)

// ErrNoManaged is wrapped when the backend has no managed memory
// (errors.Is(err, errors.ErrUnsupported) holds too).
var ErrNoManaged = fmt.Errorf("memory: the backend has no managed memory (backend.ManagedMemory): %w", errors.ErrUnsupported)

func managedOf(op string, c *core.Context) (backend.ManagedMemory, error) {
	m, ok := c.API.(backend.ManagedMemory)
	if !ok {
		return nil, fmt.Errorf("%s: %w", op, ErrNoManaged)
	}
	return m, nil
}

// AllocManaged allocates n elements of T of managed (unified) memory in
// ctx (cuMemAllocManaged): one address valid on the device and, through
// HostSlice, on the host; the driver migrates pages on demand (Prefetch
// moves them ahead of use). The caller owns the buffer: Close frees it
// (cuMemFree). The memory is not initialised. The buffer works with every
// copy, fill and launch, as an Alloc buffer does.
func AllocManaged[T any](ctx *driver.Context, n int, flags ManagedFlag) (*Buffer[T], error) {
	e := elemOf[T]()
	op := "memory.AllocManaged[" + e.name + "]"
	c, err := core.Of(op, ctx)
	if err != nil {
		return nil, err
	}
	if flags != AttachGlobal && flags != AttachHost {
		return nil, fmt.Errorf("%s: flags %#x: want AttachGlobal or AttachHost: %w", op, uint32(flags), driver.ErrInvalidInput)
	}
	m, err := managedOf(op, c)
	if err != nil {
		return nil, err
	}
	size, err := e.sizeOf(op, n)
	if err != nil {
		return nil, err
	}
	h, err := c.Hold()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if size == 0 {
		return newBuffer[T](&allocation{ctx: ctx, hold: h, kind: kindManaged}, 0, 0), nil
	}
	var ptr uintptr
	err = h.Do(func(backend.API) error {
		var r error
		if ptr, r = m.MemAllocManaged(size, uint32(flags)); r != nil {
			return fmt.Errorf("n=%d (%d bytes) in %s: cuMemAllocManaged: %w", n, size, ctx, r)
		}
		return nil
	})
	if err != nil {
		if ptr != 0 { // allocated, but unbinding failed
			err = h.Undo(err, func(api backend.API) error { return api.MemFree(ptr) })
		}
		return nil, h.Drop(fmt.Errorf("%s: %w", op, err))
	}
	return newBuffer[T](&allocation{ctx: ctx, hold: h, kind: kindManaged, base: ptr, size: size}, ptr, n), nil
}

// HostSlice returns the managed memory of b as a Go slice of b.Len()
// elements, read and written by the host in place (through the address
// the driver gives for CU_POINTER_ATTRIBUTE_HOST_POINTER: on a GPU, the
// device address itself). The slice is valid only until b is closed, and
// may be touched only while no kernel or copy that uses the memory is
// running (synchronize first): on devices without concurrent managed
// access, touching it then is a fault. The garbage collector does not
// manage or move this memory; it is not Go memory, so keep no Go pointers
// in it. For other buffers it is an error wrapping ErrInvalidValue. An
// empty buffer gives an empty slice.
func (b *Buffer[T]) HostSlice() ([]T, error) {
	const op = "memory.Buffer.HostSlice"
	if err := b.usable(op, "b"); err != nil {
		return nil, err
	}
	if b.a.kind != kindManaged {
		return nil, fmt.Errorf("%s: %s is not managed memory (AllocManaged): %w", op, b, driver.ErrInvalidInput)
	}
	if b.n == 0 {
		return []T{}, nil
	}
	p, err := apiOf(b.a.ctx).PointerGetAttribute(backend.PointerAttrHostPointer, b.ptr)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: cuPointerGetAttribute(HOST_POINTER): %w", op, b, err)
	}
	// The driver's address of managed memory, which is no Go memory (on
	// the fake, storage it keeps alive): valid until cuMemFree (Close).
	// Read through a variable, the address is no uintptr arithmetic on Go
	// memory.
	addr := uintptr(p)
	return unsafe.Slice((*T)(*(*unsafe.Pointer)(unsafe.Pointer(&addr))), b.n), nil
}

// Prefetch queues on s a migration of b's managed memory to loc
// (cuMemPrefetchAsync), so that work on s after it finds the pages there.
// It is an error wrapping ErrInvalidValue for buffers that are not managed.
// An empty buffer queues nothing.
func Prefetch[T any](s *stream.Stream, b *Buffer[T], loc Location) (err error) {
	const op = "memory.Prefetch"
	if err := b.usable(op, "b"); err != nil {
		return err
	}
	if b.a.kind != kindManaged {
		return fmt.Errorf("%s: %s is not managed memory (AllocManaged): %w", op, b, driver.ErrInvalidInput)
	}
	m, err := managedOf(op, core.ContextOf(b.a.ctx))
	if err != nil {
		return err
	}
	if err := loc.check(op, b.a.ctx); err != nil {
		return err
	}
	if err := streamCheck(op, s); err != nil {
		return err
	}
	if b.n == 0 {
		return nil
	}
	u, err := use(s)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer u.Done(&err)
	if r := m.MemPrefetchAsync(b.ptr, b.bytes(), loc.raw(), s.Handle()); r != nil {
		return fmt.Errorf("%s: %s to %s on stream %#x: cuMemPrefetchAsync: %w", op, b, loc, s.Handle(), r)
	}
	return nil
}

// Advise tells the driver how b's managed memory is used (cuMemAdvise);
// loc matters for the preferred-location and accessed-by advice. It is an
// error wrapping ErrInvalidValue for buffers that are not managed. An
// empty buffer is left alone.
func Advise[T any](b *Buffer[T], advice Advice, loc Location) error {
	const op = "memory.Advise"
	if err := b.usable(op, "b"); err != nil {
		return err
	}
	if b.a.kind != kindManaged {
		return fmt.Errorf("%s: %s is not managed memory (AllocManaged): %w", op, b, driver.ErrInvalidInput)
	}
	m, err := managedOf(op, core.ContextOf(b.a.ctx))
	if err != nil {
		return err
	}
	if err := loc.check(op, b.a.ctx); err != nil {
		return err
	}
	if b.n == 0 {
		return nil
	}
	// cuMemAdvise reads the current context (CUDA_ERROR_INVALID_CONTEXT
	// with none, on the H200): the buffer's is made current for it.
	return b.a.hold.Do(func(backend.API) error {
		if r := m.MemAdvise(b.ptr, b.bytes(), backend.MemAdvice(advice), loc.raw()); r != nil {
			return fmt.Errorf("%s: %s: cuMemAdvise(%d, %s): %w", op, b, advice, loc, r)
		}
		return nil
	})
}
