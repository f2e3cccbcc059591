package conformance

import (
	"errors"
	"math"
	"testing"
	"time"
	"unsafe"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

func testModuleLaunch(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	f, err := Kernels(t, ctx).Function(kernels.Add1)
	must(t, err)

	const n = 1000
	p := memAlloc[float32](t, ctx, n)
	must(t, memory.CopyToDevice(p, memIota(n, 0)))
	cfg := module.Config{Grid: module.Cover(n, 256), Block: module.Dim(256)}
	equal(t, cfg.Grid, module.Dim3{X: 4, Y: 1, Z: 1})
	for range 3 {
		must(t, f.Launch(s, cfg, p, int32(n)))
	}
	must(t, s.Synchronize())
	equal(t, memRead(t, p), memIota(n, 3), "three launches, in stream order")

	// A view passes its own address: only its elements change.
	view, err := p.Slice(100, 200)
	must(t, err)
	must(t, f.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(128)}, view, int32(100)))
	must(t, s.Synchronize())
	want := memIota(n, 3)
	for i := 100; i < 200; i++ {
		want[i]++
	}
	equal(t, memRead(t, p), want)

	// A raw device address as uintptr.
	must(t, f.Launch(s, cfg, p.Ptr(), int32(n)))
	must(t, s.Synchronize())
	for i := range want {
		want[i]++
	}
	equal(t, memRead(t, p), want)

	// A 2-D grid and a 3-D block (fill only uses x: the copies along y and
	// z write the same values).
	fill, err := Kernels(t, ctx).Function(kernels.FillFloat)
	must(t, err)
	must(t, fill.Launch(s, module.Config{Grid: module.Dim(8, 2), Block: module.Dim(128, 2, 2)}, p, float32(9), int32(n)))
	must(t, s.Synchronize())
	equal(t, memRead(t, p), memFilled(n, float32(9)))
}

func testModuleSpin(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	f, err := Kernels(t, ctx).Function(kernels.Spin)
	must(t, err)
	const d = 30 * time.Millisecond
	start := time.Now()
	must(t, f.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(1)}, uint64(d)))
	must(t, s.Synchronize())
	compare(t, time.Since(start), ">=", d, "the stream is busy for the time asked")
	err = f.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(1)}, int64(d))
	must(t, err, "any 8-byte integer passes")
	must(t, s.Synchronize())
}

func testModuleLaunchSpecial(t *testing.T, drv *driver.Driver) {
	ctx, _ := modSetup(t, drv)
	f, err := Kernels(t, ctx).Function(kernels.Add1)
	must(t, err)
	const n = 64
	p := memAlloc[float32](t, ctx, n)
	must(t, memory.CopyToDevice(p, memFilled(n, float32(0))))
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(n)}
	// The special streams resolve through the current context: Launch binds
	// it, whatever the calling thread had current.
	for _, s := range []*stream.Stream{special(t, stream.Default, ctx), special(t, stream.Legacy, ctx), special(t, stream.PerThread, ctx)} {
		must(t, f.Launch(s, cfg, p, int32(n)), "%v", s)
		must(t, s.Synchronize())
	}
	equal(t, memRead(t, p), memFilled(n, float32(3)))
}

func testModuleLaunchScalars(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	f, err := Kernels(t, ctx).Function("mixed")
	must(t, err)
	params, err := f.Params()
	must(t, err)
	// double*, double, signed char, short, long long, float, unsigned char,
	// laid out by C rules.
	equal(t, params, []module.Param{
		{Offset: 0, Size: 8}, {Offset: 8, Size: 8}, {Offset: 16, Size: 1}, {Offset: 18, Size: 2},
		{Offset: 24, Size: 8}, {Offset: 32, Size: 4}, {Offset: 36, Size: 1},
	})

	out := memAlloc[float64](t, ctx, 6)
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(1)}
	must(t, f.Launch(s, cfg, out, 1.5, int8(-3), int16(-300), int64(1)<<40, float32(2.25), uint8(200)))
	must(t, s.Synchronize())
	equal(t, memRead(t, out), []float64{1.5, -3, -300, 1 << 40, 2.25, 200})

	// Named types of the right size pass too.
	type celsius float64
	type small int16
	must(t, f.Launch(s, cfg, out, celsius(-0.5), int8(1), small(2), uint64(3), float32(4), uint8(5)))
	must(t, s.Synchronize())
	equal(t, memRead(t, out), []float64{-0.5, 1, 2, 3, 4, 5})
}

