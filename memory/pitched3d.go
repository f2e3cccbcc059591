package memory

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/stream"
)

// Pitched3D is a 3D volume of Depth slices of Height rows of Width
// elements of T in device memory: one pitched allocation of Height*Depth
// rows (cuMemAllocPitch), rows Pitch bytes apart, slices Height*Pitch
// bytes apart. Element (x, y, z) is at Ptr() + (z*Height()+y)*Pitch() +
// x*sizeof(T). The caller owns it: Close frees the memory.
type Pitched3D[T any] struct {
	p     *Pitched[T]
	depth int
}

// AllocPitched3D allocates a width x height x depth volume of T in ctx.
// As for AllocPitched, elements must be of 4, 8 or 16 bytes and every
// extent positive (errors wrapping ErrInvalidValue, before any driver
// call).
func AllocPitched3D[T any](ctx *driver.Context, width, height, depth int) (*Pitched3D[T], error) {
	const name = "memory.AllocPitched3D"
	if depth <= 0 || height <= 0 || height > math.MaxInt32/depth {
		return nil, fmt.Errorf("%s[%s]: height %d, depth %d: each must be positive and their product fit 31 bits: %w", name, elemOf[T]().name, height, depth, driver.ErrInvalidInput)
	}
	p, err := allocPitched[T](name, ctx, width, height*depth)
	if err != nil {
		return nil, err
	}
	p.height = height
	return &Pitched3D[T]{p: p, depth: depth}, nil
}

// rows returns the volume's rows as a Pitched (a zero one for a nil or
// zero volume), for the accessors.
func (v *Pitched3D[T]) rows() *Pitched[T] {
	if v == nil {
		return nil
	}
	return v.p.orZero()
}

// Width returns the elements of a row (0 for a nil or zero volume).
func (v *Pitched3D[T]) Width() int { return v.rows().Width() }

// Height returns the rows of a slice (0 for a nil or zero volume).
func (v *Pitched3D[T]) Height() int { return v.rows().Height() }

// Depth returns the slices (0 for a nil or zero volume).
func (v *Pitched3D[T]) Depth() int {
	if v == nil {
		return 0
	}
	return v.depth
}

// Pitch returns the bytes from one row to the next (0 for a nil or zero
// volume).
func (v *Pitched3D[T]) Pitch() int { return v.rows().Pitch() }

// Ptr returns the device address of element (0, 0, 0) (0 after Close, and
// for a nil or zero volume).
func (v *Pitched3D[T]) Ptr() uintptr { return v.rows().Ptr() }

// Buffer returns the whole allocation (Height*Depth rows of Pitch bytes)
// as a Buffer, for kernel launches and fills; it is freed with v. It is
// nil for a nil or zero volume.
func (v *Pitched3D[T]) Buffer() *Buffer[T] { return v.rows().Buffer() }

// Close frees the memory (cuMemFree); see Buffer.Close. A nil or zero
// volume is an error wrapping ErrInvalidValue.
func (v *Pitched3D[T]) Close() error {
	if v == nil || v.p == nil || v.p.b == nil {
		return fmt.Errorf("memory.Pitched3D.Close: nil or zero pitched volume: %w", driver.ErrInvalidInput)
	}
	return v.p.b.Close()
}

// copy3D builds the copy of the whole volume to or from a dense host
// slice of Width*Height*Depth elements.
func (v *Pitched3D[T]) copy3D(op string, host []T, toDevice bool) (*backend.Memcpy3D, backend.Copies3D, error) {
	if v.p == nil || v.p.b == nil {
		return nil, nil, fmt.Errorf("%s: nil or zero pitched volume: %w", op, driver.ErrInvalidInput)
	}
	b := v.p.b
	if err := b.usable(op, "pitched volume"); err != nil {
		return nil, nil, err
	}
	ca, ok := b.a.hold.Context().API.(backend.Copies3D)
	if !ok {
		return nil, nil, fmt.Errorf("%s: the backend has no 3D copies (backend.Copies3D): %w", op, errors.ErrUnsupported)
	}
	w, h, d := v.p.width, v.p.height, v.depth
	if n := len(host); n != w*h*d { // w*h*d fits: the allocation holds more
		return nil, nil, fmt.Errorf("%s: %d host elements for a %d x %d x %d volume (want %d): %w", op, n, w, h, d, w*h*d, driver.ErrInvalidInput)
	}
	size := b.elemSize()
	row := uintptr(w) * size
	c := &backend.Memcpy3D{WidthInBytes: row, Height: uintptr(h), Depth: uintptr(d)}
	hp := unsafe.Pointer(unsafe.SliceData(host))
	if toDevice {
		c.SrcMemoryType, c.SrcHost, c.SrcPitch, c.SrcHeight = backend.MemoryTypeHost, hp, row, uintptr(h)
		c.DstMemoryType, c.DstDevice, c.DstPitch, c.DstHeight = backend.MemoryTypeDevice, b.ptr, v.p.pitch, uintptr(h)
	} else {
		c.SrcMemoryType, c.SrcDevice, c.SrcPitch, c.SrcHeight = backend.MemoryTypeDevice, b.ptr, v.p.pitch, uintptr(h)
		c.DstMemoryType, c.DstHost, c.DstPitch, c.DstHeight = backend.MemoryTypeHost, hp, row, uintptr(h)
	}
	return c, ca, nil
}

