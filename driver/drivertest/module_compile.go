package drivertest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/internal/segscale"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// modSetup returns device 0's primary context and an owned stream in it,
// both released when the test ends.
func modSetup(t *testing.T, drv *driver.Driver) (*driver.Context, *stream.Stream) {
	t.Helper()
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	t.Cleanup(func() { ctx.Release() })
	s, err := stream.New(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return ctx, s
}

// modArch returns the device's architecture as NVRTC names it: "90" for
// compute capability 9.0.
func modArch(t *testing.T, ctx *driver.Context) string {
	t.Helper()
	major, minor, err := ctx.Device().ComputeCapability()
	require.NoError(t, err)
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
	require.NoError(t, err)
	t.Cleanup(func() { m.Unload() })
	return m
}

// modRunSegscale launches segment_scale of f over n elements on s and
// checks the result against the Go reference, bit for bit.
func modRunSegscale(t *testing.T, ctx *driver.Context, s *stream.Stream, f *module.Function, n int) {
	t.Helper()
	host := segscale.Input(n)
	in := memAlloc[float32](t, ctx, n)
	out := memAlloc[float32](t, ctx, n)
	require.NoError(t, memory.CopyToDevice(in, host))
	cfg := module.Config{Grid: module.Cover(n, 128), Block: module.Dim(128)}
	require.NoError(t, f.Launch(s, cfg, out, in, int32(n)))
	require.NoError(t, s.Synchronize())
	want := make([]float32, n)
	segscale.Reference(want, host)
	require.NoError(t, segscale.Compare(memRead(t, out), want))
}

func testModuleCompile(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	arch := modArch(t, ctx)
	m := modSegscale(t, ctx, module.Options{})
	assert.Equal(t, "sm_"+arch, m.Arch(), "the default target is the device's own architecture")
	assert.Equal(t, module.CUBIN, m.Kind(), "a real architecture gives a CUBIN")
	assert.Equal(t, module.CUBIN, module.DetectKind(m.Image()))
	assert.False(t, m.Cached())
	assert.Same(t, ctx, m.Context())
	assert.NotZero(t, m.Handle())
	if m.PTX() != nil {
		assert.Contains(t, string(m.PTX()), ".entry segment_scale")
		assert.Equal(t, []string{segscale.Name}, m.Kernels())
	}
	f, err := m.Function(segscale.Name)
	require.NoError(t, err)
	assert.Equal(t, segscale.Name, f.Name())
	assert.Equal(t, segscale.Name, f.LoweredName())
	again, err := m.Function(segscale.Name)
	require.NoError(t, err)
	assert.Same(t, f, again, "a function is looked up once")
	params, err := f.Params()
	require.NoError(t, err)
	assert.Equal(t, []module.Param{{Offset: 0, Size: 8}, {Offset: 8, Size: 8}, {Offset: 16, Size: 4}}, params)
	modRunSegscale(t, ctx, s, f, 1000)

	// A virtual architecture gives PTX, which the driver compiles at load.
	p := modSegscale(t, ctx, module.Options{Arch: "compute_" + arch})
	assert.Equal(t, module.PTX, p.Kind())
	assert.Equal(t, "compute_"+arch, p.Arch())
	require.NotNil(t, p.PTX())
	assert.Contains(t, string(p.PTX()), ".entry segment_scale")
	pf, err := p.Function(segscale.Name)
	require.NoError(t, err)
	modRunSegscale(t, ctx, s, pf, 777)
}

func testModuleCompileError(t *testing.T, drv *driver.Driver) {
	ctx, _ := modSetup(t, drv)
	src := "extern \"C\" __global__ void broken(float* p)\n{\n    p[0] = undefined_thing;\n}\n"
	opts := module.Options{Name: "broken.cu", NoCache: true, Defines: map[string]string{"X": "1"}}
	m, err := module.Compile(ctx, src, opts)
	require.Error(t, err)
	assert.Nil(t, m)
	var ce *module.CompileError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "broken.cu", ce.Name)
	assert.Equal(t, "sm_"+modArch(t, ctx), ce.Arch)
	assert.Equal(t, opts.Defines, ce.Options.Defines)
	assert.Contains(t, ce.Flags, "-DX=1")
	assert.Contains(t, ce.Log, "broken.cu", "the log names the source")
	assert.Contains(t, ce.Log, "error")
	assert.Contains(t, err.Error(), strings.TrimSpace(ce.Log), "the error text carries the whole log")
	var nv *driver.NVRTCError
	require.ErrorAs(t, err, &nv)
	assert.Equal(t, driver.NVRTCErrorCompilation, nv.Code)

	// A bad option is a compile error too, with NVRTC's code for it.
	_, err = module.Compile(ctx, segscale.Source, module.Options{NoCache: true, Flags: []string{"--no-such-option"}})
	require.ErrorAs(t, err, &ce)
	require.ErrorAs(t, err, &nv)
	assert.Equal(t, driver.NVRTCErrorInvalidOption, nv.Code)

	// Options refused before NVRTC.
	_, err = module.Compile(ctx, segscale.Source, module.Options{Arch: "hopper"})
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = module.Compile(ctx, segscale.Source, module.Options{Defines: map[string]string{"A B": ""}})
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = module.Compile(nil, segscale.Source, module.Options{})
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
}

