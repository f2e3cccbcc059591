package fake_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

const oobSrc = `extern "C" __global__ void oob(float* p) { p[1LL << 40] = 1; }`

// A spawned process shares the IPC namespace and the devices, nothing
// else: its fault poisons only it, and its exit frees what it held.
func TestSpawnProcess(t *testing.T) {
	parent := fake.NewBackend(fake.PretendNVRTC())
	require.NoError(t, parent.Fake().RegisterKernel("oob", func(t fake.Thread, p fake.Ptr) { fake.Store(t, p, 1<<40, float32(1)) }))
	pdrv, err := driver.New(parent)
	require.NoError(t, err)
	sp, ok := parent.(backend.ProcessSpawner)
	require.True(t, ok, "the fake spawns processes")
	child, err := sp.SpawnProcess()
	require.NoError(t, err)
	cdrv, err := driver.New(child)
	require.NoError(t, err)

	pctx := primaryOf(t, pdrv)
	cctx := primaryOf(t, cdrv)
	pu, err := pctx.Device().UUID()
	require.NoError(t, err)
	cu, err := cctx.Device().UUID()
	require.NoError(t, err)
	assert.Equal(t, pu, cu, "the same device")

	buf, err := memory.FromSlice(pctx, []float32{1, 2})
	require.NoError(t, err)
	h, err := buf.IPCHandle()
	require.NoError(t, err)
	mapped, err := memory.OpenIPC[float32](cctx, h, 2)
	require.NoError(t, err, "the IPC namespace is shared")
	require.NoError(t, memory.CopyToDevice(mapped, []float32{7, 8}))
	got, err := memory.ToSlice(buf)
	require.NoError(t, err)
	assert.Equal(t, []float32{7, 8}, got)

	cbuf, err := memory.Alloc[float32](cctx, 2)
	require.NoError(t, err)
	ch, err := cbuf.IPCHandle()
	require.NoError(t, err)

	// The child faults, with the kernel registered late on the parent.
	s, err := stream.New(cctx, stream.Options{})
	require.NoError(t, err)
	m, err := module.Compile(cctx, oobSrc, module.Options{NoCache: true})
	require.NoError(t, err)
	f, err := m.Function("oob")
	require.NoError(t, err)
	require.NoError(t, f.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(1)}, mapped))
	assert.ErrorIs(t, s.Synchronize(), driver.ErrStickyFault)
	_, err = memory.Alloc[float32](cctx, 1)
	assert.ErrorIs(t, err, driver.ErrIllegalAddress, "the child is poisoned")
	other, err := memory.Alloc[float32](pctx, 1)
	require.NoError(t, err, "the parent is not")
	require.NoError(t, other.Close())

	child.Exit()
	child.Exit()
	_, err = child.DeviceGetCount()
	require.NoError(t, err, "device queries survive, as after a fault")
	_, err = child.MemAlloc(4)
	assert.ErrorIs(t, err, driver.ErrDeinitialized, "the process is gone")
	_, err = memory.OpenIPC[float32](pctx, ch, 2)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "its exports stopped opening")
	assert.Empty(t, child.(fake.Backend).Leaks(), "its exit freed everything")
	got, err = memory.ToSlice(buf)
	require.NoError(t, err)
	assert.Equal(t, []float32{7, 8}, got, "the parent's memory keeps the child's writes")
	require.NoError(t, buf.Close())
	require.NoError(t, pctx.Close())
	assert.Empty(t, parent.Leaks())
}

func primaryOf(t *testing.T, drv *driver.Driver) *driver.Context {
	t.Helper()
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	return ctx
}
