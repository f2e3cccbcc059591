package module_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance"
	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/loader"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// One library serves both devices: each device's context gets its own
// function, and both compute.
func TestLibraryServesEveryDevice(t *testing.T) {
	drv := fakeDriver(fake.Devices(2), fake.PretendNVRTC())
	ctx0, s0 := setup(t, drv)
	dev1, err := drv.Device(1)
	require.NoError(t, err)
	ctx1, err := dev1.PrimaryContext()
	require.NoError(t, err)
	t.Cleanup(func() { ctx1.Close() })
	s1, err := stream.New(ctx1, stream.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { s1.Close() })

	m := compileSegscale(t, ctx0, module.Options{NoCache: true, Arch: "compute_90"})
	lib, err := module.LoadLibrary(ctx0, m.PTX())
	require.NoError(t, err)
	defer func() { require.NoError(t, lib.Close()) }()
	assert.Equal(t, []string{segscale.Name}, lib.Kernels())
	k, err := lib.Kernel(segscale.Name)
	require.NoError(t, err)
	f0, err := k.Function(ctx0)
	require.NoError(t, err)
	f1, err := k.Function(ctx1)
	require.NoError(t, err)
	assert.NotEqual(t, f0.Handle(), f1.Handle())
	assert.Same(t, ctx1, f1.Module().Context())
	runSegscale(t, ctx0, s0, f0, 100)
	runSegscale(t, ctx1, s1, f1, 100)
	assert.Equal(t, 3, moduleLeaks(drv), "two instances, and the module compiled; no more")
}

// The library outlives the context it was loaded with, and holds the
// contexts it was used in until its Close; afterwards nothing leaks.
func TestLibraryOwnership(t *testing.T) {
	drv := fakeDriver(fake.PretendNVRTC())
	ctx, s := setup(t, drv)
	m := compileSegscale(t, ctx, module.Options{NoCache: true})
	image := m.Image()
	require.NoError(t, m.Close())

	dev, err := drv.Device(0)
	require.NoError(t, err)
	own, err := dev.NewContext(driver.ContextOptions{})
	require.NoError(t, err)
	lib, err := module.LoadLibrary(own, image)
	require.NoError(t, err)
	require.NoError(t, own.Close(), "the library does not hold the context it names the driver with")
	f, err := lib.Function(ctx, segscale.Name)
	require.NoError(t, err)
	runSegscale(t, ctx, s, f, 64)
	err = f.Module().Close()
	require.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.Contains(t, err.Error(), "close the Library")

	_, err = lib.Function(own, segscale.Name)
	assert.ErrorIs(t, err, driver.ErrClosed, "a closed context")
	require.NoError(t, lib.Close())
	require.NoError(t, lib.Close())
	assert.Zero(t, lib.Handle())
	assert.Zero(t, (&module.LibraryKernel{}).Handle())
	assert.Zero(t, moduleLeaks(drv), "Close unloaded every instance")
	_ = s
}

// moduleLeaks counts the modules still loaded in drv (a fake).
func moduleLeaks(drv *driver.Driver) int {
	n := 0
	for _, l := range fake.Of(drv).Leaks() {
		if l.Kind == backend.LeakModule {
			n++
		}
	}
	return n
}

// CompileLibrary compiles as Compile does, through the same cache.
func TestCompileLibraryCaches(t *testing.T) {
	drv := fakeDriver(fake.PretendNVRTC())
	ctx, s := setup(t, drv)
	dir := t.TempDir()
	opts := module.Options{CacheDir: dir, NameExpressions: []string{segscale.Name}}
	a, err := module.CompileLibrary(ctx, segscale.Source, opts)
	require.NoError(t, err)
	defer a.Close()
	assert.False(t, a.Cached())
	assert.Equal(t, "sm_90", a.Arch())
	assert.Equal(t, module.CUBIN, a.Kind())
	low, ok := a.LoweredName(segscale.Name)
	assert.True(t, ok)
	assert.Equal(t, segscale.Name, low)

	drv2 := fakeDriver(fake.PretendNVRTC())
	ctx2, s2 := setup(t, drv2)
	b, err := module.CompileLibrary(ctx2, segscale.Source, opts)
	require.NoError(t, err)
	defer b.Close()
	assert.True(t, b.Cached())
	assert.Zero(t, fake.Of(drv2).CompilerOpens())
	for _, c := range []struct {
		l   *module.Library
		ctx *driver.Context
		s   interface{ Synchronize() error }
	}{{a, ctx, s}, {b, ctx2, s2}} {
		f, err := c.l.Function(c.ctx, segscale.Name)
		require.NoError(t, err)
		assert.NotNil(t, f)
	}
	f, err := b.Function(ctx2, segscale.Name)
	require.NoError(t, err)
	runSegscale(t, ctx2, s2, f, 50)

	_, err = module.CompileLibrary(ctx, "__global__ void broken( {", module.Options{NoCache: true})
	var ce *module.CompileError
	require.ErrorAs(t, err, &ce)
	_, err = module.CompileLibrary(nil, segscale.Source, module.Options{})
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.Contains(t, err.Error(), "module.CompileLibrary")
}

