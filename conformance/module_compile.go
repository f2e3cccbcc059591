package conformance

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// modSetup returns device 0's primary context and an owned stream in it,
// both released when the test ends.
func modSetup(t *testing.T, drv *driver.Driver) (*driver.Context, *stream.Stream) {
	t.Helper()
	dev, err := drv.Device(0)
	must(t, err)
	ctx, err := dev.PrimaryContext()
	must(t, err)
	t.Cleanup(func() { ctx.Close() })
	s, err := stream.New(ctx, stream.Options{})
	must(t, err)
	t.Cleanup(func() { s.Close() })
	return ctx, s
}

// modArch returns the device's architecture as NVRTC names it: "90" for
// compute capability 9.0.
func modArch(t *testing.T, ctx *driver.Context) string {
	t.Helper()
	major, minor, err := ctx.Device().ComputeCapability()
	must(t, err)
	return fmt.Sprintf("%d%d", major, minor)
}

// modSegscale compiles segment_scale without the cache.
func modSegscale(t *testing.T, ctx *driver.Context, opts module.Options) *module.Module {
	t.Helper()
	if opts.Name == "" {
		opts.Name = "segment_scale.cu"
	}
	opts.NoCache = opts.NoCache || opts.CacheDir == ""
	m, err := module.Compile(ctx, segscale.Source, opts)
	must(t, err)
	t.Cleanup(func() { m.Close() })
	return m
}

// modRunSegscale launches segment_scale of f over n elements on s and
// checks the result against the Go reference, bit for bit.
func modRunSegscale(t *testing.T, ctx *driver.Context, s *stream.Stream, f *module.Function, n int) {
	t.Helper()
	host := segscale.Input(n)
	in := memAlloc[float32](t, ctx, n)
	out := memAlloc[float32](t, ctx, n)
	must(t, memory.CopyToDevice(in, host))
	cfg := module.Config{Grid: module.Cover(n, 128), Block: module.Dim(128)}
	must(t, f.Launch(s, cfg, out, in, int32(n)))
	must(t, s.Synchronize())
	want := make([]float32, n)
	segscale.Reference(want, host)
	must(t, segscale.Compare(memRead(t, out), want))
}

func testModuleCompile(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	arch := modArch(t, ctx)
	m := modSegscale(t, ctx, module.Options{})
	equal(t, m.Arch(), "sm_"+arch, "the default target is the device's own architecture")
	equal(t, m.Kind(), module.CUBIN, "a real architecture gives a CUBIN")
	equal(t, module.DetectKind(m.Image()), module.CUBIN)
	isFalse(t, m.Cached())
	isSame(t, m.Context(), ctx)
	notZero(t, m.Handle())
	if m.PTX() != nil {
		contains(t, string(m.PTX()), ".entry segment_scale")
		equal(t, m.Kernels(), []string{segscale.Name})
	}
	f, err := m.Function(segscale.Name)
	must(t, err)
	equal(t, f.Name(), segscale.Name)
	equal(t, f.LoweredName(), segscale.Name)
	again, err := m.Function(segscale.Name)
	must(t, err)
	isSame(t, again, f, "a function is looked up once")
	params, err := f.Params()
	must(t, err)
	equal(t, params, []module.Param{{Offset: 0, Size: 8}, {Offset: 8, Size: 8}, {Offset: 16, Size: 4}})
	modRunSegscale(t, ctx, s, f, 1000)

	// A virtual architecture gives PTX, which the driver compiles at load.
	p := modSegscale(t, ctx, module.Options{Arch: "compute_" + arch})
	equal(t, p.Kind(), module.PTX)
	equal(t, p.Arch(), "compute_"+arch)
	if p.PTX() == nil {
		t.Fatal("a module compiled for a virtual architecture has no PTX")
	}
	contains(t, string(p.PTX()), ".entry segment_scale")
	pf, err := p.Function(segscale.Name)
	must(t, err)
	modRunSegscale(t, ctx, s, pf, 777)
}

func testModuleCompileError(t *testing.T, drv *driver.Driver) {
	ctx, _ := modSetup(t, drv)
	src := "extern \"C\" __global__ void broken(float* p)\n{\n    p[0] = undefined_thing;\n}\n"
	opts := module.Options{Name: "broken.cu", NoCache: true, Defines: map[string]string{"X": "1"}}
	m, err := module.Compile(ctx, src, opts)
	mustErr(t, err)
	isNil(t, m)
	var ce *module.CompileError
	mustAs(t, err, &ce)
	equal(t, ce.Name, "broken.cu")
	equal(t, ce.Arch, "sm_"+modArch(t, ctx))
	equal(t, ce.Options.Defines, opts.Defines)
	if !slices.Contains(ce.Flags, "-DX=1") {
		t.Errorf("the flags %q do not contain %q", ce.Flags, "-DX=1")
	}
	contains(t, ce.Log, "broken.cu", "the log names the source")
	contains(t, ce.Log, "error")
	contains(t, err.Error(), strings.TrimSpace(ce.Log), "the error text carries the whole log")
	var nv *backend.NVRTCError
	mustAs(t, err, &nv)
	equal(t, nv.Code, backend.NVRTCErrorCompilation)

	// A bad option is a compile error too, with NVRTC's code for it.
	_, err = module.Compile(ctx, segscale.Source, module.Options{NoCache: true, Flags: []string{"--no-such-option"}})
	mustAs(t, err, &ce)
	mustAs(t, err, &nv)
	equal(t, nv.Code, backend.NVRTCErrorInvalidOption)

	// Options refused before NVRTC.
	_, err = module.Compile(ctx, segscale.Source, module.Options{Arch: "hopper"})
	errorIs(t, err, driver.ErrInvalidValue)
	_, err = module.Compile(ctx, segscale.Source, module.Options{Defines: map[string]string{"A B": ""}})
	errorIs(t, err, driver.ErrInvalidValue)
	_, err = module.Compile(nil, segscale.Source, module.Options{})
	errorIs(t, err, driver.ErrInvalidValue)
}

