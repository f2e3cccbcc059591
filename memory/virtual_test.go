//go:build linux && (amd64 || arm64)

package memory_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

const mib2 = 2 << 20 // the fake's granularity, as the H200's

// vmCtx is the primary context of a fake (cudatest.Fake: leaks fail the
// test) made with opts.
func vmCtx(t *testing.T, opts ...fake.Option) *driver.Context {
	t.Helper()
	drv := cudatest.Fake(t, opts...)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, ctx.Close()) })
	return ctx
}

func TestVirtualUnsupported(t *testing.T) {
	drv, err := driver.New(noPools{fake.NewBackend()})
	require.NoError(t, err)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer ctx.Close()
	_, err = memory.Granularity(ctx)
	assert.ErrorIs(t, err, memory.ErrNoVirtualMemory)
	_, err = memory.ReserveAddress(ctx, mib2)
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	_, err = memory.NewPhysical(ctx, mib2, memory.PhysicalOptions{})
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	_, err = memory.NewGrowable[float32](ctx, 10, memory.GrowableOptions{})
	assert.ErrorIs(t, err, errors.ErrUnsupported)
}

// Every Close that the driver refuses changes nothing and can be retried.
func TestVirtualCloseRetries(t *testing.T) {
	ctx := vmCtx(t,
		fake.FailNth("cuMemUnmap", 1, driver.ErrUnknown),
		fake.FailNth("cuMemRelease", 1, driver.ErrUnknown),
		fake.FailNth("cuMemAddressFree", 1, driver.ErrUnknown))
	r, err := memory.ReserveAddress(ctx, mib2)
	require.NoError(t, err)
	p, err := memory.NewPhysical(ctx, mib2, memory.PhysicalOptions{})
	require.NoError(t, err)
	m, err := r.Map(0, p, 0, mib2)
	require.NoError(t, err)
	require.NoError(t, m.SetAccess(ctx.Device(), memory.AccessReadWrite))
	b, err := memory.MappedBuffer[byte](m)
	require.NoError(t, err)

	assert.ErrorIs(t, p.Close(), driver.ErrUnknown)
	assert.NotZero(t, p.Handle(), "still open")
	require.NoError(t, p.Close())

	assert.ErrorIs(t, m.Close(), driver.ErrUnknown)
	assert.NotZero(t, m.Ptr(), "still mapped")
	require.NoError(t, memory.CopyToDevice(b, make([]byte, mib2)), "and usable")
	require.NoError(t, m.Close())
	assert.ErrorIs(t, memory.CopyToDevice(b, make([]byte, mib2)), driver.ErrClosed)

	assert.ErrorIs(t, r.Close(), driver.ErrUnknown)
	assert.NotZero(t, r.Ptr())
	require.NoError(t, r.Close())
}

func TestVirtualFailedMapChangesNothing(t *testing.T) {
	ctx := vmCtx(t, fake.FailNth("cuMemMap", 1, driver.ErrOutOfMemory))
	r, err := memory.ReserveAddress(ctx, mib2)
	require.NoError(t, err)
	p, err := memory.NewPhysical(ctx, mib2, memory.PhysicalOptions{})
	require.NoError(t, err)
	_, err = r.Map(0, p, 0, mib2)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory)
	require.NoError(t, r.Close(), "nothing was left mapped")
	require.NoError(t, p.Close())
}

func TestVirtualWrongDriver(t *testing.T) {
	ctx := vmCtx(t)
	other := vmCtx(t)
	r, err := memory.ReserveAddress(ctx, mib2)
	require.NoError(t, err)
	defer r.Close()
	p, err := memory.NewPhysical(other, mib2, memory.PhysicalOptions{})
	require.NoError(t, err)
	defer p.Close()
	_, err = r.Map(0, p, 0, mib2)
	assert.ErrorIs(t, err, driver.ErrWrongContext)
	p2, err := memory.NewPhysical(ctx, mib2, memory.PhysicalOptions{})
	require.NoError(t, err)
	defer p2.Close()
	m, err := r.Map(0, p2, 0, mib2)
	require.NoError(t, err)
	defer m.Close()
	assert.ErrorIs(t, m.SetAccess(other.Device(), memory.AccessReadWrite), driver.ErrWrongContext)
}

// Growing past the device's memory fails with out-of-memory and leaves the
// buffer, and the device, as they were.
func TestGrowableOutOfMemory(t *testing.T) {
	ctx := vmCtx(t, fake.WithDevice(fake.DeviceSpec{TotalMem: 3 * mib2}))
	g, err := memory.NewGrowable[byte](ctx, 8*mib2, memory.GrowableOptions{})
	require.NoError(t, err)
	defer func() { require.NoError(t, g.Close()) }()
	require.NoError(t, g.Grow(mib2+1))
	free, _, err := ctx.MemInfo()
	require.NoError(t, err)
	assert.Equal(t, uint64(mib2), free)
	err = g.Grow(5 * mib2)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory)
	assert.Equal(t, mib2+1, g.Len())
	assert.Equal(t, 2*mib2, g.Cap(), "the chunk this call mapped is unmapped again")
	after, _, err := ctx.MemInfo()
	require.NoError(t, err)
	assert.Equal(t, free, after)
	require.NoError(t, g.Grow(3*mib2), "what fits still grows")
}

