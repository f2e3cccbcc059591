package module_test

import (
	"errors"
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance"
	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/cudatest/fakekernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/loader"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// fakeDriver is a fake backend with one device and the suite's kernels.
func fakeDriver(opts ...fake.Option) *driver.Driver {
	return fake.New(fakeOptions(opts...)...)
}

func fakeOptions(opts ...fake.Option) []fake.Option {
	return append(append([]fake.Option{fake.Devices(1)}, fakekernels.Options()...), opts...)
}

// setup returns device 0's primary context and an owned stream.
func setup(t testing.TB, drv *driver.Driver) (*driver.Context, *stream.Stream) {
	t.Helper()
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	t.Cleanup(func() { ctx.Close() })
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return ctx, s
}

func alloc(t testing.TB, ctx *driver.Context, n int) *memory.Buffer[float32] {
	t.Helper()
	b, err := memory.Alloc[float32](ctx, n)
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	return b
}

func compileSegscale(t testing.TB, ctx *driver.Context, opts module.Options) *module.Module {
	t.Helper()
	m, err := module.Compile(ctx, segscale.Source, opts)
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	return m
}

// runSegscale launches f over n elements and checks the result.
func runSegscale(t testing.TB, ctx *driver.Context, s *stream.Stream, f *module.Function, n int) {
	t.Helper()
	host := segscale.Input(n)
	in, out := alloc(t, ctx, n), alloc(t, ctx, n)
	require.NoError(t, memory.CopyToDevice(in, host))
	require.NoError(t, f.Launch(s, module.Config{Grid: module.Cover(n, 64), Block: module.Dim(64)}, out, in, int32(n)))
	require.NoError(t, s.Synchronize())
	got := make([]float32, n)
	require.NoError(t, memory.CopyToHost(got, out))
	want := make([]float32, n)
	segscale.Reference(want, host)
	require.NoError(t, segscale.Compare(got, want))
}

// TestPTXFallback runs on a driver without cuFuncGetParamInfo (CUDA 12.3):
// launches are checked against the PTX signature kept from the compile or
// the load, and a bare CUBIN cannot be checked.
func TestPTXFallback(t *testing.T) {
	drv := fakeDriver(fake.DriverVersion(12030))
	ctx, s := setup(t, drv)
	_, _, err := fake.Of(drv).Backend().FuncGetParamInfo(0, 0)
	var serr *loader.SymbolError
	require.ErrorAs(t, err, &serr, "the entry point is missing")

	m := compileSegscale(t, ctx, module.Options{NoCache: true})
	assert.Equal(t, module.CUBIN, m.Kind())
	require.NotNil(t, m.PTX(), "the PTX is kept beside the CUBIN")
	f, err := m.Function(segscale.Name)
	require.NoError(t, err)
	params, err := f.Params()
	require.NoError(t, err)
	assert.Equal(t, []module.Param{{0, 8}, {8, 8}, {16, 4}}, params, "from the PTX signature")
	runSegscale(t, ctx, s, f, 700)
	out := alloc(t, ctx, 4)
	err = f.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(4)}, out, out, 4.0)
	assert.ErrorIs(t, err, module.ErrArgs)
	assert.Contains(t, err.Error(), "from PTX")

	// A struct parameter and a template instance through the PTX.
	k := conformance.Kernels(t, ctx)
	aff, err := k.Function("affine")
	require.NoError(t, err)
	params, err = aff.Params()
	require.NoError(t, err)
	assert.Equal(t, []module.Param{{0, 8}, {8, 12}}, params)
	fill, err := k.Function(kernels.FillFloat)
	require.NoError(t, err)
	params, err = fill.Params()
	require.NoError(t, err)
	assert.Equal(t, []module.Param{{0, 8}, {8, 4}, {12, 4}}, params)

	// Loaded from PTX: checked too. NVRTC 13 writes PTX ISA 9.0, which a
	// 12.3 driver does not JIT (8.3 is its newest): refused as by such a
	// driver; older compilers' PTX loads.
	pm, err := module.Load(ctx, m.PTX())
	if errors.Is(err, driver.ErrUnsupportedPTXVersion) {
		t.Logf("this NVRTC's PTX is newer than a CUDA 12.3 driver takes: %v", err)
	} else {
		require.NoError(t, err)
		defer pm.Close()
		pf, err := pm.Function(segscale.Name)
		require.NoError(t, err)
		runSegscale(t, ctx, s, pf, 64)
	}

	// A CUBIN alone: no layout, and launches say so instead of guessing.
	cm, err := module.Load(ctx, m.Image())
	require.NoError(t, err)
	defer cm.Close()
	cf, err := cm.Function(segscale.Name)
	require.NoError(t, err)
	_, err = cf.Params()
	assert.ErrorIs(t, err, module.ErrNoLayout)
	err = cf.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(4)}, out, out, int32(4))
	assert.ErrorIs(t, err, module.ErrNoLayout)
	_, err = cf.Args(out, out, int32(4))
	assert.ErrorIs(t, err, module.ErrNoLayout)
}

