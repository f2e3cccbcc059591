//go:build linux && (amd64 || arm64)

package vmm

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// core is a core as the room sees it, recording what the room asks.
type core struct {
	used    map[int]uintptr
	table   map[uintptr][]byte // the mappings in the memory table, by base: their data
	next    uintptr
	quiesce int
}

func newCore() *core { return &core{used: map[int]uintptr{}, table: map[uintptr][]byte{}, next: 0x100} }

func (c *core) Enter(string) error { return nil }
func (c *core) CheckDevice(d int) error {
	if d < 0 || d > 1 {
		return driver.ErrInvalidDevice
	}
	return nil
}
func (c *core) Reserve(dev int, size uintptr) error { c.used[dev] += size; return nil }
func (c *core) Unreserve(dev int, size uintptr)     { c.used[dev] -= size }
func (c *core) Map(m Mapping)                       { c.table[m.Base] = nil }
func (c *core) SetAccess(base uintptr, data []byte, _ map[int32]backend.MemAccessFlags) {
	c.table[base] = data
}
func (c *core) Unmap(base uintptr)            { delete(c.table, base) }
func (c *core) Quiesce(fn func() error) error { c.quiesce++; return fn() }
func (c *core) NewHandle() uintptr            { c.next += 0x40; return c.next }

// The room on its own: the device counts the memory from cuMemCreate until
// the last of its handle and its mapping goes; a mapping is in the core's
// table with no access until MemSetAccess; unmapping waits for queued work
// (Quiesce); two mappings of one allocation are views of the same bytes.
func TestRoomOverItsCore(t *testing.T) {
	c := newCore()
	r := New(c, 0xA5)
	prop := backend.MemAllocationProp{Type: backend.MemAllocationTypePinned,
		Location: backend.MemLocation{Type: backend.MemLocationDevice, ID: 1}}
	h, err := r.MemCreate(Granularity, prop, 0)
	require.NoError(t, err)
	assert.Equal(t, uintptr(Granularity), c.used[1])
	va, err := r.MemAddressReserve(2*Granularity, 0, 0, 0)
	require.NoError(t, err)
	require.NoError(t, r.MemMap(va, Granularity, 0, h, 0))
	require.NoError(t, r.MemMap(va+Granularity, Granularity, 0, h, 0))
	require.Contains(t, c.table, va)
	assert.Nil(t, c.table[va], "no access before MemSetAccess")

	rw := []backend.MemAccessDesc{{Location: prop.Location, Flags: backend.MemAccessReadWrite}}
	require.NoError(t, r.MemSetAccess(va, 2*Granularity, rw))
	a, b := c.table[va], c.table[va+Granularity]
	require.Len(t, a, Granularity)
	assert.Equal(t, byte(0xA5), a[0], "fresh memory holds the fill byte")
	a[42] = 7
	assert.Equal(t, byte(7), b[42], "two mappings of one allocation are one memory")
	got, err := r.MemGetAccess(prop.Location, va+Granularity+1)
	require.NoError(t, err)
	assert.Equal(t, backend.MemAccessReadWrite, got)

	require.NoError(t, r.MemRelease(h))
	assert.Equal(t, uintptr(Granularity), c.used[1], "mapped: the memory stays")
	assert.ErrorIs(t, r.MemUnmap(va, Granularity+1), driver.ErrInvalidValue, "not whole mappings")
	require.NoError(t, r.MemUnmap(va, 2*Granularity))
	assert.Equal(t, 1, c.quiesce, "the unmap waited for queued work")
	assert.Empty(t, c.table)
	assert.Zero(t, c.used[1], "the last holder gave the memory back")
	assert.ErrorIs(t, r.MemAddressFree(va, Granularity), driver.ErrInvalidValue, "the whole range only")
	require.NoError(t, r.MemAddressFree(va, 2*Granularity))
	ranges, mappings, handles := r.Leaks()
	assert.Empty(t, ranges)
	assert.Empty(t, mappings)
	assert.Empty(t, handles)
}
