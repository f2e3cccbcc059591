package drivertest

import (
	"math"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/internal/segscale"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

func testModuleLaunch(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	f, err := Kernels(t, ctx).Function(KernelAdd1)
	require.NoError(t, err)

	const n = 1000
	p := memAlloc[float32](t, ctx, n)
	require.NoError(t, memory.CopyToDevice(p, memIota(n, 0)))
	cfg := module.Config{Grid: module.Cover(n, 256), Block: module.Dim(256)}
	assert.Equal(t, module.Dim3{X: 4, Y: 1, Z: 1}, cfg.Grid)
	for range 3 {
		require.NoError(t, f.Launch(s, cfg, p, int32(n)))
	}
	require.NoError(t, s.Synchronize())
	assert.Equal(t, memIota(n, 3), memRead(t, p), "three launches, in stream order")

	// A view passes its own address: only its elements change.
	view := p.Slice(100, 200)
	err = view.Err()
	require.NoError(t, err)
	require.NoError(t, f.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(128)}, view, int32(100)))
	require.NoError(t, s.Synchronize())
	want := memIota(n, 3)
	for i := 100; i < 200; i++ {
		want[i]++
	}
	assert.Equal(t, want, memRead(t, p))

	// A raw device address as uintptr.
	require.NoError(t, f.Launch(s, cfg, p.Ptr(), int32(n)))
	require.NoError(t, s.Synchronize())
	for i := range want {
		want[i]++
	}
	assert.Equal(t, want, memRead(t, p))

	// A 2-D grid and a 3-D block (fill only uses x: the copies along y and
	// z write the same values).
	fill, err := Kernels(t, ctx).Function(KernelFillFloat)
	require.NoError(t, err)
	require.NoError(t, fill.Launch(s, module.Config{Grid: module.Dim(8, 2), Block: module.Dim(128, 2, 2)}, p, float32(9), int32(n)))
	require.NoError(t, s.Synchronize())
	assert.Equal(t, memFilled(n, float32(9)), memRead(t, p))
}

func testModuleSpin(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	f, err := Kernels(t, ctx).Function(KernelSpin)
	require.NoError(t, err)
	const d = 30 * time.Millisecond
	start := time.Now()
	require.NoError(t, f.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(1)}, uint64(d)))
	require.NoError(t, s.Synchronize())
	assert.GreaterOrEqual(t, time.Since(start), d, "the stream is busy for the time asked")
	err = f.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(1)}, int64(d))
	require.NoError(t, err, "any 8-byte integer passes")
	require.NoError(t, s.Synchronize())
}

func testModuleLaunchSpecial(t *testing.T, drv *driver.Driver) {
	ctx, _ := modSetup(t, drv)
	f, err := Kernels(t, ctx).Function(KernelAdd1)
	require.NoError(t, err)
	const n = 64
	p := memAlloc[float32](t, ctx, n)
	require.NoError(t, memory.CopyToDevice(p, memFilled(n, float32(0))))
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(n)}
	// The special streams resolve through the current context: Launch binds
	// it, whatever the calling thread had current.
	for _, s := range []*stream.Stream{stream.Default(ctx), stream.Legacy(ctx), stream.PerThread(ctx)} {
		require.NoError(t, f.Launch(s, cfg, p, int32(n)), "%v", s)
		require.NoError(t, s.Synchronize())
	}
	assert.Equal(t, memFilled(n, float32(3)), memRead(t, p))
}