func TestGrowableCloseRetries(t *testing.T) {
	ctx := vmCtx(t, fake.FailNth("cuMemUnmap", 2, driver.ErrUnknown))
	g, err := memory.NewGrowable[uint32](ctx, 4*mib2, memory.GrowableOptions{Chunk: mib2})
	require.NoError(t, err)
	require.NoError(t, g.Grow(3*mib2/4)) // 1.5 MiB of uint32: one chunk
	require.NoError(t, g.Grow(mib2))     // 8 MiB: four chunks
	b, err := g.Buffer()
	require.NoError(t, err)
	assert.ErrorIs(t, g.Close(), driver.ErrUnknown, "the second unmap fails")
	assert.NotZero(t, g.Ptr(), "still open")
	require.NoError(t, g.Close(), "the retry unmaps what is left")
	assert.ErrorIs(t, memory.CopyToHost(make([]uint32, b.Len()), b), driver.ErrClosed)
	assert.Zero(t, g.Ptr())
}

// Grow and reads of what is already mapped may run at once.
func TestGrowableConcurrent(t *testing.T) {
	ctx := vmCtx(t)
	g, err := memory.NewGrowable[uint32](ctx, 8*mib2, memory.GrowableOptions{})
	require.NoError(t, err)
	defer func() { require.NoError(t, g.Close()) }()
	require.NoError(t, g.Grow(1024))
	b, err := g.Buffer()
	require.NoError(t, err)
	want := make([]uint32, 1024)
	for i := range want {
		want[i] = uint32(i)
	}
	require.NoError(t, memory.CopyToDevice(b, want))
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			assert.NoError(t, g.Grow((i+1)*mib2))
		})
		wg.Go(func() {
			got := make([]uint32, 1024)
			assert.NoError(t, memory.CopyToHost(got, b))
			assert.Equal(t, want, got)
		})
	}
	wg.Wait()
	assert.Equal(t, 4*mib2, g.Len())
	assert.Equal(t, 4*mib2, g.Cap())
}

// Close from inside a host callback is refused and changes nothing (the
// unmap would wait for that very callback).
func TestVirtualCloseFromCallback(t *testing.T) {
	ctx := vmCtx(t)
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	defer s.Close()
	r, err := memory.ReserveAddress(ctx, mib2)
	require.NoError(t, err)
	p, err := memory.NewPhysical(ctx, mib2, memory.PhysicalOptions{})
	require.NoError(t, err)
	m, err := r.Map(0, p, 0, mib2)
	require.NoError(t, err)
	g, err := memory.NewGrowable[byte](ctx, mib2, memory.GrowableOptions{})
	require.NoError(t, err)
	var errs [4]error
	require.NoError(t, s.Callback(func() {
		errs = [4]error{m.Close(), r.Close(), p.Close(), g.Close()}
	}))
	require.NoError(t, s.Synchronize())
	for i, err := range errs {
		assert.ErrorIs(t, err, driver.ErrNotPermitted, "Close %d", i)
	}
	assert.NotZero(t, m.Ptr())
	require.NoError(t, m.Close())
	require.NoError(t, p.Close())
	require.NoError(t, r.Close())
	require.NoError(t, g.Close())
}

func TestImportPhysicalRefusals(t *testing.T) {
	drv := cudatest.Fake(t, fake.Devices(2))
	dev0, err := drv.Device(0)
	require.NoError(t, err)
	ctx0, err := dev0.PrimaryContext()
	require.NoError(t, err)
	defer ctx0.Close()
	dev1, err := drv.Device(1)
	require.NoError(t, err)
	ctx1, err := dev1.PrimaryContext()
	require.NoError(t, err)
	defer ctx1.Close()

	p, err := memory.NewPhysical(ctx0, mib2, memory.PhysicalOptions{Shareable: true})
	require.NoError(t, err)
	defer p.Close()
	f, err := p.Export()
	require.NoError(t, err)
	_, err = memory.ImportPhysical(ctx1, f, mib2)
	assert.ErrorIs(t, err, driver.ErrWrongContext, "memory of device 0 through a context of device 1")
	_, err = memory.ImportPhysical(ctx0, f, mib2+1)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "a size not a multiple of the granularity")
	require.NoError(t, f.Close())
	_, err = memory.ImportPhysical(ctx0, f, mib2)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "a closed file")
	// cudatest.Fake checks that the refused imports left no handle behind.
}

// Map and Close of the same range at once: one wins, neither hangs, and
// nothing leaks (cudatest.Fake checks).
func TestVirtualMapRacesClose(t *testing.T) {
	ctx := vmCtx(t)
	for range 20 {
		r, err := memory.ReserveAddress(ctx, mib2)
		require.NoError(t, err)
		p, err := memory.NewPhysical(ctx, mib2, memory.PhysicalOptions{})
		require.NoError(t, err)
		var m *memory.Mapping
		var mapErr, closeErr error
		var wg sync.WaitGroup
		wg.Go(func() { m, mapErr = r.Map(0, p, 0, mib2) })
		wg.Go(func() { closeErr = r.Close() })
		wg.Wait()
		if mapErr == nil {
			require.ErrorIs(t, closeErr, memory.ErrMapped, "Map won")
			require.NoError(t, m.Close())
			require.NoError(t, r.Close())
		} else {
			require.NoError(t, closeErr, "Close won")
			require.ErrorIs(t, mapErr, driver.ErrClosed)
		}
		require.NoError(t, p.Close())
	}
}