func testModuleCompileWarnings(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	// A #warning directive: NVRTC succeeds and logs it; the log survives
	// the cache.
	src := "#warning \"segment_scale warns\"\n" + segscale.Source
	opts := module.Options{Name: "warns.cu", CacheDir: t.TempDir()}
	m, err := module.Compile(ctx, src, opts)
	must(t, err)
	t.Cleanup(func() { m.Close() })
	contains(t, m.Log(), "warning")
	contains(t, m.Log(), "segment_scale warns")
	contains(t, m.Log(), "warns.cu")
	f, err := m.Function(segscale.Name)
	must(t, err)
	modRunSegscale(t, ctx, s, f, 64)

	warm, err := module.Compile(ctx, src, opts)
	must(t, err)
	t.Cleanup(func() { warm.Close() })
	isTrue(t, warm.Cached())
	equal(t, warm.Log(), m.Log(), "the cache keeps the log")

	clean := modSegscale(t, ctx, module.Options{})
	isEmpty(t, clean.Log(), "no warnings, no log")
}

func testModuleCompileOptions(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	// The factors come from an in-memory header and a define: the kernel
	// only computes segment_scale if both reached NVRTC.
	src := `#include "factors.h"
extern "C" __global__ void segment_scale(float* out, const float* in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int q = n / 4;
    float v = in[i];
    if (i < q) v *= LOW_FACTOR;
    else if (i >= n - q) v *= HIGH_FACTOR;
    out[i] = v;
}
`
	m, err := module.Compile(ctx, src, module.Options{
		Name:     "with_header.cu",
		Headers:  map[string]string{"factors.h": "#pragma once\n#define LOW_FACTOR 0.5f\n#define HIGH_FACTOR HIGH_VALUE\n"},
		Defines:  map[string]string{"HIGH_VALUE": "2.0f", "FLAG_ONLY": ""},
		Std:      "c++17",
		LineInfo: true,
		Flags:    []string{"--use_fast_math"},
		NoCache:  true,
	})
	must(t, err)
	t.Cleanup(func() { m.Close() })
	f, err := m.Function(segscale.Name)
	must(t, err)
	modRunSegscale(t, ctx, s, f, 513)

	// A missing header is a compile error naming it.
	_, err = module.Compile(ctx, "#include \"absent.h\"\n"+segscale.Source, module.Options{NoCache: true})
	var ce *module.CompileError
	mustAs(t, err, &ce)
	contains(t, ce.Log, "absent.h")
}

func testModuleNameExpressions(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	m := Kernels(t, ctx)
	lowered, ok := m.LoweredName(kernels.FillFloat)
	mustTrue(t, ok)
	if lowered == "" {
		t.Errorf("the lowered name of %s is empty", kernels.FillFloat)
	}
	_, ok = m.LoweredName("fill<double>")
	isFalse(t, ok, "only the expressions given are resolved")

	f, err := m.Function(kernels.FillFloat)
	must(t, err)
	equal(t, f.LoweredName(), lowered)
	byLowered, err := m.Function(lowered)
	must(t, err)
	equal(t, byLowered.Handle(), f.Handle(), "the lowered name finds the same kernel")

	const n = 300
	p := memAlloc[float32](t, ctx, n)
	must(t, f.Launch(s, module.Config{Grid: module.Cover(n, 64), Block: module.Dim(64)}, p, float32(7.5), int32(n)))
	must(t, s.Synchronize())
	equal(t, memRead(t, p), memFilled(n, float32(7.5)))
}

func testModuleMissingFunction(t *testing.T, drv *driver.Driver) {
	ctx, _ := modSetup(t, drv)
	m := modSegscale(t, ctx, module.Options{})
	f, err := m.Function("no_such_kernel")
	isNil(t, f)
	mustIs(t, err, driver.ErrNotFound)
	contains(t, err.Error(), "no_such_kernel")
	if m.PTX() != nil {
		contains(t, err.Error(), "the module has: segment_scale", "the error lists the kernels the module has")
	} else {
		contains(t, err.Error(), "unknown")
	}
	_, err = m.Function("")
	errorIs(t, err, driver.ErrInvalidValue)
}

func testModuleSegmentScale(t *testing.T, drv *driver.Driver) {
	// The whole PyTorch-style workflow: raw memory and stream, borrowed and
	// wrapped, compiled at run time, checked against the Go reference.
	res, err := segscale.Run(drv, raw(t, drv), 4099, module.Options{NoCache: true})
	must(t, err)
	equal(t, res.N, 4099)
	equal(t, res.Kind, module.CUBIN)
	contains(t, res.String(), "match the Go reference")

	_, err = segscale.Run(drv, raw(t, drv), 0, module.Options{})
	errorIs(t, err, driver.ErrInvalidValue)
	isFalse(t, errors.Is(err, driver.ErrNotFound))
}