func testModuleLaunchStruct(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	f, err := Kernels(t, ctx).Function("affine")
	must(t, err)
	params, err := f.Params()
	must(t, err)
	mustLen(t, params, 2)
	equal(t, params[1].Size, int(unsafe.Sizeof(kernels.AffineArgs{})), "struct Affine by value")

	const n = 200
	p := memAlloc[float32](t, ctx, n)
	must(t, memory.CopyToDevice(p, memIota(n, 0)))
	cfg := module.Config{Grid: module.Cover(n, 64), Block: module.Dim(64)}
	must(t, f.Launch(s, cfg, p, kernels.AffineArgs{A: 2, B: 1, N: n - 50}))
	must(t, s.Synchronize())
	want := memIota(n, 0)
	for i := 0; i < n-50; i++ {
		want[i] = want[i]*2 + 1
	}
	equal(t, memRead(t, p), want)

	// The same bytes as an array pass; other sizes and pointers do not.
	must(t, f.Launch(s, cfg, p, [3]uint32{math.Float32bits(1), math.Float32bits(-1), 10}))
	must(t, s.Synchronize())
	for i := 0; i < 10; i++ {
		want[i]--
	}
	equal(t, memRead(t, p), want)
	err = f.Launch(s, cfg, p, struct{ A, B float32 }{1, 2})
	errorIs(t, err, module.ErrArgs)
	contains(t, err.Error(), "argument 1")
	err = f.Launch(s, cfg, p, struct {
		A, B float32
		N    *int32
	}{})
	errorIs(t, err, module.ErrArgs)
	contains(t, err.Error(), "field N")
	must(t, s.Synchronize())
	equal(t, memRead(t, p), want, "refused launches changed nothing")
}

func testModuleArgChecks(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	m := modSegscale(t, ctx, module.Options{})
	f, err := m.Function(segscale.Name)
	must(t, err)
	const n = 256
	in := memAlloc[float32](t, ctx, n)
	out := memAlloc[float32](t, ctx, n)
	must(t, memory.CopyToDevice(in, memIota(n, 1)))
	must(t, memory.CopyToDevice(out, memFilled(n, float32(-7))))
	freed := memAlloc[float32](t, ctx, n)
	must(t, freed.Close())
	var nilBuf *memory.Buffer[float32]
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(n)}

	for _, c := range []struct {
		name string
		args []any
		says string
	}{
		{"too few", []any{out, in}, "2 arguments for 3 parameters"},
		{"too many", []any{out, in, int32(n), int32(0)}, "4 arguments for 3 parameters"},
		{"float64 for int", []any{out, in, float64(n)}, "a float64 of 8 bytes"},
		{"Go int for int", []any{out, in, n}, "argument 2 (int n): an int of 8 bytes for a .u32 parameter: pass an int32"},
		{"int32 buffer for float*", []any{out, memAlloc[int32](t, ctx, n), int32(n)}, "pass a *memory.Buffer[float32]"},
		{"int32 for pointer", []any{int32(1), in, int32(n)}, "argument 0"},
		{"nil", []any{out, nil, int32(n)}, "argument 1 (const float* in) is nil"},
		{"nil buffer", []any{out, nilBuf, int32(n)}, "argument 1 (const float* in) is a nil"},
		{"freed buffer", []any{out, freed, int32(n)}, "argument 1"},
		{"string", []any{out, in, "256"}, "argument 2 (int n) is a string"},
		{"Go pointer", []any{out, in, &[]int32{n}[0]}, "argument 2"},
		{"unsafe.Pointer", []any{out, unsafe.Pointer(&[]float32{1}[0]), int32(n)}, "unsafe.Pointer"},
		{"slice", []any{out, []float32{1}, int32(n)}, "argument 1"},
	} {
		err := f.Launch(s, cfg, c.args...)
		errorIs(t, err, module.ErrArgs, c.name)
		if hasError(t, err, c.name) {
			contains(t, err.Error(), c.says, c.name)
			contains(t, err.Error(), segscale.Name, c.name)
		}
	}
	err = f.Launch(s, cfg, out, freed, int32(n))
	errorIs(t, err, driver.ErrClosed, "a freed buffer is a closed object")

	// An out-of-range Slice is an error and makes no view: there is no
	// broken buffer to pass to a launch.
	broken, err := in.Slice(0, 2*n)
	errorIs(t, err, driver.ErrInvalidValue, "an out-of-range Slice")
	isNil(t, broken)
	must(t, s.Synchronize())
	equal(t, memRead(t, out), memFilled(n, float32(-7)), "nothing was launched")

	// A NULL pointer is passed on purpose as uintptr(0): the kernel is not
	// launched here (it would fault), only the arguments are prepared.
	_, err = f.Args(out, uintptr(0), int32(n))
	noError(t, err)
}

