package pools

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// core is a stub of the fake's core for the entry points: one device,
// whose used memory the bytes given back subtract, and a count of the
// calls made under its lock.
type core struct {
	dev    *device
	locked int
	handle uintptr
}

func (c *core) Enter(op string) error { return nil }

func (c *core) CheckDevice(ordinal int) error {
	if ordinal != 0 {
		return driver.ErrInvalidDevice
	}
	return nil
}

func (c *core) Locked(fn func(give func(dev int, n uint64))) {
	c.locked++
	fn(func(dev int, n uint64) { c.dev.used -= n })
}

func (c *core) NewHandle() uintptr { c.handle += 0x40; return c.handle }

func (c *core) Site() fmt.Stringer { return site("test") }

type site string

func (s site) String() string { return string(s) }

// The entry points over their core: they check arguments before the
// room, ask it under the core's lock, and hand the bytes a destroyed
// pool caches back to the device.
func TestEntryPointsOverTheirCore(t *testing.T) {
	c := &core{dev: &device{total: 1 << 30}}
	r := New(1)
	e := NewEntryPoints(r, c)

	_, err := e.DeviceGetDefaultMemPool(1)
	assert.ErrorIs(t, err, driver.ErrInvalidDevice)
	assert.Zero(t, c.locked, "a bad device never reaches the room")
	def, err := e.DeviceGetDefaultMemPool(0)
	require.NoError(t, err)
	cur, err := e.DeviceGetMemPool(0)
	require.NoError(t, err)
	assert.Equal(t, def, cur, "the default is current")

	props := backend.MemPoolProps{AllocType: backend.MemAllocationTypePinned, Location: backend.MemLocation{Type: backend.MemLocationDevice}}
	bad := props
	bad.Location.ID = 3
	_, err = e.MemPoolCreate(bad)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	bad = props
	bad.HandleTypes = 1
	_, err = e.MemPoolCreate(bad)
	assert.ErrorIs(t, err, driver.ErrNotSupported)
	h, err := e.MemPoolCreate(props)
	require.NoError(t, err)
	require.NoError(t, e.DeviceSetMemPool(0, h))
	cur, err = e.DeviceGetMemPool(0)
	require.NoError(t, err)
	assert.Equal(t, h, cur)

	// Memory freed into a pool above its release threshold stays cached
	// (counted as used) until a trim gives it back.
	require.NoError(t, e.MemPoolSetAttribute(h, backend.MemPoolReleaseThreshold, 1<<30))
	p, err := r.Lookup(h)
	require.NoError(t, err)
	st := &stream{}
	_, res, _, err := r.Reserve(p, 1<<20, st, c.dev.carve)
	require.NoError(t, err)
	c.dev.used -= r.Return(p, 1<<20, r.FreeQueued(p, 1<<20, res.Data, st, item(1)))
	require.Equal(t, uint64(1<<20), c.dev.used, "cached by the pool")
	require.NoError(t, e.MemPoolTrimTo(h, 0))
	assert.Zero(t, c.dev.used, "given back to the device")
	require.NoError(t, e.MemPoolDestroy(h))
	assert.ErrorIs(t, e.MemPoolDestroy(h), driver.ErrInvalidValue)
	assert.ErrorIs(t, e.MemPoolDestroy(def), driver.ErrInvalidValue, "a default pool")

	_, err = e.MemPoolGetAccess(def, backend.MemLocation{Type: backend.MemLocationDevice, ID: 2})
	assert.ErrorIs(t, err, driver.ErrInvalidDevice)
	f, err := e.MemPoolGetAccess(def, backend.MemLocation{Type: backend.MemLocationDevice})
	require.NoError(t, err)
	assert.Equal(t, backend.MemAccessReadWrite, f)
}
