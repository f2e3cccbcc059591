package ipc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
)

// core is a stub of one process's core: one allocation at 0x1000 and one
// interprocess event 7, each exported under the id it keeps; what it maps
// and opens it records.
type core struct {
	memID, evID uint64
	data        []byte
	current     error
	mapped      [][]byte
	opened      []any
}

func (c *core) Enter(op string) error { return nil }
func (c *core) Current() error        { return c.current }

func (c *core) ExportMem(ptr uintptr, export func([]byte, uintptr) uint64) (uint64, error) {
	if ptr != 0x1000 {
		return 0, driver.ErrInvalidValue
	}
	if c.memID == 0 {
		c.memID = export(c.data, uintptr(len(c.data)))
	}
	return c.memID, nil
}

func (c *core) MapMem(data []byte, size uintptr) (uintptr, error) {
	c.mapped = append(c.mapped, data[:size])
	return 0x2000, nil
}

func (c *core) UnmapMem(ptr uintptr) error { return nil }

func (c *core) ExportEvent(ev uintptr, export func(any) uint64) (uint64, error) {
	if ev != 7 {
		return 0, driver.ErrInvalidHandle
	}
	if c.evID == 0 {
		c.evID = export("the event's state")
	}
	return c.evID, nil
}

func (c *core) OpenEvent(shared any) (uintptr, error) {
	c.opened = append(c.opened, shared)
	return 9, nil
}

// Two processes over the registry: what one exports the other maps (the
// same storage) or opens (the same state); the exporter cannot open its
// own handles; a withdrawn handle, a handle of the other kind and a
// malformed one open nothing; the same object exports under one handle.
func TestSharingBetweenTwoProcesses(t *testing.T) {
	ca, cb := &core{data: []byte{1, 2, 3}}, &core{}
	a, b := New(ca), New(cb)

	h, err := a.IPCGetMemHandle(0x1000)
	require.NoError(t, err)
	again, err := a.IPCGetMemHandle(0x1000)
	require.NoError(t, err)
	assert.Equal(t, h, again)
	p, err := b.IPCOpenMemHandle(h, 0)
	require.NoError(t, err)
	assert.Equal(t, uintptr(0x2000), p)
	require.Len(t, cb.mapped, 1)
	assert.Same(t, &ca.data[0], &cb.mapped[0][0], "mapped, not copied")
	_, err = a.IPCOpenMemHandle(h, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidContext, "the same process")
	_, err = b.IPCOpenMemHandle(h, 2)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "unknown flags")

	eh, err := a.IPCGetEventHandle(7)
	require.NoError(t, err)
	_, err = b.IPCOpenEventHandle(eh)
	require.NoError(t, err)
	assert.Equal(t, []any{"the event's state"}, cb.opened)
	_, err = b.IPCOpenMemHandle(eh, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "an event's handle is no memory handle")
	_, err = b.IPCOpenEventHandle(h)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = b.IPCOpenEventHandle(driver.IPCHandle{})
	assert.ErrorIs(t, err, driver.ErrInvalidValue)

	cb.current = driver.ErrInvalidContext
	_, err = b.IPCOpenMemHandle(h, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidContext, "no current context")
	cb.current = nil

	Withdraw(ca.memID)
	Withdraw(ca.evID)
	_, err = b.IPCOpenMemHandle(h, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "withdrawn")
	_, err = b.IPCOpenEventHandle(eh)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "withdrawn")
	assert.Len(t, cb.mapped, 1)
}
