package conformance

import (
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// testModuleLibrary: one Library (cuLibrary, CUDA 12.0) serves two
// contexts of the device, each with its own instance: its own copy of the
// library's global, its own function, launched in its own context. The
// Library owns its instances (a Function's Module cannot be closed), and
// after its Close everything of it answers ErrClosed.
func testModuleLibrary(t *testing.T, drv *driver.Driver) {
	if _, ok := raw(t, drv).(backend.Libraries); !ok {
		t.Skip("the backend has no backend.Libraries")
	}
	if v, err := drv.Version(); err != nil || v < 12000 {
		t.Skipf("cuLibrary needs CUDA 12.0 (driver %d)", v)
	}
	ctxA, sA := modSetup(t, drv)
	if major, _, err := ctxA.Device().ComputeCapability(); err != nil || major < 9 {
		t.Skip("GlobalPTX targets sm_90")
	}
	ctxB, err := ctxA.Device().NewContext(driver.ContextOptions{})
	must(t, err)
	t.Cleanup(func() { ctxB.Close() })
	sB, err := stream.New(ctxB, stream.Options{})
	must(t, err)
	t.Cleanup(func() { sB.Close() })

	lib, err := module.LoadLibrary(ctxA, []byte(GlobalPTX))
	must(t, err)
	closed := false
	t.Cleanup(func() {
		if !closed {
			lib.Close()
		}
	})
	equal(t, lib.Kind(), module.PTX)
	equal(t, lib.Kernels(), []string{"scale_by"})
	k, err := lib.Kernel("scale_by")
	must(t, err)
	again, err := lib.Kernel("scale_by")
	must(t, err)
	isTrue(t, k == again, "one *Kernel per name")
	_, err = lib.Kernel("no_such_kernel")
	errorIs(t, err, driver.ErrNotFound)

	const n = 200
	for _, c := range []struct {
		ctx    *driver.Context
		s      *stream.Stream
		factor float32
	}{{ctxA, sA, 3}, {ctxB, sB, 5}} {
		g, err := module.LibraryGlobal[float32](lib, c.ctx, "factor")
		must(t, err)
		must(t, memory.CopyToDevice(g, []float32{c.factor}))
		must(t, g.Close())
	}
	fA, err := k.Function(ctxA)
	must(t, err)
	fB, err := lib.Function(ctxB, "scale_by")
	must(t, err)
	notEqual(t, fA.Handle(), fB.Handle(), "a function per context")
	same, err := k.Function(ctxA)
	must(t, err)
	isTrue(t, same == fA, "one *Function per context")

	for _, c := range []struct {
		ctx    *driver.Context
		s      *stream.Stream
		f      *module.Function
		factor float32
	}{{ctxA, sA, fA, 3}, {ctxB, sB, fB, 5}} {
		p := memAlloc[float32](t, c.ctx, n)
		must(t, memory.CopyToDevice(p, memIota(n, 0)))
		must(t, c.f.Launch(c.s, module.Config{Grid: module.Cover(n, 64), Block: module.Dim(64)}, p, int32(n)))
		must(t, c.s.Synchronize())
		got := make([]float32, n)
		must(t, memory.CopyToHost(got, p))
		for i := range n {
			if got[i] != c.factor*float32(i) {
				t.Fatalf("%s: p[%d] = %v, want %v: each context reads its own copy of the global", c.ctx, i, got[i], c.factor*float32(i))
			}
		}
	}

	threads, err := k.Attribute(module.FuncMaxThreadsPerBlock, ctxA.Device())
	must(t, err)
	want, err := fA.Attribute(module.FuncMaxThreadsPerBlock)
	must(t, err)
	equal(t, threads, want, "the kernel's attribute is its functions'")
	errorIs(t, fA.Module().Close(), driver.ErrInvalidValue, "the Library owns its instances")

	must(t, lib.Close())
	closed = true
	must(t, lib.Close(), "a second Close is a no-op")
	_, err = lib.Kernel("scale_by")
	errorIs(t, err, driver.ErrClosed)
	_, err = k.Function(ctxB)
	errorIs(t, err, driver.ErrClosed)
	p := memAlloc[float32](t, ctxA, n)
	errorIs(t, fA.Launch(sA, module.Config{Grid: module.Cover(n, 64), Block: module.Dim(64)}, p, int32(n)), driver.ErrClosed)
	_, err = k.Attribute(module.FuncMaxThreadsPerBlock, ctxA.Device())
	errorIs(t, err, driver.ErrClosed)
	_, err = module.LibraryGlobal[float32](lib, ctxA, "factor")
	errorIs(t, err, driver.ErrClosed)
}

// testModuleLibraryRefusals: bad input to LoadLibrary and CompileLibrary
// is refused before the driver, and loads nothing.
func testModuleLibraryRefusals(t *testing.T, drv *driver.Driver) {
	if _, ok := raw(t, drv).(backend.Libraries); !ok {
		t.Skip("the backend has no backend.Libraries")
	}
	ctx, _ := modSetup(t, drv)
	_, err := module.LoadLibrary(nil, []byte(GlobalPTX))
	errorIs(t, err, driver.ErrInvalidValue, "nil context")
	_, err = module.LoadLibrary(ctx, nil)
	errorIs(t, err, driver.ErrInvalidValue, "empty image")
	_, err = module.LoadLibrary(ctx, []byte("\x00\x00"))
	errorIs(t, err, driver.ErrInvalidValue, "only NULs")
	var nilLib *module.Library
	errorIs(t, nilLib.Close(), driver.ErrInvalidValue)
	_, err = nilLib.Kernel("k")
	errorIs(t, err, driver.ErrInvalidValue)
	_, err = (*module.LibraryKernel)(nil).Function(ctx)
	errorIs(t, err, driver.ErrInvalidValue)
}