func (v *Pitched3D[T]) sync(op string, ca backend.Copies3D, c *backend.Memcpy3D, host []T) (err error) {
	h := v.p.b.a.hold
	b, err := h.Bind()
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer b.Done(&err)
	r := ca.Memcpy3D(c)
	runtime.KeepAlive(host)
	if r != nil {
		return fmt.Errorf("%s: %d x %d x %d of %s: cuMemcpy3D: %w", op, v.p.width, v.p.height, v.depth, v.p.b, core.Unusable(r))
	}
	if r := h.Context().API.StreamSynchronize(backend.StreamLegacy); r != nil {
		return fmt.Errorf("%s: cuStreamSynchronize(CU_STREAM_LEGACY): %w", op, core.Unusable(r))
	}
	return nil
}

func (v *Pitched3D[T]) async(op string, s *stream.Stream, ca backend.Copies3D, c *backend.Memcpy3D, host []T) (err error) {
	if err := streamCheck(op, s); err != nil {
		return err
	}
	if !s.Context().Same(v.p.b.a.ctx) {
		return fmt.Errorf("%s: %s on stream %#x of %s: %w", op, v.p.b, s.Handle(), s.Context(), driver.ErrWrongContext)
	}
	u, err := use(s)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer u.Done(&err)
	if err := v.p.b.hold(op, "pitched memory"); err != nil {
		return err
	}
	defer v.p.b.unhold()
	r := ca.Memcpy3DAsync(c, s.Handle())
	runtime.KeepAlive(host)
	if r != nil {
		return fmt.Errorf("%s: %d x %d x %d of %s on stream %#x: cuMemcpy3DAsync: %w", op, v.p.width, v.p.height, v.depth, v.p.b, s.Handle(), r)
	}
	keep(s, v.p.b.a.hold)
	return nil
}

// CopyToPitched3D copies src, a dense host volume of Width*Height*Depth
// elements (x fastest, then y, then z), into dst (cuMemcpy3D); the row
// padding of dst is not written. It returns once the data is in device
// memory.
func CopyToPitched3D[T any](dst *Pitched3D[T], src []T) error {
	const op = "memory.CopyToPitched3D"
	if dst == nil {
		return fmt.Errorf("%s: nil pitched volume: %w", op, driver.ErrInvalidInput)
	}
	c, ca, err := dst.copy3D(op, src, true)
	if err != nil {
		return err
	}
	return dst.sync(op, ca, c, src)
}

// CopyFromPitched3D copies src into dst, a dense host volume of
// Width*Height*Depth elements (cuMemcpy3D). It returns once dst holds the
// data.
func CopyFromPitched3D[T any](dst []T, src *Pitched3D[T]) error {
	const op = "memory.CopyFromPitched3D"
	if src == nil {
		return fmt.Errorf("%s: nil pitched volume: %w", op, driver.ErrInvalidInput)
	}
	c, ca, err := src.copy3D(op, dst, false)
	if err != nil {
		return err
	}
	return src.sync(op, ca, c, dst)
}

// CopyToPitched3DAsync is CopyToPitched3D queued on s (cuMemcpy3DAsync),
// a stream of dst's context; src must stay alive and untouched until the
// copy is done (from pinned memory, for a truly asynchronous copy).
func CopyToPitched3DAsync[T any](s *stream.Stream, dst *Pitched3D[T], src []T) error {
	const op = "memory.CopyToPitched3DAsync"
	if dst == nil {
		return fmt.Errorf("%s: nil pitched volume: %w", op, driver.ErrInvalidInput)
	}
	c, ca, err := dst.copy3D(op, src, true)
	if err != nil {
		return err
	}
	return dst.async(op, s, ca, c, src)
}

// CopyFromPitched3DAsync is CopyFromPitched3D queued on s; dst is written
// when s runs the copy and must stay alive until then.
func CopyFromPitched3DAsync[T any](s *stream.Stream, dst []T, src *Pitched3D[T]) error {
	const op = "memory.CopyFromPitched3DAsync"
	if src == nil {
		return fmt.Errorf("%s: nil pitched volume: %w", op, driver.ErrInvalidInput)
	}
	c, ca, err := src.copy3D(op, dst, false)
	if err != nil {
		return err
	}
	return src.async(op, s, ca, c, dst)
}