func testModuleLaunchScalars(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	f, err := Kernels(t, ctx).Function("mixed")
	require.NoError(t, err)
	params, err := f.Params()
	require.NoError(t, err)
	// double*, double, signed char, short, long long, float, unsigned char,
	// laid out by C rules.
	assert.Equal(t, []module.Param{
		{Offset: 0, Size: 8}, {Offset: 8, Size: 8}, {Offset: 16, Size: 1}, {Offset: 18, Size: 2},
		{Offset: 24, Size: 8}, {Offset: 32, Size: 4}, {Offset: 36, Size: 1},
	}, params)

	out := memAlloc[float64](t, ctx, 6)
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(1)}
	require.NoError(t, f.Launch(s, cfg, out, 1.5, int8(-3), int16(-300), int64(1)<<40, float32(2.25), uint8(200)))
	require.NoError(t, s.Synchronize())
	assert.Equal(t, []float64{1.5, -3, -300, 1 << 40, 2.25, 200}, memRead(t, out))

	// Named types of the right size pass too.
	type celsius float64
	type small int16
	require.NoError(t, f.Launch(s, cfg, out, celsius(-0.5), int8(1), small(2), uint64(3), float32(4), uint8(5)))
	require.NoError(t, s.Synchronize())
	assert.Equal(t, []float64{-0.5, 1, 2, 3, 4, 5}, memRead(t, out))
}

func testModuleLaunchStruct(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	f, err := Kernels(t, ctx).Function("affine")
	require.NoError(t, err)
	params, err := f.Params()
	require.NoError(t, err)
	require.Len(t, params, 2)
	assert.Equal(t, int(unsafe.Sizeof(affineArgs{})), params[1].Size, "struct Affine by value")

	const n = 200
	p := memAlloc[float32](t, ctx, n)
	require.NoError(t, memory.CopyToDevice(p, memIota(n, 0)))
	cfg := module.Config{Grid: module.Cover(n, 64), Block: module.Dim(64)}
	require.NoError(t, f.Launch(s, cfg, p, affineArgs{A: 2, B: 1, N: n - 50}))
	require.NoError(t, s.Synchronize())
	want := memIota(n, 0)
	for i := 0; i < n-50; i++ {
		want[i] = want[i]*2 + 1
	}
	assert.Equal(t, want, memRead(t, p))

	// The same bytes as an array pass; other sizes and pointers do not.
	require.NoError(t, f.Launch(s, cfg, p, [3]uint32{math.Float32bits(1), math.Float32bits(-1), 10}))
	require.NoError(t, s.Synchronize())
	for i := 0; i < 10; i++ {
		want[i]--
	}
	assert.Equal(t, want, memRead(t, p))
	err = f.Launch(s, cfg, p, struct{ A, B float32 }{1, 2})
	assert.ErrorIs(t, err, module.ErrArgs)
	assert.Contains(t, err.Error(), "argument 1")
	err = f.Launch(s, cfg, p, struct {
		A, B float32
		N    *int32
	}{})
	assert.ErrorIs(t, err, module.ErrArgs)
	assert.Contains(t, err.Error(), "field N")
	require.NoError(t, s.Synchronize())
	assert.Equal(t, want, memRead(t, p), "refused launches changed nothing")
}

