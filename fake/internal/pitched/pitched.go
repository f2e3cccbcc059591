package pitched

import (
	"math/bits"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
)

// Core is what the room needs of the fake's core.
type Core interface {
	// Sync is a synchronous copy of n bytes (the entry-point prologue, then
	// prepare under the core's lock with a current context, then the work
	// it returns run and waited for); Async enqueues one on stream s
	// (prepare under the core's lock when it is queued, the work when it
	// runs). Neither calls prepare for n == 0.
	Sync(op string, n uintptr, prepare func() (func() error, error)) error
	Async(op string, n uintptr, s uintptr, prepare func() (func() error, error)) error
	// CheckSpanLocked is nil when the n bytes at p lie in one allocation of
	// the memory table, and PinnedLocked reports whether the n host bytes
	// at p are page-locked memory; both are called from prepare, with the
	// core's lock held.
	CheckSpanLocked(p, n uintptr) error
	PinnedLocked(p unsafe.Pointer, n uintptr) bool
	// Span is the n device bytes at p, for the work a prepare returned; it
	// takes the core's lock itself.
	Span(p, n uintptr) ([]byte, error)
	// Access tells the race detector of the work's access of the n device
	// bytes at p.
	Access(p, n uintptr, kind Access)
	// MemAlloc is cuMemAlloc in the current context.
	MemAlloc(n uintptr) (uintptr, error)
	// Enter is the prologue of an entry point.
	Enter(op string) error
	// MaxStorage is the most bytes one allocation holds.
	MaxStorage() uintptr
}

// Access is how a copy uses a row, for the race detector.
type Access int

const (
	Read     Access = iota // a copy to the host reads what it uses
	CopyRead               // a copy to the device moves bytes it does not use
	Write
)

// Room is one fake backend's pitched memory and row copies. It is safe for
// concurrent use.
type Room struct{ core Core }

// New returns the room of a backend whose core is core.
func New(core Core) *Room { return &Room{core} }

// enter, syncOp and asyncOp are Core's, named so that the fake's
// entry-point check (TestEntryPointsMatchSources) finds the entry points
// this room counts.
func (r *Room) enter(op string) error { return r.core.Enter(op) }

func (r *Room) syncOp(op string, n uintptr, prepare func() (func() error, error)) error {
	return r.core.Sync(op, n, prepare)
}

func (r *Room) asyncOp(op string, n uintptr, s uintptr, prepare func() (func() error, error)) error {
	return r.core.Async(op, n, s, prepare)
}

// pitchAlign is the fake's row alignment of pitched allocations: 512
// bytes, what cuMemAllocPitch gives on recent GPUs for widths up to it.
const pitchAlign = 512

// MemAllocPitch is cuMemAllocPitch in the current context: rows of
// widthBytes rounded up to pitchAlign. elemSize must be 4, 8 or 16, and
// width and height not 0 (ErrInvalidValue, as on the driver).
func (r *Room) MemAllocPitch(widthBytes, height uintptr, elemSize uint32) (uintptr, uintptr, error) {
	if err := r.enter(abi.CuMemAllocPitch); err != nil {
		return 0, 0, err
	}
	limit := r.core.MaxStorage()
	if (elemSize != 4 && elemSize != 8 && elemSize != 16) || widthBytes == 0 || height == 0 || widthBytes > limit {
		return 0, 0, driver.ErrInvalidValue
	}
	pitch := (widthBytes + pitchAlign - 1) &^ (pitchAlign - 1)
	if height > limit/pitch {
		return 0, 0, driver.ErrOutOfMemory
	}
	p, err := r.core.MemAlloc(pitch * height)
	if err != nil {
		return 0, 0, err
	}
	return p, pitch, nil
}

// Memcpy2D is cuMemcpy2D (synchronous; needs a current context).
func (r *Room) Memcpy2D(p *backend.Memcpy2D) error {
	if p == nil {
		return driver.ErrInvalidValue
	}
	cp := *p
	return r.syncOp(abi.CuMemcpy2D, cp.WidthInBytes*cp.Height, func() (func() error, error) { return r.work2D(cp, false) })
}

// Memcpy2DAsync is cuMemcpy2DAsync: pageable host rows are read at
// enqueue, as the driver stages them.
func (r *Room) Memcpy2DAsync(p *backend.Memcpy2D, s uintptr) error {
	if p == nil {
		return driver.ErrInvalidValue
	}
	cp := *p
	return r.asyncOp(abi.CuMemcpy2DAsync, cp.WidthInBytes*cp.Height, s, func() (func() error, error) { return r.work2D(cp, true) })
}

// Memcpy3D is cuMemcpy3D (synchronous; needs a current context).
func (r *Room) Memcpy3D(p *backend.Memcpy3D) error {
	if p == nil {
		return driver.ErrInvalidValue
	}
	cp := *p
	return r.syncOp(abi.CuMemcpy3D, cp.WidthInBytes*cp.Height*cp.Depth, func() (func() error, error) { return r.work3D(cp, false) })
}

// Memcpy3DAsync is cuMemcpy3DAsync: pageable host bytes are read at
// enqueue, as the driver stages them.
func (r *Room) Memcpy3DAsync(p *backend.Memcpy3D, s uintptr) error {
	if p == nil {
		return driver.ErrInvalidValue
	}
	cp := *p
	return r.asyncOp(abi.CuMemcpy3DAsync, cp.WidthInBytes*cp.Height*cp.Depth, s, func() (func() error, error) { return r.work3D(cp, true) })
}

var (
	_ backend.Pitched  = (*Room)(nil)
	_ backend.Copies3D = (*Room)(nil)
)

// hostBytes is the n bytes of the caller's memory at p.
func hostBytes(p unsafe.Pointer, n uintptr) []byte { return unsafe.Slice((*byte)(p), n) }

// mulAdd returns a*b+c and whether it did not overflow.
func mulAdd(a, b, c uintptr) (uintptr, bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	s, carry := bits.Add64(lo, uint64(c), 0)
	return uintptr(s), hi == 0 && carry == 0
}

// srcAccess is how a copy to memory of type dst reads its source: a copy
// to the host uses what it reads.
func srcAccess(dst backend.MemoryType) Access {
	if dst == backend.MemoryTypeHost {
		return Read
	}
	return CopyRead
}

// rows returns the row slices of one side of a copy.
func (r *Room) rows(t backend.MemoryType, host []byte, dev, x, y, pitch, width, height uintptr, kind Access) ([][]byte, error) {
	out := make([][]byte, height)
	for i := range height {
		off := (y+i)*pitch + x
		if t == backend.MemoryTypeHost {
			out[i] = host[off : off+width]
			continue
		}
		row, err := r.core.Span(dev+off, width)
		if err != nil {
			return nil, driver.ErrIllegalAddress
		}
		r.core.Access(dev+off, width, kind)
		out[i] = row
	}
	return out, nil
}

// stage returns the host bytes of a copy's source side: read at enqueue
// for an asynchronous copy from pageable memory, as the driver stages
// them. The core's lock is held.
func (r *Room) stage(p unsafe.Pointer, n uintptr, async bool) []byte {
	host := hostBytes(p, n)
	if async && !r.core.PinnedLocked(p, n) {
		host = append([]byte(nil), host...)
	}
	return host
}
