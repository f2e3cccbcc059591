package conformance

import (
	"errors"
	"strings"
	"testing"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
)

// testModulesExt checks what modules do beyond compile, load and launch:
// the JIT's logs, linking, device globals, launches with clusters and
// cooperative grids, and their occupancy.
func testModulesExt(t *testing.T, drv *driver.Driver) {
	t.Run("jit-log", func(t *testing.T) { testModuleJITLog(t, drv) })
	t.Run("link", func(t *testing.T) { testModuleLink(t, drv) })
	t.Run("global", func(t *testing.T) { testModuleGlobal(t, drv) })
	t.Run("cluster", func(t *testing.T) { testModuleCluster(t, drv) })
	t.Run("cooperative", func(t *testing.T) { testModuleCooperative(t, drv) })
	t.Run("occupancy-ex", func(t *testing.T) { testModuleOccupancyEx(t, drv) })
	t.Run("toolkit-headers", func(t *testing.T) { testModuleToolkitHeaders(t, drv) })
	t.Run("library", func(t *testing.T) { testModuleLibrary(t, drv) })
	t.Run("library-refusals", func(t *testing.T) { testModuleLibraryRefusals(t, drv) })
}

// badPTX is PTX whose kernel's parameter list ends in a comma: the driver's
// JIT refuses it with CUDA_ERROR_INVALID_PTX and says why in its error log.
const badPTX = `.version 7.8
.target sm_90
.address_size 64

.visible .entry broken(
	.param .u64 broken_param_0,
)
{
	ret;
}
`

// A PTX image the driver refuses comes back as a *module.LoadError with the
// JIT's error log; one it takes gives a module whose JITLog may be read.
func testModuleJITLog(t *testing.T, drv *driver.Driver) {
	ctx, _ := modSetup(t, drv)
	_, err := module.Load(ctx, []byte(badPTX))
	var le *module.LoadError
	mustAs(t, err, &le)
	errorIs(t, err, driver.ErrInvalidPTX)
	isTrue(t, strings.TrimSpace(le.Log) != "", "the error log says why: %q", le.Log)
	contains(t, err.Error(), strings.TrimSpace(le.Log), "the error prints the log")
	isTrue(t, strings.HasPrefix(err.Error(), "module.Load: "), "%q", err.Error())

	m, err := module.Load(ctx, modSegscale(t, ctx, module.Options{Arch: "compute_" + modArch(t, ctx)}).Image())
	must(t, err)
	t.Logf("JIT info log: %q", m.JITLog())
	must(t, m.Close())
}

// Two PTX modules linked into one: the kernels of both launch from it.
func testModuleLink(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	virtual := module.Options{Arch: "compute_" + modArch(t, ctx)} // PTX images
	seg := modSegscale(t, ctx, virtual)
	virtual.NameExpressions, virtual.NoCache = []string{kernels.FillFloat}, true
	ks, err := module.Compile(ctx, kernels.Source, virtual)
	must(t, err)
	defer ks.Close()
	m, err := module.Link(ctx,
		module.LinkInput{Name: "conformance_kernels.ptx", Kind: module.PTX, Data: ks.Image()},
		module.LinkInput{Name: "segment_scale.ptx", Kind: module.PTX, Data: seg.Image()})
	must(t, err)
	defer func() { must(t, m.Close()) }()

	const n = 300
	in := memAlloc[float32](t, ctx, n)
	out := memAlloc[float32](t, ctx, n)
	must(t, memory.CopyToDevice(in, memIota(n, 0)))
	add1, err := m.Function(kernels.Add1)
	must(t, err)
	scale, err := m.Function(segscale.Name)
	must(t, err)
	cfg := module.Config{Grid: module.Cover(n, 128), Block: module.Dim(128)}
	must(t, add1.Launch(s, cfg, in, int32(n)))
	must(t, scale.Launch(s, cfg, out, in, int32(n)))
	must(t, s.Synchronize())
	got := make([]float32, n)
	must(t, memory.CopyToHost(got, out))
	for i := range n {
		if want := float32(i+1) * segscale.Scale(i, n); got[i] != want {
			t.Fatalf("out[%d] = %v, want %v", i, got[i], want)
		}
	}

	_, err = module.Link(ctx, module.LinkInput{Name: "empty.ptx", Kind: module.PTX})
	errorIs(t, err, driver.ErrInvalidValue, "an input with no data")
	_, err = module.Link(ctx)
	errorIs(t, err, driver.ErrInvalidValue, "no inputs")
}

// GlobalPTX is a module with a device variable, factor (a float), and a
// kernel that reads it: scale_by(float* p, int n) multiplies p[i] by factor
// for i < n. PTX rather than CUDA C, so that the fake runs it without a Go
// body (its interpreter reads the variable as the GPU does).
const GlobalPTX = `.version 7.8
.target sm_90
.address_size 64

.visible .global .align 4 .f32 factor;

.visible .entry scale_by(
	.param .u64 scale_by_param_0,
	.param .u32 scale_by_param_1
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<5>;

	ld.param.u64 %rd1, [scale_by_param_0];
	ld.param.u32 %r2, [scale_by_param_1];
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mad.lo.s32 %r1, %r3, %r4, %r5;
	setp.ge.s32 %p1, %r1, %r2;
	@%p1 bra $L__BB0_2;
	cvta.to.global.u64 %rd2, %rd1;
	mul.wide.s32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.f32 %f1, [factor];
	ld.global.f32 %f2, [%rd4];
	mul.f32 %f3, %f2, %f1;
	st.global.f32 [%rd4], %f3;
$L__BB0_2:
	ret;
}
`

