package memory

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// HostBuffer is page-locked (pinned) host memory holding Len elements of T,
// allocated by the driver (cuMemHostAlloc) and seen from Go as a slice. Copies
// to and from pinned memory run at the link's full rate and are truly
// asynchronous (see CopyToDeviceAsync). The caller owns it: Close releases it.
//
// The memory is not Go memory: the garbage collector neither moves nor frees
// it, and it lives until Close. An empty HostBuffer (AllocHost of zero
// elements) has no memory: its Slice is an empty, non-nil slice. After
// Close, Slice returns nil and any slice
// obtained before must no longer be used (reading or writing it is a use
// after free that may crash the program); nor may it be freed while a copy
// queued on a stream still uses it.
type HostBuffer[T any] struct {
	ctx   *driver.Context
	hold  *core.Hold     // keeps ctx alive until Free
	p     unsafe.Pointer // nil for an empty buffer: no memory
	n     int
	mu    sync.Mutex
	freed atomic.Bool
}

// AllocHost allocates pinned host memory for n elements of T with ctx current
// (cuMemHostAlloc with CU_MEMHOSTALLOC_PORTABLE, so that every context sees
// it as pinned). The memory is not initialised. T must be a fixed-size type
// without pointers; n must not be negative. For n == 0 nothing is allocated:
// the buffer is empty, and holds ctx like any other. The buffer holds ctx
// until Close: it keeps working after ctx.Close, which then ends the context
// only when the buffer is freed.
func AllocHost[T any](ctx *driver.Context, n int) (*HostBuffer[T], error) {
	e := elemOf[T]()
	op := "memory.AllocHost[" + e.name + "]"
	if ctx == nil {
		return nil, fmt.Errorf("%s: nil context: %w", op, driver.ErrInvalidInput)
	}
	size, err := e.sizeOf(op, n)
	if err != nil {
		return nil, err
	}
	c, err := core.Of(op, ctx)
	if err != nil {
		return nil, err
	}
	h, err := c.Hold()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if size == 0 {
		return &HostBuffer[T]{ctx: ctx, hold: h}, nil
	}
	var p unsafe.Pointer
	err = h.Do(func(api backend.API) error {
		var r error
		if p, r = api.MemHostAlloc(size, backend.MemHostAllocPortable); r != nil {
			return fmt.Errorf("n=%d (%d bytes) in %s: cuMemHostAlloc: %w", n, size, ctx, r)
		}
		if p == nil {
			return fmt.Errorf("cuMemHostAlloc returned NULL: %w", driver.ErrOutOfMemory)
		}
		return nil
	})
	if err != nil {
		if p != nil { // allocated, but unbinding failed
			err = h.Undo(err, func(api backend.API) error { return api.MemFreeHost(p) })
		}
		return nil, h.Drop(fmt.Errorf("%s: %w", op, err))
	}
	return &HostBuffer[T]{ctx: ctx, hold: h, p: p, n: n}, nil
}

// Slice returns the pinned memory as a Go slice of Len elements (empty, not
// nil, for an empty buffer), or nil after Close. It allocates nothing. The
// slice must not be used after Close.
func (h *HostBuffer[T]) Slice() []T {
	if h == nil || h.hold == nil || h.freed.Load() {
		return nil
	}
	if h.p == nil {
		return []T{}
	}
	return unsafe.Slice((*T)(h.p), h.n)
}

// Len returns the number of elements.
func (h *HostBuffer[T]) Len() int {
	if h == nil {
		return 0
	}
	return h.n
}

// Size returns the size in bytes.
func (h *HostBuffer[T]) Size() int {
	if h == nil {
		return 0
	}
	var z T
	return h.n * int(unsafe.Sizeof(z))
}

// Context returns the context the memory was allocated in.
func (h *HostBuffer[T]) Context() *driver.Context {
	if h == nil {
		return nil
	}
	return h.ctx
}

// Close releases the pinned memory (cuMemFreeHost, with its context made
// current, even when the *driver.Context was closed before), then lets go of
// the context (see driver.Context; an error in ending it is returned too, the
// memory being freed all the same). No copy may still be using the
// memory: synchronize the streams first. An empty buffer has no memory: its
// Close only lets go of the context. A second Close is a no-op returning
// nil; when the driver call fails the buffer stays usable, holding its
// context, and Close can be retried. From inside a host callback
// (stream.Stream.Callback), which must not call into CUDA, it fails with an
// error wrapping driver.ErrNotPermitted and changes nothing.
func (h *HostBuffer[T]) Close() error {
	const op = "memory.HostBuffer.Close"
	if h == nil || h.hold == nil {
		return fmt.Errorf("%s: nil or zero pinned buffer: %w", op, driver.ErrInvalidInput)
	}
	// Before the lock: a Close in progress on another goroutine may hold it
	// while cuMemFreeHost waits for the very callback calling this one.
	if core.InCallback() {
		return fmt.Errorf("%s: %d bytes at %p: %w", op, h.Size(), h.p, core.ErrInCallback)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.freed.Load() {
		return nil
	}
	if h.p == nil {
		h.freed.Store(true)
		return releaseHold(h.hold, op, "empty pinned buffer")
	}
	err := h.hold.Do(func(api backend.API) error {
		h.freed.Store(true)
		if r := api.MemFreeHost(h.p); r != nil {
			if !core.Gone(r) {
				h.freed.Store(false)
				return fmt.Errorf("cuMemFreeHost: %w", r)
			}
			return fmt.Errorf("cuMemFreeHost: %w", core.ClosedAnyway(r))
		}
		return nil
	})
	what := fmt.Sprintf("%d bytes at %p", h.Size(), h.p)
	if err != nil && !h.freed.Load() {
		return fmt.Errorf("%s: %s: %w", op, what, err)
	}
	rerr := releaseHold(h.hold, op, what)
	if err != nil {
		return errors.Join(fmt.Errorf("%s: %s: %w", op, what, err), rerr)
	}
	return rerr
}
