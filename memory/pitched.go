package memory

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/stream"
)

// Pitched is a 2D array of Height rows of Width elements of T in device
// memory, each row starting Pitch bytes after the one before
// (cuMemAllocPitch): the driver pads rows so that each starts aligned for
// fast access. Element (x, y) is at Ptr() + y*Pitch() + x*sizeof(T).
// The caller owns it: Close frees the memory. Buffer gives the whole
// allocation, padding included, as a Buffer for launches and fills.
type Pitched[T any] struct {
	b             *Buffer[T]
	pitch         uintptr
	width, height int
}

// AllocPitched allocates a width x height array of T in ctx
// (cuMemAllocPitch). The driver takes elements of 4, 8 or 16 bytes only:
// other sizes, and a zero or negative width or height, are errors wrapping
// ErrInvalidValue, before any driver call.
func AllocPitched[T any](ctx *driver.Context, width, height int) (*Pitched[T], error) {
	return allocPitched[T]("memory.AllocPitched", ctx, width, height)
}

// allocPitched is AllocPitched with errors starting with op[T].
func allocPitched[T any](name string, ctx *driver.Context, width, height int) (*Pitched[T], error) {
	e := elemOf[T]()
	op := name + "[" + e.name + "]"
	c, err := core.Of(op, ctx)
	if err != nil {
		return nil, err
	}
	if e.err != nil {
		return nil, fmt.Errorf("%s: %w", op, e.err)
	}
	if e.size != 4 && e.size != 8 && e.size != 16 {
		return nil, fmt.Errorf("%s: elements of %d bytes: the driver pitches elements of 4, 8 or 16 bytes: %w", op, e.size, driver.ErrInvalidInput)
	}
	if width <= 0 || height <= 0 {
		return nil, fmt.Errorf("%s: %d x %d: width and height must be positive: %w", op, width, height, driver.ErrInvalidInput)
	}
	rowBytes, err := e.byteSize(width)
	if err != nil {
		return nil, fmt.Errorf("%s: width %d: %w", op, width, err)
	}
	pa, ok := c.API.(backend.Pitched)
	if !ok {
		return nil, fmt.Errorf("%s: the backend has no pitched allocations (backend.Pitched): %w", op, errors.ErrUnsupported)
	}
	h, err := c.Hold()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	var ptr, pitch uintptr
	err = h.Do(func(backend.API) error {
		var r error
		if ptr, pitch, r = pa.MemAllocPitch(rowBytes, uintptr(height), uint32(e.size)); r != nil {
			return fmt.Errorf("%d x %d in %s: cuMemAllocPitch: %w", width, height, ctx, r)
		}
		return nil
	})
	if err != nil {
		if ptr != 0 { // allocated, but unbinding failed
			err = h.Undo(err, func(api backend.API) error { return api.MemFree(ptr) })
		}
		return nil, h.Drop(fmt.Errorf("%s: %w", op, err))
	}
	n := int(pitch/e.size) * height
	b := newBuffer[T](&allocation{ctx: ctx, hold: h, kind: kindAlloc, base: ptr, size: pitch * uintptr(height)}, ptr, n)
	return &Pitched[T]{b: b, pitch: pitch, width: width, height: height}, nil
}

// orZero returns p, or a zero Pitched for a nil p, for the accessors.
func (p *Pitched[T]) orZero() *Pitched[T] {
	if p == nil {
		return &Pitched[T]{}
	}
	return p
}

// Width returns the elements of a row (0 for a nil or zero Pitched).
func (p *Pitched[T]) Width() int { return p.orZero().width }

// Height returns the rows (0 for a nil or zero Pitched).
func (p *Pitched[T]) Height() int { return p.orZero().height }

// Pitch returns the bytes from one row to the next (at least Width
// elements; 0 for a nil or zero Pitched).
func (p *Pitched[T]) Pitch() int { return int(p.orZero().pitch) }

// Ptr returns the device address of element (0, 0) (0 after Close, and for
// a nil or zero Pitched).
func (p *Pitched[T]) Ptr() uintptr { return p.orZero().b.Ptr() }

// Buffer returns the whole allocation (Height rows of Pitch bytes) as a
// Buffer, for kernel launches and fills; it is freed with p. It is nil for
// a nil or zero Pitched.
func (p *Pitched[T]) Buffer() *Buffer[T] { return p.orZero().b }

// Close frees the memory (cuMemFree); see Buffer.Close. A nil or zero
// Pitched is an error wrapping ErrInvalidValue.
func (p *Pitched[T]) Close() error {
	if p == nil || p.b == nil {
		return fmt.Errorf("memory.Pitched.Close: nil or zero pitched array: %w", driver.ErrInvalidInput)
	}
	return p.b.Close()
}