func testModuleConfigChecks(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	f, err := Kernels(t, ctx).Function(kernels.Add1)
	must(t, err)
	const n = 32
	p := memAlloc[float32](t, ctx, n)
	must(t, memory.CopyToDevice(p, memFilled(n, float32(0))))
	for name, cfg := range map[string]module.Config{
		"zero config":      {},
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
		errorIs(t, err, module.ErrConfig, name)
		errorIs(t, err, driver.ErrInvalidValue, name)
	}
	// An empty grid is the empty launch: checked, and nothing launched
	// (the driver is not asked; it would refuse the grid).
	for name, cfg := range map[string]module.Config{
		"zero grid":     {Grid: module.Dim(0), Block: module.Dim(32)},
		"cover nothing": {Grid: module.Cover(0, 32), Block: module.Dim(32)},
		"for no elems":  module.ForElems(0),
		"zero grid z":   {Grid: module.Dim(4, 4, 0), Block: module.Dim(32)},
	} {
		noError(t, f.Launch(s, cfg, p, int32(n)), name)
		errorIs(t, f.Launch(s, cfg, p, 1.5), module.ErrArgs, name+", the arguments still checked")
	}
	// More shared memory than the device allows: the driver refuses the
	// function attribute.
	err = f.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(32), SharedMem: 4 << 20}, p, int32(n))
	errorIs(t, err, driver.ErrInvalidValue)
	if errors.Is(err, module.ErrConfig) {
		t.Errorf("got %v, which is module.ErrConfig", err)
	}

	// A closed stream, a nil stream.
	closed, err := stream.New(ctx, stream.Options{})
	must(t, err)
	must(t, closed.Close())
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(n)}
	errorIs(t, f.Launch(closed, cfg, p, int32(n)), driver.ErrClosed)
	errorIs(t, f.Launch(nil, cfg, p, int32(n)), driver.ErrInvalidValue)
	must(t, s.Synchronize())
	equal(t, memRead(t, p), memFilled(n, float32(0)), "nothing was launched")
}

func testModuleWrongContext(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	f, err := Kernels(t, ctx).Function(kernels.Add1)
	must(t, err)
	const n = 32
	p := memAlloc[float32](t, ctx, n)
	must(t, memory.CopyToDevice(p, memFilled(n, float32(0))))
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(n)}

	// A stream of another context of the same device (the driver would
	// answer CUDA_ERROR_INVALID_HANDLE).
	other, err := ctx.Device().NewContext(driver.ContextOptions{})
	must(t, err)
	t.Cleanup(func() { other.Close() })
	so, err := stream.New(other, stream.Options{})
	must(t, err)
	t.Cleanup(func() { so.Close() })
	err = f.Launch(so, cfg, p, int32(n))
	errorIs(t, err, driver.ErrWrongContext)
	errorIs(t, f.Launch(special(t, stream.Default, other), cfg, p, int32(n)), driver.ErrWrongContext)

	// Memory of another device.
	if count, err := drv.DeviceCount(); err == nil && count > 1 {
		dev1, err := drv.Device(1)
		must(t, err)
		ctx1, err := dev1.PrimaryContext()
		must(t, err)
		t.Cleanup(func() { ctx1.Close() })
		q := memAlloc[float32](t, ctx1, n)
		err = f.Launch(s, cfg, q, int32(n))
		errorIs(t, err, driver.ErrWrongContext)
		errorIs(t, err, module.ErrArgs)
	}
	must(t, s.Synchronize())
	equal(t, memRead(t, p), memFilled(n, float32(0)), "nothing was launched")
}

