package nvml

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
)

// testCore is a Core of one 8 GiB Hopper device whose usage the test sets.
type testCore struct {
	usage   atomic.Pointer[Usage]
	failOp  string
	sticky  backend.Result
	faulted int
}

func (c *testCore) Devices() []DeviceInfo {
	return []DeviceInfo{{Name: "dev0", TotalMemory: 8 << 30, Major: 9, Bus: 0x18}}
}

func (c *testCore) Usage(int) Usage {
	if u := c.usage.Load(); u != nil {
		return *u
	}
	return Usage{}
}

func (c *testCore) StickyFault() (backend.Result, int) { return c.sticky, c.faulted }

func (c *testCore) Fail(op string) error {
	if op == c.failOp {
		return &backend.NVMLError{Return: backend.NVMLUnknown, Op: op}
	}
	return nil
}

func TestInitCountsReferences(t *testing.T) {
	l := New(&testCore{})
	_, err := l.DeviceCount()
	assert.ErrorIs(t, err, backend.NVMLUninitialized, "before nvmlInit")
	assert.ErrorIs(t, l.Shutdown(), backend.NVMLUninitialized)
	require.NoError(t, l.Init())
	require.NoError(t, l.Init())
	require.NoError(t, l.Shutdown())
	n, err := l.DeviceCount()
	require.NoError(t, err, "one Init still counts")
	assert.Equal(t, 1, n)
	require.NoError(t, l.Shutdown())
	_, err = l.DeviceCount()
	assert.ErrorIs(t, err, backend.NVMLUninitialized, "every Init matched")
}

func TestFailChangesNothing(t *testing.T) {
	c := &testCore{failOp: "nvmlEventSetCreate"}
	l := New(c)
	require.NoError(t, l.Init())
	_, err := l.EventSetCreate()
	var ne *backend.NVMLError
	require.True(t, errors.As(err, &ne))
	assert.Equal(t, backend.NVMLUnknown, ne.Return)
	assert.Empty(t, l.sets, "no set made")
}

func TestUsageDrivesTheReadings(t *testing.T) {
	c := &testCore{}
	l := New(c)
	require.NoError(t, l.Init())
	h, err := l.DeviceByIndex(0)
	require.NoError(t, err)
	c.usage.Store(&Usage{Contexts: 1, Allocated: 3 << 20, Pending: 2})
	m, err := l.DeviceMemoryInfo(h)
	require.NoError(t, err)
	assert.Equal(t, backend.NVMLMemory{Total: 8 << 30, Used: 3 << 20, Free: 8<<30 - 3<<20}, m)
	u, err := l.DeviceUtilization(h)
	require.NoError(t, err)
	assert.Equal(t, uint32(100), u.GPU, "queued work: busy")
	ps, err := l.DeviceComputeProcesses(h)
	require.NoError(t, err)
	require.Len(t, ps, 1)
	assert.Equal(t, uint64(3<<20), ps[0].UsedMemory)
	c.usage.Store(&Usage{})
	time.Sleep(30 * time.Millisecond)
	u, err = l.DeviceUtilization(h)
	require.NoError(t, err)
	assert.Less(t, u.GPU, uint32(100), "decaying once the work is done")
	ps, err = l.DeviceComputeProcesses(h)
	require.NoError(t, err)
	assert.Empty(t, ps, "no context: no process")
	_, err = l.DeviceMemoryInfo(0xdead)
	assert.ErrorIs(t, err, backend.NVMLInvalidArgument)
}

func TestStickyFaultRaisesItsXid(t *testing.T) {
	for _, tc := range []struct {
		code backend.Result
		xid  uint64
	}{{700, 31}, {715, 13}, {716, 13}} {
		c := &testCore{}
		l := New(c)
		require.NoError(t, l.Init())
		h, err := l.DeviceByIndex(0)
		require.NoError(t, err)
		set, err := l.EventSetCreate()
		require.NoError(t, err)
		require.NoError(t, l.DeviceRegisterEvents(h, eventXid, set))
		c.sticky, c.faulted = tc.code, 0
		ev, err := l.EventSetWait(set, 1000)
		require.NoError(t, err)
		assert.Equal(t, tc.xid, ev.Data, "CUresult %d", tc.code)
		_, err = l.EventSetWait(set, 10)
		assert.ErrorIs(t, err, backend.NVMLTimeout, "raised once")
	}
}