func testModuleArgChecks(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	m := modSegscale(t, ctx, module.Options{})
	f, err := m.Function(segscale.Name)
	require.NoError(t, err)
	const n = 256
	in := memAlloc[float32](t, ctx, n)
	out := memAlloc[float32](t, ctx, n)
	require.NoError(t, memory.CopyToDevice(in, memIota(n, 1)))
	require.NoError(t, memory.CopyToDevice(out, memFilled(n, float32(-7))))
	freed := memAlloc[float32](t, ctx, n)
	require.NoError(t, freed.Free())
	var nilBuf *memory.Buffer[float32]
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(n)}

	for _, c := range []struct {
		name string
		args []any
		says string
	}{
		{"too few", []any{out, in}, "2 arguments for 3 parameters"},
		{"too many", []any{out, in, int32(n), int32(0)}, "4 arguments for 3 parameters"},
		{"float64 for int", []any{out, in, float64(n)}, "argument 2 is a float64 of 8 bytes, but the parameter takes 4 bytes"},
		{"Go int for int", []any{out, in, n}, "argument 2 is a int of 8 bytes"},
		{"int32 for pointer", []any{int32(1), in, int32(n)}, "argument 0"},
		{"nil", []any{out, nil, int32(n)}, "argument 1 is nil"},
		{"nil buffer", []any{out, nilBuf, int32(n)}, "argument 1 is a nil"},
		{"freed buffer", []any{out, freed, int32(n)}, "argument 1"},
		{"string", []any{out, in, "256"}, "argument 2 is a string"},
		{"Go pointer", []any{out, in, &[]int32{n}[0]}, "argument 2"},
		{"unsafe.Pointer", []any{out, unsafe.Pointer(&[]float32{1}[0]), int32(n)}, "unsafe.Pointer"},
		{"slice", []any{out, []float32{1}, int32(n)}, "argument 1"},
	} {
		err := f.Launch(s, cfg, c.args...)
		assert.ErrorIs(t, err, module.ErrArgs, c.name)
		if assert.Error(t, err, c.name) {
			assert.Contains(t, err.Error(), c.says, c.name)
			assert.Contains(t, err.Error(), segscale.Name, c.name)
		}
	}
	err = f.Launch(s, cfg, out, freed, int32(n))
	assert.ErrorIs(t, err, driver.ErrClosed, "a freed buffer is a closed object")

	// A broken view (an out-of-range Slice) carries the error of its
	// making: the launch reports that, not a freed buffer.
	broken := in.Slice(0, 2*n)
	require.Error(t, broken.Err())
	for _, err := range []error{f.Launch(s, cfg, out, broken, int32(n)), f.Args(out, broken, int32(n)).Err()} {
		assert.ErrorIs(t, err, module.ErrArgs)
		assert.ErrorIs(t, err, driver.ErrInvalidValue, "the Slice's own error")
		assert.NotErrorIs(t, err, driver.ErrClosed, "not reported as a freed buffer")
		if assert.Error(t, err) {
			assert.Contains(t, err.Error(), "argument 1 is a broken")
			assert.Contains(t, err.Error(), broken.Err().Error())
		}
	}
	require.NoError(t, s.Synchronize())
	assert.Equal(t, memFilled(n, float32(-7)), memRead(t, out), "nothing was launched")

	// A NULL pointer is passed on purpose as uintptr(0): the kernel is not
	// launched here (it would fault), only the arguments are prepared.
	err = f.Args(out, uintptr(0), int32(n)).Err()
	assert.NoError(t, err)
}

func testModuleConfigChecks(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	f, err := Kernels(t, ctx).Function(KernelAdd1)
	require.NoError(t, err)
	const n = 32
	p := memAlloc[float32](t, ctx, n)
	require.NoError(t, memory.CopyToDevice(p, memFilled(n, float32(0))))
	for name, cfg := range map[string]module.Config{
		"zero config":      {},
		"zero grid":        {Grid: module.Dim(0), Block: module.Dim(32)},
		"cover nothing":    {Grid: module.Cover(0, 32), Block: module.Dim(32)},
		"negative grid y":  {Grid: module.Dim(1, -1), Block: module.Dim(32)},
		"zero block z":     {Grid: module.Dim(1), Block: module.Dim(32, 1, 0)},
		"block of 2048":    {Grid: module.Dim(1), Block: module.Dim(2048)},
		"2048 threads":     {Grid: module.Dim(1), Block: module.Dim(32, 32, 2)},
		"block z over 64":  {Grid: module.Dim(1), Block: module.Dim(1, 1, 65)},
		"grid y over max":  {Grid: module.Dim(1, 65536), Block: module.Dim(32)},
		"negative smem":    {Grid: module.Dim(1), Block: module.Dim(32), SharedMem: -1},
		"block 1025 x 1 y": {Grid: module.Dim(1), Block: module.Dim(1025)},
	} {
		err := f.Launch(s, cfg, p, int32(n))
		assert.ErrorIs(t, err, module.ErrConfig, name)
		assert.ErrorIs(t, err, driver.ErrInvalidValue, name)
	}
	// More shared memory than the device allows: the driver refuses the
	// function attribute.
	err = f.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(32), SharedMem: 4 << 20}, p, int32(n))
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.NotErrorIs(t, err, module.ErrConfig)

	// A closed stream, a nil stream.
	closed, err := stream.New(ctx)
	require.NoError(t, err)
	require.NoError(t, closed.Close())
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(n)}
	assert.ErrorIs(t, f.Launch(closed, cfg, p, int32(n)), driver.ErrClosed)
	assert.ErrorIs(t, f.Launch(nil, cfg, p, int32(n)), driver.ErrInvalidValue)
	require.NoError(t, s.Synchronize())
	assert.Equal(t, memFilled(n, float32(0)), memRead(t, p), "nothing was launched")
}