func testModulePrepared(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	m := modSegscale(t, ctx, module.Options{})
	f, err := m.Function(segscale.Name)
	must(t, err)
	const n = 1000
	host := segscale.Input(n)
	in := memAlloc[float32](t, ctx, n)
	out := memAlloc[float32](t, ctx, n)
	out2 := memAlloc[float32](t, ctx, n)
	must(t, memory.CopyToDevice(in, host))
	must(t, memory.CopyToDevice(out2, memFilled(n, float32(-1))))
	cfg := module.Config{Grid: module.Cover(n, 128), Block: module.Dim(128)}

	args, err := f.Args(out, in, int32(n))
	must(t, err)
	equal(t, args.Len(), 3)
	isSame(t, args.Function(), f)
	must(t, f.LaunchArgs(s, cfg, args))
	must(t, s.Synchronize())
	want := make([]float32, n)
	segscale.Reference(want, host)
	must(t, segscale.Compare(memRead(t, out), want))

	// Set changes an argument in place: the output buffer and n.
	must(t, args.Set(0, out2))
	must(t, args.Set(2, int32(n/2)))
	must(t, f.LaunchArgs(s, cfg, args))
	must(t, s.Synchronize())
	half := append(make([]float32, n/2), memFilled(n-n/2, float32(-1))...)
	segscale.Reference(half[:n/2], host[:n/2])
	must(t, segscale.Compare(memRead(t, out2), half))

	// A refused Set keeps the old value.
	errorIs(t, args.Set(2, float64(1)), module.ErrArgs)
	errorIs(t, args.Set(3, int32(1)), module.ErrArgs)
	errorIs(t, args.Set(-1, int32(1)), module.ErrArgs)
	errorIs(t, args.Set(0, nil), module.ErrArgs)
	must(t, f.LaunchArgs(s, cfg, args))
	must(t, s.Synchronize())
	must(t, segscale.Compare(memRead(t, out2), half))

	// Arguments are checked when prepared, and belong to their kernel.
	_, err = f.Args(out, in)
	errorIs(t, err, module.ErrArgs)
	bad, err := f.Args(out, in, 1.0)
	errorIs(t, err, module.ErrArgs)
	isNil(t, bad, "a failed preparation returns no Args")
	// No Args: launching with none launches nothing.
	errorIs(t, f.LaunchArgs(s, cfg, bad), module.ErrArgs)
	errorIs(t, bad.Set(0, out), driver.ErrInvalidValue)
	isZero(t, bad.Len())
	add1, err := Kernels(t, ctx).Function(kernels.Add1)
	must(t, err)
	errorIs(t, add1.LaunchArgs(s, cfg, args), module.ErrArgs)
	errorIs(t, f.LaunchArgs(s, cfg, nil), module.ErrArgs)
	errorIs(t, f.LaunchArgs(s, module.Config{}, args), module.ErrConfig)
}

func testModuleAttributes(t *testing.T, drv *driver.Driver) {
	ctx, _ := modSetup(t, drv)
	f, err := Kernels(t, ctx).Function(kernels.Add1)
	must(t, err)
	at, err := f.Attributes()
	must(t, err)
	major, minor, err := ctx.Device().ComputeCapability()
	must(t, err)
	arch := 10*major + minor
	compare(t, at.MaxThreadsPerBlock, ">", 0)
	compare(t, at.MaxThreadsPerBlock, "<=", 1024)
	compare(t, at.NumRegs, ">", 0)
	equal(t, at.PTXVersion, arch)
	equal(t, at.BinaryVersion, arch)
	equal(t, at.SharedSizeBytes, 0, "add1 has no static shared memory")
	equal(t, at.MaxDynamicSharedSize, 48<<10, "48 KiB until raised")
	regs, err := f.Attribute(module.FuncNumRegs)
	must(t, err)
	equal(t, regs, at.NumRegs)

	must(t, f.SetMaxDynamicSharedMemory(100000))
	v, err := f.Attribute(module.FuncMaxDynamicSharedSize)
	must(t, err)
	equal(t, v, 100000)
	optin, err := ctx.Device().Attribute(driver.AttrMaxSharedMemoryPerBlockOptin)
	must(t, err)
	errorIs(t, f.SetMaxDynamicSharedMemory(optin+1), driver.ErrInvalidValue)
	errorIs(t, f.SetMaxDynamicSharedMemory(-1), driver.ErrInvalidValue)
	v, err = f.Attribute(module.FuncMaxDynamicSharedSize)
	must(t, err)
	equal(t, v, 100000, "a refused value changes nothing")
	_, err = f.Attribute(module.FunctionAttribute(9999))
	errorIs(t, err, driver.ErrInvalidValue)
}

