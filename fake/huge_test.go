package fake

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// hugeSizes are requests no fake device can hold, up to sizes whose
// arithmetic overflows (aligning, adding the gap between allocations).
var hugeSizes = []uintptr{
	1 << 32,
	1 << 40,
	1 << 62,
	1<<63 - 1,
	1 << 63,
	^uintptr(0) - allocGap,
	^uintptr(0) - allocAlign,
	^uintptr(0),
}

// TestAllocBeyondCapacity: cuMemAlloc, cuMemAllocAsync and cuMemHostAlloc
// refuse what the fake cannot hold with OUT_OF_MEMORY, before allocating
// any storage (the process used to die in makeslice or Go's own
// out-of-memory), and leave nothing behind.
func TestAllocBeyondCapacity(t *testing.T) {
	b := bound(t, WithDevice(DeviceSpec{TotalMem: 1 << 20}))
	s, err := b.StreamCreateWithPriority(0, 0)
	require.NoError(t, err)
	for _, size := range append([]uintptr{1<<20 + 1}, hugeSizes...) {
		p, err := b.MemAlloc(size)
		assert.ErrorIs(t, err, driver.ErrOutOfMemory, "cuMemAlloc(%#x)", size)
		assert.Zero(t, p)
		for _, st := range []uintptr{s, 0} {
			p, err = b.MemAllocAsync(size, st)
			assert.ErrorIs(t, err, driver.ErrOutOfMemory, "cuMemAllocAsync(%#x) on stream %#x", size, st)
			assert.Zero(t, p)
		}
		hp, err := b.MemHostAlloc(size, 0)
		assert.ErrorIs(t, err, driver.ErrOutOfMemory, "cuMemHostAlloc(%#x)", size)
		assert.Nil(t, hp)
	}
	require.NoError(t, b.StreamSynchronize(s))
	free, total, err := b.MemGetInfo()
	require.NoError(t, err)
	assert.Equal(t, total, free, "the refused requests reserved nothing")

	// The whole device can still be allocated, once.
	p, err := b.MemAllocAsync(1<<20, s)
	require.NoError(t, err)
	_, err = b.MemAllocAsync(1, s)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory)
	_, err = b.MemAlloc(1)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory)
	require.NoError(t, b.MemFreeAsync(p, s))
	require.NoError(t, b.StreamSynchronize(s))
	require.NoError(t, b.StreamDestroy(s))

	// Pinned host memory is bounded by the largest device's memory.
	hp, err := b.MemHostAlloc(1<<20, 0)
	require.NoError(t, err)
	_, err = b.MemHostAlloc(1, 0)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory, "pinned memory is used up")
	require.NoError(t, b.MemFreeHost(hp))
	hp, err = b.MemHostAlloc(1, 0)
	require.NoError(t, err, "freed pinned memory is available again")
	require.NoError(t, b.MemFreeHost(hp))

	for _, l := range b.Leaks() {
		assert.Equal(t, backend.LeakPrimaryContext, l.Kind, "nothing but the bound primary context is left")
	}
}

// TestAllocAsyncFailureReleasesReservation: a cuMemAllocAsync refused by
// its stream (unknown handle) reserves nothing.
func TestAllocAsyncFailureReleasesReservation(t *testing.T) {
	b := bound(t, WithDevice(DeviceSpec{TotalMem: 1 << 20}))
	_, err := b.MemAllocAsync(1<<20, 0xdead)
	assert.Error(t, err)
	free, total, err := b.MemGetInfo()
	require.NoError(t, err)
	assert.Equal(t, total, free)
}

// TestAllocAddressOverflow: a device so large that a request fits in its
// memory but not in the address space fails with OUT_OF_MEMORY instead of
// wrapping its addresses around (and then making the storage).
func TestAllocAddressOverflow(t *testing.T) {
	b := bound(t, WithDevice(DeviceSpec{TotalMem: ^uint64(0)}))
	for _, size := range []uintptr{^uintptr(0), ^uintptr(0) - allocGap, 1 << 63} {
		p, err := b.MemAlloc(size)
		assert.ErrorIs(t, err, driver.ErrOutOfMemory, "cuMemAlloc(%#x)", size)
		assert.Zero(t, p)
		p, err = b.MemAllocAsync(size, 0)
		assert.ErrorIs(t, err, driver.ErrOutOfMemory, "cuMemAllocAsync(%#x)", size)
		assert.Zero(t, p)
	}
	free, total, err := b.MemGetInfo()
	require.NoError(t, err)
	assert.Equal(t, total, free)

	// The same check guards IPC mappings, which take address space only.
	d := &device{next: ^uintptr(0) - 100}
	_, err = d.carveLocked(10)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory)
	d = &device{next: 1 << 40}
	base, err := d.carveLocked(1000)
	require.NoError(t, err)
	assert.Equal(t, uintptr(1<<40), base)
	assert.Equal(t, base+1000+allocGap, d.next)
	_, err = d.carveLocked(^uintptr(0) - d.next)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory)
}