// A device variable set through Global is what the kernel reads.
func testModuleGlobal(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	if _, ok := raw(t, drv).(backend.ModuleGlobals); !ok {
		t.Skip("the backend has no backend.ModuleGlobals")
	}
	if major, _, err := ctx.Device().ComputeCapability(); err != nil || major < 9 {
		t.Skip("GlobalPTX targets sm_90")
	}
	m, err := module.Load(ctx, []byte(GlobalPTX))
	must(t, err)
	defer func() { must(t, m.Close()) }()
	factor, err := module.Global[float32](m, "factor")
	must(t, err)
	defer factor.Close()
	equal(t, factor.Len(), 1)
	must(t, memory.CopyToDevice(factor, []float32{3}))
	back := make([]float32, 1)
	must(t, memory.CopyToHost(back, factor))
	equal(t, back[0], float32(3))

	const n = 100
	p := memAlloc[float32](t, ctx, n)
	must(t, memory.CopyToDevice(p, memIota(n, 0)))
	f, err := m.Function("scale_by")
	must(t, err)
	must(t, f.Launch(s, module.Config{Grid: module.Cover(n, 64), Block: module.Dim(64)}, p, int32(n)))
	must(t, s.Synchronize())
	got := make([]float32, n)
	must(t, memory.CopyToHost(got, p))
	for i := range n {
		if got[i] != float32(3*i) {
			t.Fatalf("p[%d] = %v, want %v", i, got[i], 3*i)
		}
	}

	_, err = module.Global[float32](m, "no_such_global")
	errorIs(t, err, driver.ErrNotFound)
	_, err = module.Global[[3]float32](m, "factor")
	errorIs(t, err, driver.ErrInvalidValue, "4 bytes is no whole number of 12-byte elements")
}

// A launch in clusters of two blocks runs every block; a grid that is no
// whole number of clusters is refused before the driver.
func testModuleCluster(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	if major, _, err := ctx.Device().ComputeCapability(); err != nil || major < 9 {
		t.Skip("thread-block clusters need compute capability 9.0")
	}
	f, err := Kernels(t, ctx).Function(kernels.Add1)
	must(t, err)
	const n = 512
	p := memAlloc[float32](t, ctx, n)
	must(t, memory.CopyToDevice(p, memIota(n, 0)))
	must(t, f.Launch(s, module.Config{Grid: module.Dim(4), Block: module.Dim(128), Cluster: module.Dim(2)}, p, int32(n)))
	must(t, s.Synchronize())
	got := make([]float32, n)
	must(t, memory.CopyToHost(got, p))
	for i := range n {
		if got[i] != float32(i+1) {
			t.Fatalf("p[%d] = %v, want %v", i, got[i], i+1)
		}
	}
	err = f.Launch(s, module.Config{Grid: module.Dim(3), Block: module.Dim(128), Cluster: module.Dim(2)}, p, int32(n))
	errorIs(t, err, module.ErrConfig)
	errorIs(t, err, driver.ErrInvalidValue)
	must(t, s.Synchronize())
}

// A cooperative grid runs when it fits on the device at once, and one block
// more is CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE.
func testModuleCooperative(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	f, err := Kernels(t, ctx).Function(kernels.Add1)
	must(t, err)
	perSM, err := f.MaxActiveBlocksPerMultiprocessor(256, 0)
	must(t, err)
	sms, err := ctx.Device().Attribute(driver.AttrMultiprocessorCount)
	must(t, err)
	blocks := perSM * sms
	n := blocks * 256
	p := memAlloc[float32](t, ctx, n)
	must(t, memory.CopyToDevice(p, make([]float32, n)))
	cfg := module.Config{Grid: module.Dim(blocks), Block: module.Dim(256), Cooperative: true}
	must(t, f.Launch(s, cfg, p, int32(n)))
	must(t, s.Synchronize())
	got := make([]float32, n)
	must(t, memory.CopyToHost(got, p))
	for i := range n {
		if got[i] != 1 {
			t.Fatalf("p[%d] = %v after a cooperative launch of %d blocks, want 1", i, got[i], blocks)
		}
	}
	cfg.Grid = module.Dim(blocks + 1)
	err = f.Launch(s, cfg, p, int32(n))
	errorIs(t, err, module.ErrCooperativeLaunchTooLarge)
	must(t, s.Synchronize(), "the refused launch leaves the stream usable")
}

// The occupancy of a small kernel: whole blocks per multiprocessor, and
// clusters on devices that have them.
func testModuleOccupancyEx(t *testing.T, drv *driver.Driver) {
	ctx, _ := modSetup(t, drv)
	f, err := Kernels(t, ctx).Function(kernels.Add1)
	must(t, err)
	perThreads, err := ctx.Device().Attribute(driver.AttrMaxThreadsPerMultiprocessor)
	must(t, err)
	for _, bs := range []int{32, 256, 1024} {
		n, err := f.MaxActiveBlocksPerMultiprocessor(bs, 0)
		must(t, err)
		compare(t, n, ">=", 1, "block size %d", bs)
		compare(t, n*bs, "<=", perThreads, "block size %d: no more threads than the multiprocessor holds", bs)
	}
	_, err = f.MaxActiveBlocksPerMultiprocessor(0, 0)
	errorIs(t, err, driver.ErrInvalidValue)

	if major, _, err := ctx.Device().ComputeCapability(); err != nil || major < 9 {
		return
	}
	clusters, err := f.MaxActiveClusters(module.Config{Block: module.Dim(128), Cluster: module.Dim(2)})
	must(t, err)
	compare(t, clusters, ">=", 1)
	_, err = f.MaxActiveClusters(module.Config{Block: module.Dim(128)})
	isTrue(t, errors.Is(err, module.ErrConfig), "no cluster shape: %v", err)
}