func testModuleDynamicShared(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	f, err := Kernels(t, ctx).Function("smem_copy")
	must(t, err)
	const n = 1000
	in := memAlloc[float32](t, ctx, n)
	out := memAlloc[float32](t, ctx, n)
	must(t, memory.CopyToDevice(in, memIota(n, 1)))
	// 64 KiB of dynamic shared memory is over the default 48 KiB: Launch
	// raises the function's limit by itself.
	cfg := module.Config{Grid: module.Cover(n, 256), Block: module.Dim(256), SharedMem: 64 << 10}
	must(t, f.Launch(s, cfg, out, in, int32(n)))
	must(t, s.Synchronize())
	want := memIota(n, 1)
	for i := range want {
		want[i] *= 3
	}
	equal(t, memRead(t, out), want)
	v, err := f.Attribute(module.FuncMaxDynamicSharedSize)
	must(t, err)
	equal(t, v, 64<<10)

	// Under the limit now set, and at 48 KiB, no attribute change is needed.
	cfg.SharedMem = 32 << 10
	must(t, f.Launch(s, cfg, out, in, int32(n)))
	must(t, s.Synchronize())
	v, err = f.Attribute(module.FuncMaxDynamicSharedSize)
	must(t, err)
	equal(t, v, 64<<10, "a smaller launch does not lower the limit")

	// Two names of one kernel (a name expression and its lowered name) give
	// two Functions of one CUfunction, whose attribute the driver keeps
	// once: what one sets, the other knows, so a launch through the other
	// does not lower the limit behind the first one's back.
	k := Kernels(t, ctx)
	byExpr, err := k.Function(kernels.FillFloat)
	must(t, err)
	lowered, ok := k.LoweredName(kernels.FillFloat)
	mustTrue(t, ok)
	byLowered, err := k.Function(lowered)
	must(t, err)
	if byExpr == byLowered {
		t.Fatal("the expression and the lowered name give the same *module.Function")
	}
	mustEqual(t, byLowered.Handle(), byExpr.Handle(), "one CUfunction")
	must(t, byExpr.SetMaxDynamicSharedMemory(100000))
	fillCfg := module.Config{Grid: module.Cover(n, 256), Block: module.Dim(256), SharedMem: 64 << 10}
	must(t, byLowered.Launch(s, fillCfg, out, float32(5), int32(n)))
	v, err = byExpr.Attribute(module.FuncMaxDynamicSharedSize)
	must(t, err)
	equal(t, v, 100000, "the other name's 64 KiB launch kept the limit set through the first")
	fillCfg.SharedMem = 90000
	must(t, byExpr.Launch(s, fillCfg, out, float32(6), int32(n)), "within the limit set")
	must(t, s.Synchronize())
	equal(t, memRead(t, out), memFilled(n, float32(6)))
}

func testModuleOccupancy(t *testing.T, drv *driver.Driver) {
	ctx, _ := modSetup(t, drv)
	f, err := Kernels(t, ctx).Function(kernels.Add1)
	must(t, err)
	sms, err := ctx.Device().Attribute(driver.AttrMultiprocessorCount)
	must(t, err)

	minGrid, block, err := f.MaxPotentialBlockSize(0, 0)
	must(t, err)
	compare(t, block, ">", 0)
	compare(t, block, "<=", 1024)
	isZero(t, block%32, "a whole number of warps")
	compare(t, minGrid, ">=", sms, "at least a block per multiprocessor")

	minGrid, block, err = f.MaxPotentialBlockSize(0, 100)
	must(t, err)
	compare(t, block, "<=", 100, "the limit caps the block size")
	isZero(t, block%32, "a whole number of warps under the limit")
	compare(t, minGrid, ">=", sms)

	_, _, err = f.MaxPotentialBlockSize(-1, 0)
	errorIs(t, err, driver.ErrInvalidValue)
	_, _, err = f.MaxPotentialBlockSize(0, -1)
	errorIs(t, err, driver.ErrInvalidValue)
}