func testModuleWrongContext(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	f, err := Kernels(t, ctx).Function(KernelAdd1)
	require.NoError(t, err)
	const n = 32
	p := memAlloc[float32](t, ctx, n)
	require.NoError(t, memory.CopyToDevice(p, memFilled(n, float32(0))))
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(n)}

	// A stream of another context of the same device (the driver would
	// answer CUDA_ERROR_INVALID_HANDLE).
	other, err := ctx.Device().NewContext(0)
	require.NoError(t, err)
	t.Cleanup(func() { other.Release() })
	so, err := stream.New(other)
	require.NoError(t, err)
	t.Cleanup(func() { so.Close() })
	err = f.Launch(so, cfg, p, int32(n))
	assert.ErrorIs(t, err, module.ErrWrongContext)
	assert.ErrorIs(t, f.Launch(stream.Default(other), cfg, p, int32(n)), module.ErrWrongContext)

	// Memory of another device.
	if count, err := drv.DeviceCount(); err == nil && count > 1 {
		dev1, err := drv.Device(1)
		require.NoError(t, err)
		ctx1, err := dev1.PrimaryContext()
		require.NoError(t, err)
		t.Cleanup(func() { ctx1.Release() })
		q := memAlloc[float32](t, ctx1, n)
		err = f.Launch(s, cfg, q, int32(n))
		assert.ErrorIs(t, err, module.ErrWrongContext)
		assert.ErrorIs(t, err, module.ErrArgs)
	}
	require.NoError(t, s.Synchronize())
	assert.Equal(t, memFilled(n, float32(0)), memRead(t, p), "nothing was launched")
}

