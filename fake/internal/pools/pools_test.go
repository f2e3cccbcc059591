package pools

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// stream is a core's stream as the room sees it: it waits on the streams
// of waits, at the sequence numbers given.
type stream struct{ waits map[Stream]uint64 }

func (s *stream) WaitsFor(other Stream, seq uint64) bool {
	at, ok := s.waits[other]
	return ok && at >= seq
}

type item uint64

func (it item) Seq() uint64 { return uint64(it) }

// device is the device memory the core would count: carve adds the fresh
// bytes, the bytes the room gives back subtract them.
type device struct {
	used, total uint64
	next        uintptr
}

func (d *device) carve(fresh uint64) (uintptr, error) {
	if fresh > d.total-d.used {
		return 0, driver.ErrOutOfMemory
	}
	d.used += fresh
	d.next += 1 << 20
	return d.next, nil
}

// The room alone, with no fake around it: a free queued on a stream is
// reused at once on that stream; on another only with internal
// dependencies allowed (then it waits for the free) or, with them off,
// when it waits on the free's stream after the free; every byte the
// device gave comes back.
func TestStreamOrderedReuse(t *testing.T) {
	r := New(1)
	d := &device{total: 8 << 20}
	p := r.Default(0)
	s1, s2 := &stream{}, &stream{}

	base, _, waits, err := r.Reserve(p, 4<<20, s1, d.carve)
	require.NoError(t, err)
	assert.NotZero(t, base)
	assert.Empty(t, waits)
	assert.Equal(t, uint64(4<<20), d.used, "fresh bytes from the device")
	pf := r.FreeQueued(p, 4<<20, make([]byte, 4<<20), s1, item(7))

	_, res2, waits, err := r.Reserve(p, 4<<20, s2, d.carve)
	require.NoError(t, err)
	assert.Equal(t, []*PendingFree{pf}, waits, "another stream waits for the free")
	assert.Equal(t, uint64(4<<20), d.used, "the freed bytes were reused")
	d.used -= r.Undo(p, res2)

	_, err = r.SetAttribute(p.Handle(), backend.MemPoolReuseAllowInternalDependencies, 0)
	require.NoError(t, err)
	_, _, _, err = r.Reserve(p, 8<<20, s2, d.carve)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory, "without internal dependencies s2 may not take the pending bytes")
	s2.waits = map[Stream]uint64{s1: 7}
	_, _, waits, err = r.Reserve(p, 4<<20, s2, d.carve)
	require.NoError(t, err, "s2 waits on s1 after the free: it follows the event")
	assert.Equal(t, []*PendingFree{pf}, waits)

	d.used -= r.Return(p, 4<<20, pf) // the free is reached; s2 took all its bytes
	d.used -= r.Return(p, 4<<20, nil)
	assert.Equal(t, uint64(0), d.used, "with a release threshold of 0 every byte went back")
	used, err := r.GetAttribute(p.Handle(), backend.MemPoolUsedMemCurrent)
	require.NoError(t, err)
	assert.Zero(t, used)
}

// Leaks lists created pools not destroyed; a destroyed pool with live
// allocations ends when the last is returned.
func TestCreateDestroyLeaks(t *testing.T) {
	r := New(2)
	d := &device{total: 8 << 20}
	h := r.Create(0xabc0, 1, 0, nil)
	require.Len(t, r.Leaks(), 1)
	assert.Equal(t, 1, r.Leaks()[0].Device)
	p, err := r.Lookup(h)
	require.NoError(t, err)
	_, _, _, err = r.Reserve(p, 1<<20, &stream{}, d.carve)
	require.NoError(t, err)
	_, err = r.Destroy(r.Default(1).Handle())
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "a default pool cannot be destroyed")
	_, err = r.Destroy(h)
	require.NoError(t, err)
	assert.Empty(t, r.Leaks())
	_, err = r.Lookup(h)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	d.used -= r.Return(p, 1<<20, nil)
	assert.Zero(t, d.used, "the destroyed pool's memory went back with its last allocation")
}