// A context or device of another driver is refused; so is every name the
// library lacks, listing those it has.
func TestLibraryRefusals(t *testing.T) {
	drv := fakeDriver(fake.PretendNVRTC())
	ctx, _ := setup(t, drv)
	lib, err := module.LoadLibrary(ctx, []byte(conformance.GlobalPTX))
	require.NoError(t, err)
	defer lib.Close()
	k, err := lib.Kernel("scale_by")
	require.NoError(t, err)
	assert.Equal(t, "scale_by", k.Name())
	assert.Equal(t, "scale_by", k.LoweredName())

	other := fakeDriver()
	octx, _ := setup(t, other)
	_, err = k.Function(octx)
	assert.ErrorIs(t, err, driver.ErrInvalidContext)
	_, err = module.LibraryGlobal[float32](lib, octx, "factor")
	assert.ErrorIs(t, err, driver.ErrInvalidContext)
	_, err = k.Attribute(module.FuncNumRegs, octx.Device())
	assert.ErrorIs(t, err, driver.ErrInvalidDevice)
	_, err = k.Attribute(module.FuncNumRegs, nil)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)

	_, err = lib.Kernel("missing")
	assert.ErrorIs(t, err, driver.ErrNotFound)
	assert.Contains(t, err.Error(), "the library has: scale_by")
	_, err = lib.Kernel("bad\x00name")
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = module.LibraryGlobal[float32](lib, ctx, "missing")
	assert.ErrorIs(t, err, driver.ErrNotFound)
	_, err = module.LibraryGlobal[[3]float32](lib, ctx, "factor")
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "4 bytes is no whole number of 12")
	_, err = module.LibraryGlobal[struct{}](lib, ctx, "factor")
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = module.LibraryGlobal[float32](nil, ctx, "factor")
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = lib.Function(nil, "scale_by")
	assert.ErrorIs(t, err, driver.ErrInvalidValue)

	g, err := module.LibraryGlobal[float32](lib, ctx, "factor")
	require.NoError(t, err)
	require.NoError(t, memory.CopyToDevice(g, []float32{2}))
	require.NoError(t, g.Close())

	_, err = module.LoadLibrary(ctx, []byte("garbage that is no image"))
	assert.ErrorIs(t, err, driver.ErrInvalidImage)
}

// A driver older than CUDA 12.0 has no cuLibrary: a SymbolError naming it.
func TestLibraryOnAnOldDriver(t *testing.T) {
	drv := fakeDriver(fake.DriverVersion(11080))
	ctx, _ := setup(t, drv)
	_, err := module.LoadLibrary(ctx, []byte(conformance.GlobalPTX))
	var serr *loader.SymbolError
	require.ErrorAs(t, err, &serr)
	assert.Equal(t, "cuLibraryLoadData", serr.Symbol)
}

// A failed unload leaves the library loaded and usable; Close again
// unloads it.
func TestLibraryCloseRetries(t *testing.T) {
	drv := fakeDriver(fake.PretendNVRTC(), fake.FailNth("cuLibraryUnload", 1, driver.ErrUnknown))
	ctx, s := setup(t, drv)
	m := compileSegscale(t, ctx, module.Options{NoCache: true})
	lib, err := module.LoadLibrary(ctx, m.PTX())
	require.NoError(t, err)
	f, err := lib.Function(ctx, segscale.Name)
	require.NoError(t, err)
	err = lib.Close()
	require.ErrorIs(t, err, driver.ErrUnknown)
	runSegscale(t, ctx, s, f, 10)
	require.NoError(t, lib.Close())
	assert.True(t, errors.Is(f.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(1)}, nil, int32(0)), driver.ErrClosed))
}
