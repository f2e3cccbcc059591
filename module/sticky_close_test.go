package module_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// After a sticky fault, every Close closes its object and says so
// (driver.ErrClosedAnyway, with driver.ErrStickyFault): not an error to
// retry. A Close the driver refuses for another reason is one to retry.
func TestCloseAfterStickyFaultIsClosedAnyway(t *testing.T) {
	drv := fake.New(fake.Kernel("scale", func(t fake.Thread, out, in fake.Ptr, k float32, n int32) {
		fake.Store(t, out, 1<<20, k)
	}))
	dev, err := drv.Device(0)
	require.NoError(t, err)
	cc, err := dev.PrimaryContext()
	require.NoError(t, err)
	m, err := module.Compile(cc, scaleSource, module.Options{NoCache: true})
	require.NoError(t, err)
	s, err := stream.New(cc, stream.Options{})
	require.NoError(t, err)
	ev, err := stream.NewEvent(cc, stream.EventOptions{})
	require.NoError(t, err)
	buf, err := memory.Alloc[float32](cc, 4)
	require.NoError(t, err)
	host, err := memory.AllocHost[float32](cc, 4)
	require.NoError(t, err)
	f, err := m.Function("scale")
	require.NoError(t, err)
	require.NoError(t, f.Launch(s, module.ForElems(4), buf, buf, float32(2), int32(4)))
	require.ErrorIs(t, s.Synchronize(), driver.ErrStickyFault)

	for name, c := range map[string]interface{ Close() error }{"stream": s, "event": ev, "buffer": buf, "host buffer": host, "module": m} {
		err := c.Close()
		require.Error(t, err, name)
		assert.ErrorIs(t, err, driver.ErrClosedAnyway, name)
		assert.ErrorIs(t, err, driver.ErrStickyFault, name)
		assert.Contains(t, err.Error(), "the object is closed all the same", name)
		assert.NoError(t, c.Close(), "%s: closed, so a second Close is a no-op", name)
	}
	assert.NoError(t, cc.Close())
}

func TestCloseRefusedIsNotClosedAnyway(t *testing.T) {
	drv := fake.New(fake.FailNth("cuStreamDestroy_v2", 1, driver.ErrUnknown))
	dev, err := drv.Device(0)
	require.NoError(t, err)
	cc, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer cc.Close()
	s, err := stream.New(cc, stream.Options{})
	require.NoError(t, err)
	err = s.Close()
	require.ErrorIs(t, err, driver.ErrUnknown)
	assert.False(t, errors.Is(err, driver.ErrClosedAnyway), "a refused Close is one to retry")
	_, err = s.Query()
	assert.NoError(t, err, "still open")
	require.NoError(t, s.Close(), "the retry succeeds")
}