// copy2D builds the copy of the p's rows to or from host rows of rowLen
// elements at host.
func (p *Pitched[T]) copy2D(op string, host []T, rowLen int, toDevice bool) (*backend.Memcpy2D, error) {
	if err := p.b.usable(op, "pitched"); err != nil {
		return nil, err
	}
	if rowLen < p.width {
		return nil, fmt.Errorf("%s: row length %d is less than the width %d: %w", op, rowLen, p.width, driver.ErrInvalidInput)
	}
	if need := (p.height-1)*rowLen + p.width; len(host) < need || rowLen > (1<<31) {
		return nil, fmt.Errorf("%s: %d host elements; %d rows of %d with a row length of %d need %d: %w", op, len(host), p.height, p.width, rowLen, need, driver.ErrInvalidInput)
	}
	size := p.b.elemSize()
	c := &backend.Memcpy2D{WidthInBytes: uintptr(p.width) * size, Height: uintptr(p.height)}
	hp := unsafe.Pointer(unsafe.SliceData(host))
	if toDevice {
		c.SrcMemoryType, c.SrcHost, c.SrcPitch = backend.MemoryTypeHost, hp, uintptr(rowLen)*size
		c.DstMemoryType, c.DstDevice, c.DstPitch = backend.MemoryTypeDevice, p.b.ptr, p.pitch
	} else {
		c.SrcMemoryType, c.SrcDevice, c.SrcPitch = backend.MemoryTypeDevice, p.b.ptr, p.pitch
		c.DstMemoryType, c.DstHost, c.DstPitch = backend.MemoryTypeHost, hp, uintptr(rowLen)*size
	}
	return c, nil
}

func (p *Pitched[T]) sync(op string, c *backend.Memcpy2D, host []T) (err error) {
	pa := p.b.a.hold.Context().API.(backend.Pitched)
	b, err := p.b.a.hold.Bind()
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer b.Done(&err)
	r := pa.Memcpy2D(c)
	runtime.KeepAlive(host)
	if r != nil {
		return fmt.Errorf("%s: %d x %d of %s: cuMemcpy2D: %w", op, p.width, p.height, p.b, core.Unusable(r))
	}
	if r := p.b.a.hold.Context().API.StreamSynchronize(backend.StreamLegacy); r != nil {
		return fmt.Errorf("%s: cuStreamSynchronize(CU_STREAM_LEGACY): %w", op, core.Unusable(r))
	}
	return nil
}

func (p *Pitched[T]) async(op string, s *stream.Stream, c *backend.Memcpy2D, host []T) (err error) {
	if err := streamCheck(op, s); err != nil {
		return err
	}
	if !s.Context().Same(p.b.a.ctx) {
		return fmt.Errorf("%s: %s on stream %#x of %s: %w", op, p.b, s.Handle(), s.Context(), driver.ErrWrongContext)
	}
	pa := p.b.a.hold.Context().API.(backend.Pitched)
	u, err := use(s)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer u.Done(&err)
	if err := p.b.hold(op, "pitched memory"); err != nil {
		return err
	}
	defer p.b.unhold()
	r := pa.Memcpy2DAsync(c, s.Handle())
	runtime.KeepAlive(host)
	if r != nil {
		return fmt.Errorf("%s: %d x %d of %s on stream %#x: cuMemcpy2DAsync: %w", op, p.width, p.height, p.b, s.Handle(), r)
	}
	keep(s, p.b.a.hold)
	return nil
}

// CopyToPitched copies Height rows of Width elements from src, a flat host
// slice whose rows start rowLen elements apart (rowLen >= Width; Width for
// a dense matrix), into dst (cuMemcpy2D). It returns once the data is in
// device memory.
func CopyToPitched[T any](dst *Pitched[T], src []T, rowLen int) error {
	const op = "memory.CopyToPitched"
	if dst == nil {
		return fmt.Errorf("%s: nil pitched array: %w", op, driver.ErrInvalidInput)
	}
	c, err := dst.copy2D(op, src, rowLen, true)
	if err != nil {
		return err
	}
	return dst.sync(op, c, src)
}

// CopyFromPitched copies src's rows into dst, a flat host slice whose rows
// start rowLen elements apart (cuMemcpy2D); the elements between rows are
// left as they were. It returns once dst holds the data.
func CopyFromPitched[T any](dst []T, rowLen int, src *Pitched[T]) error {
	const op = "memory.CopyFromPitched"
	if src == nil {
		return fmt.Errorf("%s: nil pitched array: %w", op, driver.ErrInvalidInput)
	}
	c, err := src.copy2D(op, dst, rowLen, false)
	if err != nil {
		return err
	}
	return src.sync(op, c, dst)
}

// CopyToPitchedAsync is CopyToPitched queued on s (cuMemcpy2DAsync), a
// stream of dst's context; src must stay untouched until the copy is done
// (from pinned memory, for a truly asynchronous copy).
func CopyToPitchedAsync[T any](s *stream.Stream, dst *Pitched[T], src []T, rowLen int) error {
	const op = "memory.CopyToPitchedAsync"
	if dst == nil {
		return fmt.Errorf("%s: nil pitched array: %w", op, driver.ErrInvalidInput)
	}
	c, err := dst.copy2D(op, src, rowLen, true)
	if err != nil {
		return err
	}
	return dst.async(op, s, c, src)
}

// CopyFromPitchedAsync is CopyFromPitched queued on s; dst is written when
// s runs the copy.
func CopyFromPitchedAsync[T any](s *stream.Stream, dst []T, rowLen int, src *Pitched[T]) error {
	const op = "memory.CopyFromPitchedAsync"
	if src == nil {
		return fmt.Errorf("%s: nil pitched array: %w", op, driver.ErrInvalidInput)
	}
	c, err := src.copy2D(op, dst, rowLen, false)
	if err != nil {
		return err
	}
	return src.async(op, s, c, dst)
}
