package conformance

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/module"
)

func testModuleLoadPTX(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	src := modSegscale(t, ctx, module.Options{Arch: "compute_" + modArch(t, ctx)})
	ptx := src.Image()
	mustEqual(t, module.DetectKind(ptx), module.PTX)

	// Without its trailing NUL, as PTX files usually are.
	text := []byte(string(ptx))
	for len(text) > 0 && text[len(text)-1] == 0 {
		text = text[:len(text)-1]
	}
	m, err := module.Load(ctx, text)
	must(t, err)
	t.Cleanup(func() { m.Close() })
	equal(t, m.Kind(), module.PTX)
	equal(t, m.Arch(), "")
	isNil(t, m.Image(), "Load keeps no image")
	equal(t, string(m.PTX()), string(text))
	equal(t, m.Kernels(), []string{segscale.Name})
	f, err := m.Function(segscale.Name)
	must(t, err)
	modRunSegscale(t, ctx, s, f, 1024)

	// From a file.
	path := filepath.Join(t.TempDir(), "segment_scale.ptx")
	must(t, os.WriteFile(path, text, 0o644))
	fm, err := module.LoadFile(ctx, path)
	must(t, err)
	t.Cleanup(func() { fm.Close() })
	ff, err := fm.Function(segscale.Name)
	must(t, err)
	modRunSegscale(t, ctx, s, ff, 100)
}

func testModuleLoadCUBIN(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	src := modSegscale(t, ctx, module.Options{})
	cubin := src.Image()
	mustEqual(t, module.DetectKind(cubin), module.CUBIN)

	path := filepath.Join(t.TempDir(), "segment_scale.cubin")
	must(t, os.WriteFile(path, cubin, 0o644))
	m, err := module.LoadFile(ctx, path)
	must(t, err)
	t.Cleanup(func() { m.Close() })
	equal(t, m.Kind(), module.CUBIN)
	isNil(t, m.PTX(), "a CUBIN carries no PTX")
	isNil(t, m.Kernels())
	f, err := m.Function(segscale.Name)
	must(t, err)
	// The driver gives the parameter layout (cuFuncGetParamInfo), so the
	// launch is checked even without PTX.
	params, err := f.Params()
	must(t, err)
	hasLen(t, params, 3)
	modRunSegscale(t, ctx, s, f, 2048)

	_, err = m.Function("nope")
	mustIs(t, err, driver.ErrNotFound)
	contains(t, err.Error(), "loaded without PTX", "the kernel names of a bare CUBIN are unknown")
}

func testModuleLoadBad(t *testing.T, drv *driver.Driver) {
	ctx, _ := modSetup(t, drv)
	for name, image := range map[string][]byte{
		"garbage":       []byte("garbage"),
		"garbage-cubin": []byte("\x7fELF garbage"),
	} {
		m, err := module.Load(ctx, image)
		isNil(t, m, name)
		errorIs(t, err, driver.ErrInvalidImage, name)
	}
	for _, image := range [][]byte{nil, {}, {0, 0}} {
		_, err := module.Load(ctx, image)
		errorIs(t, err, driver.ErrInvalidValue, "empty image %q", image)
	}
	_, err := module.Load(nil, []byte(".version 8.0\n"))
	errorIs(t, err, driver.ErrInvalidValue)

	_, err = module.LoadFile(ctx, filepath.Join(t.TempDir(), "absent.ptx"))
	errorIs(t, err, fs.ErrNotExist)
	contains(t, err.Error(), "absent.ptx")
}

func testModuleUnload(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	m, err := module.Compile(ctx, segscale.Source, module.Options{NoCache: true})
	must(t, err)
	f, err := m.Function(segscale.Name)
	must(t, err)
	out := memAlloc[float32](t, ctx, 16)
	in := memAlloc[float32](t, ctx, 16)
	args, err := f.Args(out, in, int32(16))
	must(t, err)
	notZero(t, m.Handle())

	must(t, m.Close())
	must(t, m.Close(), "a second Unload is a no-op")
	isZero(t, m.Handle())
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(16)}
	errorIs(t, f.Launch(s, cfg, out, in, int32(16)), driver.ErrClosed)
	errorIs(t, f.LaunchArgs(s, cfg, args), driver.ErrClosed)
	_, err = f.Args(out, in, int32(16))
	errorIs(t, err, driver.ErrClosed)
	_, err = f.Attributes()
	errorIs(t, err, driver.ErrClosed)
	_, _, err = f.MaxPotentialBlockSize(0, 0)
	errorIs(t, err, driver.ErrClosed)
	errorIs(t, f.SetMaxDynamicSharedMemory(1024), driver.ErrClosed)
	_, err = m.Function(segscale.Name)
	errorIs(t, err, driver.ErrClosed)
	must(t, s.Synchronize())
}