func testModuleCompileWarnings(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	// A #warning directive: NVRTC succeeds and logs it; the log survives
	// the cache.
	src := "#warning \"segment_scale warns\"\n" + segscale.Source
	opts := module.Options{Name: "warns.cu", CacheDir: t.TempDir()}
	m, err := module.Compile(ctx, src, opts)
	require.NoError(t, err)
	t.Cleanup(func() { m.Unload() })
	assert.Contains(t, m.Log(), "warning")
	assert.Contains(t, m.Log(), "segment_scale warns")
	assert.Contains(t, m.Log(), "warns.cu")
	f, err := m.Function(segscale.Name)
	require.NoError(t, err)
	modRunSegscale(t, ctx, s, f, 64)

	warm, err := module.Compile(ctx, src, opts)
	require.NoError(t, err)
	t.Cleanup(func() { warm.Unload() })
	assert.True(t, warm.Cached())
	assert.Equal(t, m.Log(), warm.Log(), "the cache keeps the log")

	clean := modSegscale(t, ctx, module.Options{})
	assert.Empty(t, clean.Log(), "no warnings, no log")
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
	require.NoError(t, err)
	t.Cleanup(func() { m.Unload() })
	f, err := m.Function(segscale.Name)
	require.NoError(t, err)
	modRunSegscale(t, ctx, s, f, 513)

	// A missing header is a compile error naming it.
	_, err = module.Compile(ctx, "#include \"absent.h\"\n"+segscale.Source, module.Options{NoCache: true})
	var ce *module.CompileError
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, ce.Log, "absent.h")
}

func testModuleNameExpressions(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	m := Kernels(t, ctx)
	lowered, ok := m.LoweredName(KernelFillFloat)
	require.True(t, ok)
	assert.NotEmpty(t, lowered)
	_, ok = m.LoweredName("fill<double>")
	assert.False(t, ok, "only the expressions given are resolved")

	f, err := m.Function(KernelFillFloat)
	require.NoError(t, err)
	assert.Equal(t, lowered, f.LoweredName())
	byLowered, err := m.Function(lowered)
	require.NoError(t, err)
	assert.Equal(t, f.Handle(), byLowered.Handle(), "the lowered name finds the same kernel")

	const n = 300
	p := memAlloc[float32](t, ctx, n)
	require.NoError(t, f.Launch(s, module.Config{Grid: module.Cover(n, 64), Block: module.Dim(64)}, p, float32(7.5), int32(n)))
	require.NoError(t, s.Synchronize())
	assert.Equal(t, memFilled(n, float32(7.5)), memRead(t, p))
}

func testModuleMissingFunction(t *testing.T, drv *driver.Driver) {
	ctx, _ := modSetup(t, drv)
	m := modSegscale(t, ctx, module.Options{})
	f, err := m.Function("no_such_kernel")
	assert.Nil(t, f)
	require.ErrorIs(t, err, driver.ErrNotFound)
	assert.Contains(t, err.Error(), "no_such_kernel")
	if m.PTX() != nil {
		assert.Contains(t, err.Error(), "the module has: segment_scale", "the error lists the kernels the module has")
	} else {
		assert.Contains(t, err.Error(), "unknown")
	}
	_, err = m.Function("")
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
}

func testModuleSegmentScale(t *testing.T, drv *driver.Driver) {
	// The whole PyTorch-style workflow: raw memory and stream, borrowed and
	// wrapped, compiled at run time, checked against the Go reference.
	res, err := segscale.Run(drv, 4099, module.Options{NoCache: true})
	require.NoError(t, err)
	assert.Equal(t, 4099, res.N)
	assert.Equal(t, module.CUBIN, res.Kind)
	assert.Contains(t, res.String(), "match the Go reference")

	_, err = segscale.Run(drv, 0, module.Options{})
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.False(t, errors.Is(err, driver.ErrNotFound))
}