// noLaunch is a backend whose cuLaunchKernel does nothing, to measure what
// the module package itself allocates on the launch path.
type noLaunch struct{ fake.Backend }

func (noLaunch) LaunchKernel(f uintptr, grid, block [3]uint32, sharedMem uint32, s uintptr, params unsafe.Pointer) error {
	if params == nil {
		return driver.ErrInvalidValue
	}
	return nil
}

func TestLaunchAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	api := noLaunch{fake.NewBackend(fakeOptions()...)}
	drv, err := driver.New(api)
	require.NoError(t, err)
	ctx, s := setup(t, drv)
	m := compileSegscale(t, ctx, module.Options{NoCache: true})
	f, err := m.Function(segscale.Name)
	require.NoError(t, err)
	const n = 1 << 20 // a boxed int32 this large would be heap-allocated
	in, out := alloc(t, ctx, n), alloc(t, ctx, n)
	cfg := module.Config{Grid: module.Cover(n, 256), Block: module.Dim(256)}
	count := int32(n)

	allocs := testing.AllocsPerRun(200, func() {
		if err := f.Launch(s, cfg, out, in, count); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs, "Launch")

	args, err := f.Args(out, in, count)
	require.NoError(t, err)
	allocs = testing.AllocsPerRun(200, func() {
		if err := f.LaunchArgs(s, cfg, args); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs, "LaunchArgs")

	i := int32(1000)
	allocs = testing.AllocsPerRun(200, func() {
		i++
		if err := args.Set(2, i); err != nil {
			t.Fatal(err)
		}
		if err := args.Set(0, out); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs, "Args.Set")

	// The special streams bind their context: still nothing allocated
	// (with the context already current: the fake's own context stack
	// allocates on push).
	def, err := stream.Default(ctx)
	require.NoError(t, err)
	defer def.Close()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	require.NoError(t, api.CtxPushCurrent(ctx.Handle()))
	defer api.CtxPopCurrent()
	allocs = testing.AllocsPerRun(200, func() {
		if err := f.LaunchArgs(def, cfg, args); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs, "LaunchArgs on the NULL stream")

	// Structs are checked by reflection once per type, then from a cache.
	aff, err := conformance.Kernels(t, ctx).Function("affine")
	require.NoError(t, err)
	type affine struct {
		A, B float32
		N    int32
	}
	allocs = testing.AllocsPerRun(200, func() {
		if err := aff.Launch(s, cfg, out, affine{2, 1, n}); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs, "Launch with a struct")
}

func TestLaunchLargeParameterBlock(t *testing.T) {
	// A kernel with more parameter bytes than a pooled block holds gets a
	// block of its own.
	big := func(t fake.Thread, out fake.Ptr, v [1200]float32) {
		if i := t.X(); i < len(v) {
			fake.Store(t, out, i, v[i])
		}
	}
	// The pretend compiler: NVRTC before 12.1 refuses over 4096 parameter bytes.
	drv := fakeDriver(fake.PretendNVRTC(), fake.Kernel("big", big))
	ctx, s := setup(t, drv)
	m, err := module.Compile(ctx, "struct V { float v[1200]; };\nextern \"C\" __global__ void big(float* out, V v)\n{\n    int i = threadIdx.x + blockIdx.x * blockDim.x;\n    if (i < 1200) out[i] = v.v[i];\n}\n", module.Options{NoCache: true})
	require.NoError(t, err)
	defer m.Close()
	f, err := m.Function("big")
	require.NoError(t, err)
	var v [1200]float32
	for i := range v {
		v[i] = float32(i) / 2
	}
	out := alloc(t, ctx, 1200)
	require.NoError(t, f.Launch(s, module.Config{Grid: module.Cover(1200, 256), Block: module.Dim(256)}, out, v))
	require.NoError(t, s.Synchronize())
	got := make([]float32, 1200)
	require.NoError(t, memory.CopyToHost(got, out))
	assert.Equal(t, v[:], got)
}

func TestCompileNewerDevice(t *testing.T) {
	// A device NVRTC does not know (compute capability 13.0 for the fake's
	// pretend NVRTC 13.0): the default target falls back to PTX for the
	// newest architecture NVRTC knows, which the driver compiles at load.
	// (TestCompileNewerDeviceRealNVRTC is the same with NVIDIA's NVRTC.)
	drv := fake.New(append([]fake.Option{fake.PretendNVRTC(), fake.WithDevice(fake.DeviceSpec{Major: 13, Minor: 0})}, fakekernels.Options()...)...)
	ctx, s := setup(t, drv)
	m := compileSegscale(t, ctx, module.Options{NoCache: true})
	assert.Equal(t, module.PTX, m.Kind())
	assert.Equal(t, "compute_121", m.Arch())
	f, err := m.Function(segscale.Name)
	require.NoError(t, err)
	runSegscale(t, ctx, s, f, 100)

	// An explicit unknown architecture is the caller's error.
	_, err = module.Compile(ctx, segscale.Source, module.Options{Arch: "sm_130", NoCache: true})
	var ce *module.CompileError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "sm_130", ce.Arch)
	assert.Contains(t, ce.Log, "gpu-architecture")

	// A bad option is reported as such, not as an unknown architecture.
	_, err = module.Compile(ctx, segscale.Source, module.Options{Std: "c++99", NoCache: true})
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, ce.Log, "--std")
}

func TestCompileFailures(t *testing.T) {
	// NVRTC failing outside the compile itself.
	for _, op := range []string{"nvrtcCreateProgram", "nvrtcAddNameExpression", "nvrtcGetProgramLog", "nvrtcGetLoweredName"} {
		t.Run(op, func(t *testing.T) {
			drv := fakeDriver(fake.FailNth(op, 1, driver.Result(backend.NVRTCErrorInvalidInput)))
			ctx, _ := setup(t, drv)
			_, err := module.Compile(ctx, kernels.Source, module.Options{NoCache: true, NameExpressions: []string{kernels.FillFloat}})
			var nv *backend.NVRTCError
			require.ErrorAs(t, err, &nv)
			assert.Equal(t, op, nv.Op)
			var ce *module.CompileError
			assert.False(t, errors.As(err, &ce), "not a compile error: the source was never judged")
		})
	}
	t.Run("cuModuleLoadData", func(t *testing.T) {
		drv := fakeDriver(fake.FailNth("cuModuleLoadData", 1, driver.ErrOutOfMemory))
		ctx, _ := setup(t, drv)
		_, err := module.Compile(ctx, segscale.Source, module.Options{NoCache: true})
		assert.ErrorIs(t, err, driver.ErrOutOfMemory)
		assert.Contains(t, err.Error(), "cuModuleLoadData")
	})
	t.Run("released context", func(t *testing.T) {
		drv := fakeDriver()
		dev, err := drv.Device(0)
		require.NoError(t, err)
		ctx, err := dev.PrimaryContext()
		require.NoError(t, err)
		require.NoError(t, ctx.Close())
		_, err = module.Compile(ctx, segscale.Source, module.Options{NoCache: true})
		assert.ErrorIs(t, err, driver.ErrClosed)
		_, err = module.Load(ctx, []byte(".version 8.0\n"))
		assert.ErrorIs(t, err, driver.ErrClosed)
	})
}

func TestModuleConcurrentFunctions(t *testing.T) {
	drv := fakeDriver()
	ctx, s := setup(t, drv)
	m := compileSegscale(t, ctx, module.Options{NoCache: true})
	fs := make([]*module.Function, 8)
	done := make(chan int)
	for i := range fs {
		go func() {
			f, err := m.Function(segscale.Name)
			assert.NoError(t, err)
			fs[i] = f
			done <- i
		}()
	}
	for range fs {
		<-done
	}
	for _, f := range fs {
		assert.Same(t, fs[0], f)
	}
	runSegscale(t, ctx, s, fs[0], 10)
}

func TestDimCover(t *testing.T) {
	assert.Equal(t, module.Dim3{X: 256, Y: 1, Z: 1}, module.Dim(256))
	assert.Equal(t, module.Dim3{X: 16, Y: 8, Z: 1}, module.Dim(16, 8))
	assert.Equal(t, module.Dim3{X: 4, Y: 3, Z: 2}, module.Dim(4, 3, 2))
	assert.Equal(t, 24, module.Dim(4, 3, 2).Count())
	assert.Equal(t, "(4, 3, 2)", module.Dim(4, 3, 2).String())
	for _, c := range []struct{ n, block, want int }{
		{1, 256, 1}, {256, 256, 1}, {257, 256, 2}, {1000, 128, 8}, {0, 256, 0}, {-5, 256, 0}, {10, 0, 0},
	} {
		assert.Equal(t, module.Dim3{X: c.want, Y: 1, Z: 1}, module.Cover(c.n, c.block), "Cover(%d, %d)", c.n, c.block)
	}
}

func TestDetectKind(t *testing.T) {
	assert.Equal(t, module.CUBIN, module.DetectKind([]byte("\x7fELF\x02\x01")))
	assert.Equal(t, module.Fatbin, module.DetectKind([]byte{0x50, 0xed, 0x55, 0xba, 1, 0}))
	assert.Equal(t, module.PTX, module.DetectKind([]byte(".version 8.0\n")))
	assert.Equal(t, "PTX", module.PTX.String())
	assert.Equal(t, "CUBIN", module.CUBIN.String())
	assert.Equal(t, "fatbin", module.Fatbin.String())
	assert.Equal(t, "ImageKind(9)", module.ImageKind(9).String())
}

func TestNilReceivers(t *testing.T) {
	var m *module.Module
	assert.ErrorIs(t, m.Close(), driver.ErrInvalidValue)
	assert.ErrorIs(t, (&module.Module{}).Close(), driver.ErrInvalidValue, "a zero Module is refused as zero contexts, streams, events and pools are")
	_, err := m.Function("x")
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	var f *module.Function
	assert.ErrorIs(t, f.Launch(nil, module.Config{}), driver.ErrInvalidValue)
	assert.ErrorIs(t, f.LaunchArgs(nil, module.Config{}, nil), driver.ErrInvalidValue)
	_, err = f.Attributes()
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	var a *module.Args
	assert.ErrorIs(t, a.Set(0, 1), driver.ErrInvalidValue)
}

// TestLaunchAllocatesNothingReal checks the whole launch path, cuLaunchKernel
// included, on the real driver.
func TestLaunchAllocatesNothingReal(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	drv := cudatest.Real(t)
	ctx, s := setup(t, drv)
	m := compileSegscale(t, ctx, module.Options{NoCache: true})
	f, err := m.Function(segscale.Name)
	require.NoError(t, err)
	const n = 1 << 16
	in, out := alloc(t, ctx, n), alloc(t, ctx, n)
	cfg := module.Config{Grid: module.Cover(n, 256), Block: module.Dim(256)}
	count := int32(n)
	args, err := f.Args(out, in, count)
	require.NoError(t, err)
	assert.Zero(t, testing.AllocsPerRun(500, func() {
		if err := f.LaunchArgs(s, cfg, args); err != nil {
			t.Fatal(err)
		}
	}), "LaunchArgs")
	assert.Zero(t, testing.AllocsPerRun(500, func() {
		if err := f.Launch(s, cfg, out, in, count); err != nil {
			t.Fatal(err)
		}
	}), "Launch")
	require.NoError(t, s.Synchronize())
	runSegscale(t, ctx, s, f, n)
}
