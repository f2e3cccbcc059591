package pitched

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// core is a stub of the fake's core: one device allocation of 4 KiB at
// base; a synchronous copy runs at once, an asynchronous one when run is
// called; the accesses the race detector would see are recorded.
type core struct {
	mem      []byte
	pinned   bool
	queued   []func() error
	accesses []Access
}

const base = 0x10000

func (c *core) Sync(op string, n uintptr, prepare func() (func() error, error)) error {
	if n == 0 {
		return nil
	}
	work, err := prepare()
	if err != nil {
		return err
	}
	return work()
}

func (c *core) Async(op string, n uintptr, s uintptr, prepare func() (func() error, error)) error {
	if n == 0 {
		return nil
	}
	work, err := prepare()
	if err == nil {
		c.queued = append(c.queued, work)
	}
	return err
}

func (c *core) run() error {
	for _, w := range c.queued {
		if err := w(); err != nil {
			return err
		}
	}
	c.queued = nil
	return nil
}

func (c *core) CheckSpanLocked(p, n uintptr) error {
	_, err := c.Span(p, n)
	return err
}

func (c *core) PinnedLocked(p unsafe.Pointer, n uintptr) bool { return c.pinned }

func (c *core) Span(p, n uintptr) ([]byte, error) {
	if p < base || p-base > uintptr(len(c.mem)) || n > uintptr(len(c.mem))-(p-base) {
		return nil, driver.ErrInvalidValue
	}
	return c.mem[p-base : p-base+n], nil
}

func (c *core) Access(p, n uintptr, kind Access) { c.accesses = append(c.accesses, kind) }

func (c *core) MemAlloc(n uintptr) (uintptr, error) { return base, nil }
func (c *core) Enter(op string) error               { return nil }
func (c *core) MaxStorage() uintptr                 { return 1 << 40 }

// A rectangle of host rows goes to the device row by row, at the device
// pitch; a copy whose rows leave the allocation, or whose pitch is below
// its width, is refused before anything moves; an asynchronous copy from
// pageable memory reads it when it is enqueued.
func TestCopy2DOverItsCore(t *testing.T) {
	c := &core{mem: make([]byte, 4096)}
	r := New(c)
	host := []byte("abcdXXXXefghXXXX") // two rows of 4 at pitch 8
	cp := backend.Memcpy2D{
		SrcMemoryType: backend.MemoryTypeHost, SrcHost: unsafe.Pointer(&host[0]), SrcPitch: 8,
		DstMemoryType: backend.MemoryTypeDevice, DstDevice: base, DstXInBytes: 2, DstPitch: 512,
		WidthInBytes: 4, Height: 2,
	}
	require.NoError(t, r.Memcpy2D(&cp))
	assert.Equal(t, "abcd", string(c.mem[2:6]))
	assert.Equal(t, "efgh", string(c.mem[514:518]))
	assert.Equal(t, []Access{Write, Write}, c.accesses, "each device row, written")

	bad := cp
	bad.DstPitch = 3
	assert.ErrorIs(t, r.Memcpy2D(&bad), driver.ErrInvalidValue, "a pitch below the width")
	bad = cp
	bad.DstY = 8 // the second row ends past the allocation
	assert.ErrorIs(t, r.Memcpy2D(&bad), driver.ErrInvalidValue)
	bad = cp
	bad.SrcHost = nil
	assert.ErrorIs(t, r.Memcpy2D(&bad), driver.ErrInvalidValue)
	assert.ErrorIs(t, r.Memcpy2D(nil), driver.ErrInvalidValue)

	clear(c.mem)
	require.NoError(t, r.Memcpy2DAsync(&cp, 1))
	copy(host, "ABCDXXXXEFGHXXXX") // after the enqueue: the staged rows go
	require.NoError(t, c.run())
	assert.Equal(t, "abcd", string(c.mem[2:6]), "pageable memory is read at enqueue")
	c.pinned = true
	require.NoError(t, r.Memcpy2DAsync(&cp, 1))
	copy(host, "1234XXXX5678XXXX")
	require.NoError(t, c.run())
	assert.Equal(t, "1234", string(c.mem[2:6]), "page-locked memory is read when the copy runs")
}

// A box of two slices goes from the device to the host, slice by slice;
// the source rows are read (a copy to the host uses them).
func TestCopy3DOverItsCore(t *testing.T) {
	c := &core{mem: make([]byte, 4096)}
	for i := range c.mem {
		c.mem[i] = byte(i)
	}
	r := New(c)
	host := make([]byte, 8)
	cp := backend.Memcpy3D{
		SrcMemoryType: backend.MemoryTypeDevice, SrcDevice: base, SrcPitch: 16, SrcHeight: 4,
		DstMemoryType: backend.MemoryTypeHost, DstHost: unsafe.Pointer(&host[0]), DstPitch: 2, DstHeight: 2,
		WidthInBytes: 2, Height: 2, Depth: 2,
	}
	require.NoError(t, r.Memcpy3D(&cp))
	assert.Equal(t, []byte{0, 1, 16, 17, 64, 65, 80, 81}, host)
	assert.Equal(t, []Access{Read, Read, Read, Read}, c.accesses)
	bad := cp
	bad.SrcHeight = 1
	assert.ErrorIs(t, r.Memcpy3D(&bad), driver.ErrInvalidValue, "a slice below the height")

	p, pitch, err := r.MemAllocPitch(100, 3, 4)
	require.NoError(t, err)
	assert.Equal(t, uintptr(base), p)
	assert.Equal(t, uintptr(pitchAlign), pitch)
	_, _, err = r.MemAllocPitch(100, 3, 3)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
}
