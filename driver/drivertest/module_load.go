package drivertest

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/internal/segscale"
	"github.com/nocgo/cuda/module"
)

func testModuleLoadPTX(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	src := modSegscale(t, ctx, module.Options{Arch: "compute_" + modArch(t, ctx)})
	ptx := src.Image()
	require.Equal(t, module.PTX, module.DetectKind(ptx))

	// Without its trailing NUL, as PTX files usually are.
	text := []byte(string(ptx))
	for len(text) > 0 && text[len(text)-1] == 0 {
		text = text[:len(text)-1]
	}
	m, err := module.Load(ctx, text)
	require.NoError(t, err)
	t.Cleanup(func() { m.Unload() })
	assert.Equal(t, module.PTX, m.Kind())
	assert.Equal(t, "", m.Arch())
	assert.Nil(t, m.Image(), "Load keeps no image")
	assert.Equal(t, string(text), string(m.PTX()))
	assert.Equal(t, []string{segscale.Name}, m.Kernels())
	f, err := m.Function(segscale.Name)
	require.NoError(t, err)
	modRunSegscale(t, ctx, s, f, 1024)

	// From a file.
	path := filepath.Join(t.TempDir(), "segment_scale.ptx")
	require.NoError(t, os.WriteFile(path, text, 0o644))
	fm, err := module.LoadFile(ctx, path)
	require.NoError(t, err)
	t.Cleanup(func() { fm.Unload() })
	ff, err := fm.Function(segscale.Name)
	require.NoError(t, err)
	modRunSegscale(t, ctx, s, ff, 100)
}

func testModuleLoadCUBIN(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	src := modSegscale(t, ctx, module.Options{})
	cubin := src.Image()
	require.Equal(t, module.CUBIN, module.DetectKind(cubin))

	path := filepath.Join(t.TempDir(), "segment_scale.cubin")
	require.NoError(t, os.WriteFile(path, cubin, 0o644))
	m, err := module.LoadFile(ctx, path)
	require.NoError(t, err)
	t.Cleanup(func() { m.Unload() })
	assert.Equal(t, module.CUBIN, m.Kind())
	assert.Nil(t, m.PTX(), "a CUBIN carries no PTX")
	assert.Nil(t, m.Kernels())
	f, err := m.Function(segscale.Name)
	require.NoError(t, err)
	// The driver gives the parameter layout (cuFuncGetParamInfo), so the
	// launch is checked even without PTX.
	params, err := f.Params()
	require.NoError(t, err)
	assert.Len(t, params, 3)
	modRunSegscale(t, ctx, s, f, 2048)

	_, err = m.Function("nope")
	require.ErrorIs(t, err, driver.ErrNotFound)
	assert.Contains(t, err.Error(), "loaded without PTX", "the kernel names of a bare CUBIN are unknown")
}

func testModuleLoadBad(t *testing.T, drv *driver.Driver) {
	ctx, _ := modSetup(t, drv)
	for name, image := range map[string][]byte{
		"garbage":       []byte("garbage"),
		"garbage-cubin": []byte("\x7fELF garbage"),
	} {
		m, err := module.Load(ctx, image)
		assert.Nil(t, m, name)
		assert.ErrorIs(t, err, driver.ErrInvalidImage, name)
	}
	for _, image := range [][]byte{nil, {}, {0, 0}} {
		_, err := module.Load(ctx, image)
		assert.ErrorIs(t, err, driver.ErrInvalidValue, "empty image %q", image)
	}
	_, err := module.Load(nil, []byte(".version 8.0\n"))
	assert.ErrorIs(t, err, driver.ErrInvalidValue)

	_, err = module.LoadFile(ctx, filepath.Join(t.TempDir(), "absent.ptx"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Contains(t, err.Error(), "absent.ptx")
}

func testModuleUnload(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	m, err := module.Compile(ctx, segscale.Source, module.Options{NoCache: true})
	require.NoError(t, err)
	f, err := m.Function(segscale.Name)
	require.NoError(t, err)
	out := memAlloc[float32](t, ctx, 16)
	in := memAlloc[float32](t, ctx, 16)
	args := f.Args(out, in, int32(16))
	err = args.Err()
	require.NoError(t, err)
	assert.NotZero(t, m.Handle())

	require.NoError(t, m.Unload())
	require.NoError(t, m.Unload(), "a second Unload is a no-op")
	assert.Zero(t, m.Handle())
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(16)}
	assert.ErrorIs(t, f.Launch(s, cfg, out, in, int32(16)), driver.ErrClosed)
	assert.ErrorIs(t, f.LaunchArgs(s, cfg, args), driver.ErrClosed)
	err = f.Args(out, in, int32(16)).Err()
	assert.ErrorIs(t, err, driver.ErrClosed)
	_, err = f.Attributes()
	assert.ErrorIs(t, err, driver.ErrClosed)
	_, _, err = f.MaxPotentialBlockSize(0, 0)
	assert.ErrorIs(t, err, driver.ErrClosed)
	assert.ErrorIs(t, f.SetMaxDynamicSharedMemory(1024), driver.ErrClosed)
	_, err = m.Function(segscale.Name)
	assert.ErrorIs(t, err, driver.ErrClosed)
	require.NoError(t, s.Synchronize())
}