func testModulePrepared(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	m := modSegscale(t, ctx, module.Options{})
	f, err := m.Function(segscale.Name)
	require.NoError(t, err)
	const n = 1000
	host := segscale.Input(n)
	in := memAlloc[float32](t, ctx, n)
	out := memAlloc[float32](t, ctx, n)
	out2 := memAlloc[float32](t, ctx, n)
	require.NoError(t, memory.CopyToDevice(in, host))
	require.NoError(t, memory.CopyToDevice(out2, memFilled(n, float32(-1))))
	cfg := module.Config{Grid: module.Cover(n, 128), Block: module.Dim(128)}

	args := f.Args(out, in, int32(n))
	err = args.Err()
	require.NoError(t, err)
	assert.Equal(t, 3, args.Len())
	assert.Same(t, f, args.Function())
	require.NoError(t, f.LaunchArgs(s, cfg, args))
	require.NoError(t, s.Synchronize())
	want := make([]float32, n)
	segscale.Reference(want, host)
	require.NoError(t, segscale.Compare(memRead(t, out), want))

	// Set changes an argument in place: the output buffer and n.
	require.NoError(t, args.Set(0, out2))
	require.NoError(t, args.Set(2, int32(n/2)))
	require.NoError(t, f.LaunchArgs(s, cfg, args))
	require.NoError(t, s.Synchronize())
	half := append(make([]float32, n/2), memFilled(n-n/2, float32(-1))...)
	segscale.Reference(half[:n/2], host[:n/2])
	require.NoError(t, segscale.Compare(memRead(t, out2), half))

	// A refused Set keeps the old value.
	assert.ErrorIs(t, args.Set(2, float64(1)), module.ErrArgs)
	assert.ErrorIs(t, args.Set(3, int32(1)), module.ErrArgs)
	assert.ErrorIs(t, args.Set(-1, int32(1)), module.ErrArgs)
	assert.ErrorIs(t, args.Set(0, nil), module.ErrArgs)
	require.NoError(t, f.LaunchArgs(s, cfg, args))
	require.NoError(t, s.Synchronize())
	require.NoError(t, segscale.Compare(memRead(t, out2), half))

	// Arguments are checked when prepared, and belong to their kernel.
	err = f.Args(out, in).Err()
	assert.ErrorIs(t, err, module.ErrArgs)
	bad := f.Args(out, in, 1.0)
	assert.ErrorIs(t, bad.Err(), module.ErrArgs)
	// A failed preparation is kept: launching with it launches nothing.
	assert.ErrorIs(t, f.LaunchArgs(s, cfg, bad), module.ErrArgs)
	assert.ErrorIs(t, bad.Set(0, out), module.ErrArgs)
	assert.Zero(t, bad.Len())
	add1, err := Kernels(t, ctx).Function(KernelAdd1)
	require.NoError(t, err)
	assert.ErrorIs(t, add1.LaunchArgs(s, cfg, args), module.ErrArgs)
	assert.ErrorIs(t, f.LaunchArgs(s, cfg, nil), module.ErrArgs)
	assert.ErrorIs(t, f.LaunchArgs(s, module.Config{}, args), module.ErrConfig)
}

func testModuleAttributes(t *testing.T, drv *driver.Driver) {
	ctx, _ := modSetup(t, drv)
	f, err := Kernels(t, ctx).Function(KernelAdd1)
	require.NoError(t, err)
	at, err := f.Attributes()
	require.NoError(t, err)
	major, minor, err := ctx.Device().ComputeCapability()
	require.NoError(t, err)
	arch := 10*major + minor
	assert.Greater(t, at.MaxThreadsPerBlock, 0)
	assert.LessOrEqual(t, at.MaxThreadsPerBlock, 1024)
	assert.Greater(t, at.NumRegs, 0)
	assert.Equal(t, arch, at.PTXVersion)
	assert.Equal(t, arch, at.BinaryVersion)
	assert.Equal(t, 0, at.SharedSizeBytes, "add1 has no static shared memory")
	assert.Equal(t, 48<<10, at.MaxDynamicSharedSize, "48 KiB until raised")
	regs, err := f.Attribute(driver.FuncNumRegs)
	require.NoError(t, err)
	assert.Equal(t, at.NumRegs, regs)

	require.NoError(t, f.SetMaxDynamicSharedMemory(100000))
	v, err := f.Attribute(driver.FuncMaxDynamicSharedSize)
	require.NoError(t, err)
	assert.Equal(t, 100000, v)
	optin, err := ctx.Device().Attribute(driver.AttrMaxSharedMemoryPerBlockOptin)
	require.NoError(t, err)
	assert.ErrorIs(t, f.SetMaxDynamicSharedMemory(optin+1), driver.ErrInvalidValue)
	assert.ErrorIs(t, f.SetMaxDynamicSharedMemory(-1), driver.ErrInvalidValue)
	v, err = f.Attribute(driver.FuncMaxDynamicSharedSize)
	require.NoError(t, err)
	assert.Equal(t, 100000, v, "a refused value changes nothing")
	_, err = f.Attribute(driver.FunctionAttribute(9999))
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
}

