package fake

import (
	"unsafe"

	"github.com/nocgo/cuda/fake/internal/pitched"
	"github.com/nocgo/cuda/fake/internal/race"
)

// Pitched memory and the copies of rectangles and boxes are a room of
// their own (fake/internal/pitched): pitchedRoom, embedded in fakeBackend,
// whose methods are backend.Pitched's and backend.Copies3D's entry points.
// It owns no state; pitchedCore runs its copies as the core runs its own
// and gives it the memory table's spans.
type pitchedRoom = pitched.Room

// pitchedCore is the core as the pitched room sees it (pitched.Core).
type pitchedCore struct{ b *fakeBackend }

func (c pitchedCore) Sync(op string, n uintptr, prepare func() (func() error, error)) error {
	return c.b.syncOp(op, n, prepare)
}

func (c pitchedCore) Async(op string, n uintptr, s uintptr, prepare func() (func() error, error)) error {
	return c.b.asyncOp(op, n, s, prepare)
}

func (c pitchedCore) CheckSpanLocked(p, n uintptr) error {
	_, err := c.b.spanLocked(p, n)
	return err
}

func (c pitchedCore) PinnedLocked(p unsafe.Pointer, n uintptr) bool { return c.b.pinnedLocked(p, n) }

func (c pitchedCore) Span(p, n uintptr) ([]byte, error) { return c.b.span(p, n) }

// pitchedAccess is the race detector's kind of each pitched.Access.
var pitchedAccess = [...]race.AccessKind{pitched.Read: race.Read, pitched.CopyRead: race.CopyRead, pitched.Write: race.Write}

func (c pitchedCore) Access(p, n uintptr, kind pitched.Access) {
	c.b.race.Range(p, n, pitchedAccess[kind], "memcpy 2D/3D")
}

func (c pitchedCore) MemAlloc(n uintptr) (uintptr, error) { return c.b.MemAlloc(n) }

func (c pitchedCore) Enter(op string) error { return c.b.enter(op) }

func (pitchedCore) MaxStorage() uintptr { return maxStorage }