func testModuleDynamicShared(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	f, err := Kernels(t, ctx).Function("smem_copy")
	require.NoError(t, err)
	const n = 1000
	in := memAlloc[float32](t, ctx, n)
	out := memAlloc[float32](t, ctx, n)
	require.NoError(t, memory.CopyToDevice(in, memIota(n, 1)))
	// 64 KiB of dynamic shared memory is over the default 48 KiB: Launch
	// raises the function's limit by itself.
	cfg := module.Config{Grid: module.Cover(n, 256), Block: module.Dim(256), SharedMem: 64 << 10}
	require.NoError(t, f.Launch(s, cfg, out, in, int32(n)))
	require.NoError(t, s.Synchronize())
	want := memIota(n, 1)
	for i := range want {
		want[i] *= 3
	}
	assert.Equal(t, want, memRead(t, out))
	v, err := f.Attribute(driver.FuncMaxDynamicSharedSize)
	require.NoError(t, err)
	assert.Equal(t, 64<<10, v)

	// Under the limit now set, and at 48 KiB, no attribute change is needed.
	cfg.SharedMem = 32 << 10
	require.NoError(t, f.Launch(s, cfg, out, in, int32(n)))
	require.NoError(t, s.Synchronize())
	v, err = f.Attribute(driver.FuncMaxDynamicSharedSize)
	require.NoError(t, err)
	assert.Equal(t, 64<<10, v, "a smaller launch does not lower the limit")

	// Two names of one kernel (a name expression and its lowered name) give
	// two Functions of one CUfunction, whose attribute the driver keeps
	// once: what one sets, the other knows, so a launch through the other
	// does not lower the limit behind the first one's back.
	k := Kernels(t, ctx)
	byExpr, err := k.Function(KernelFillFloat)
	require.NoError(t, err)
	lowered, ok := k.LoweredName(KernelFillFloat)
	require.True(t, ok)
	byLowered, err := k.Function(lowered)
	require.NoError(t, err)
	require.NotSame(t, byExpr, byLowered)
	require.Equal(t, byExpr.Handle(), byLowered.Handle(), "one CUfunction")
	require.NoError(t, byExpr.SetMaxDynamicSharedMemory(100000))
	fillCfg := module.Config{Grid: module.Cover(n, 256), Block: module.Dim(256), SharedMem: 64 << 10}
	require.NoError(t, byLowered.Launch(s, fillCfg, out, float32(5), int32(n)))
	v, err = byExpr.Attribute(driver.FuncMaxDynamicSharedSize)
	require.NoError(t, err)
	assert.Equal(t, 100000, v, "the other name's 64 KiB launch kept the limit set through the first")
	fillCfg.SharedMem = 90000
	require.NoError(t, byExpr.Launch(s, fillCfg, out, float32(6), int32(n)), "within the limit set")
	require.NoError(t, s.Synchronize())
	assert.Equal(t, memFilled(n, float32(6)), memRead(t, out))
}

func testModuleOccupancy(t *testing.T, drv *driver.Driver) {
	ctx, _ := modSetup(t, drv)
	f, err := Kernels(t, ctx).Function(KernelAdd1)
	require.NoError(t, err)
	sms, err := ctx.Device().Attribute(driver.AttrMultiprocessorCount)
	require.NoError(t, err)

	minGrid, block, err := f.MaxPotentialBlockSize(0, 0)
	require.NoError(t, err)
	assert.Greater(t, block, 0)
	assert.LessOrEqual(t, block, 1024)
	assert.Zero(t, block%32, "a whole number of warps")
	assert.GreaterOrEqual(t, minGrid, sms, "at least a block per multiprocessor")

	minGrid, block, err = f.MaxPotentialBlockSize(0, 100)
	require.NoError(t, err)
	assert.LessOrEqual(t, block, 100, "the limit caps the block size")
	assert.Zero(t, block%32, "a whole number of warps under the limit")
	assert.GreaterOrEqual(t, minGrid, sms)

	_, _, err = f.MaxPotentialBlockSize(-1, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, _, err = f.MaxPotentialBlockSize(0, -1)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
}
