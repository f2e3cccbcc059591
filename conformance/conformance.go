// Package conformance is the conformance suite: behaviours every backend of
// driver/backend must show, checked the same way on the fake (in every test
// run) and on the real driver (whenever it loads). When the fake and a GPU
// disagree, the fake is fixed and a case is added here.
//
// The suite knows no implementation: [Run] drives the backend.API it is
// given through the public packages (driver, stream, memory, module, graph),
// makes "foreign" objects with raw calls on that backend itself, and checks
// for leaks through the optional backend.LeakReporter. Its kernels' sources
// are in [github.com/nocgo/cuda/conformance/kernels] and
// [github.com/nocgo/cuda/conformance/segscale]; their Go bodies for the fake
// in [github.com/nocgo/cuda/cudatest/fakekernels]. It depends on the
// standard library's testing package alone, not on testify.
//
// The suite runs in this package's own tests: on the fake in every
// configuration (two devices, NVIDIA's NVRTC, the interpreter without Go
// bodies, the pretend compiler) and on the real driver, through
// [github.com/nocgo/cuda/cudatest.RealBackend]:
//
//	go test ./conformance                              # the fake; the GPU where it loads
//	NOCGO_CUDA_REQUIRE_GPU=1 go test -run TestReal ./conformance
package conformance

import (
	"runtime"
	"sync"
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// Run runs the whole suite against a backend. It needs at least one device;
// cases that need two run only where there are two.
func Run(t *testing.T, api backend.API) {
	drv := Open(t, api)
	t.Run("errors", func(t *testing.T) { testErrors(t, drv) })
	t.Run("devices", func(t *testing.T) { testDevices(t, drv) })
	t.Run("contexts", func(t *testing.T) { testContexts(t, drv) })
	// props: device properties, context limits, primary-context flags
	t.Run("device-properties", func(t *testing.T) { testDeviceProperties(t, drv) })
	t.Run("context-limits", func(t *testing.T) { testContextLimits(t, drv) })
	t.Run("primary-flags", func(t *testing.T) { testPrimaryFlags(t, drv) })
	t.Run("streams", func(t *testing.T) { testStreams(t, drv) })
	t.Run("default-streams", func(t *testing.T) { testDefaultStreams(t, drv) })
	t.Run("events", func(t *testing.T) { testEvents(t, drv) })
	t.Run("memory", func(t *testing.T) { testMemory(t, drv) })
	t.Run("pools", func(t *testing.T) { testPools(t, drv) })
	t.Run("vmm", func(t *testing.T) { testVMM(t, drv) }) // virtual memory (vmm.go)
	t.Run("waits", func(t *testing.T) { testWaits(t, drv) })
	t.Run("peer-access", func(t *testing.T) { testPeerAccess(t, drv) })
	t.Run("memory-extras", func(t *testing.T) { testMemExtras(t, drv) })
	t.Run("copy-context", func(t *testing.T) { testMemCopyContext(t, drv) })
	t.Run("managed", func(t *testing.T) { testManaged(t, drv) })
	t.Run("host-register", func(t *testing.T) { testHostRegister(t, drv) })
	t.Run("pitched", func(t *testing.T) { testPitched(t, drv); testPitchedRows(t, drv) })
	t.Run("pitched3d", func(t *testing.T) { testPitched3D(t, drv) })
	t.Run("modules", func(t *testing.T) { testModules(t, drv) })
	t.Run("modules-ext", func(t *testing.T) { testModulesExt(t, drv) })
	t.Run("graphs", func(t *testing.T) { testGraphs(t, drv) })
	t.Run("graph-nodes", func(t *testing.T) { testGraphNodes(t, drv) })
	t.Run("stress", func(t *testing.T) { testStress(t, drv) })
	t.Run("cuda-c", func(t *testing.T) { testCUDAKernels(t, drv) })
	t.Run("interblock", func(t *testing.T) { testInterBlock(t, drv) })
	t.Run("samples", func(t *testing.T) { testSamples(t, drv) })
	t.Run("races", func(t *testing.T) { testRaces(t, drv) })
	t.Run("nvml", func(t *testing.T) { testNVML(t, drv) }) // NVML's view (nvml.go)
	t.Run("faults", func(t *testing.T) { testFaults(t, drv) })
}

// backends remembers the backend under each Driver the suite opened, for
// its raw calls.
var backends sync.Map // *driver.Driver -> backend.API

// Open returns a new Driver over api for a test (driver.New), remembered
// with its backend so that the suite's helpers that make raw calls
// (CheckStreamOrder) can make them on api. Run opens its own.
func Open(t testing.TB, api backend.API) *driver.Driver {
	t.Helper()
	drv, err := driver.New(api)
	if err != nil {
		t.Fatalf("driver.New: %v", err)
	}
	backends.Store(drv, api)
	return drv
}

// raw returns the backend under drv, for calls the public packages do not
// make (foreign objects, checks of the driver's own state).
func raw(t testing.TB, drv *driver.Driver) backend.API {
	t.Helper()
	api, ok := backends.Load(drv)
	if !ok {
		t.Fatalf("conformance: %p is not a Driver the suite opened (see Open)", drv)
	}
	return api.(backend.API)
}

// binding is a context made current with raw calls, for raw calls that need
// one.
type binding struct {
	api    backend.API
	pushed bool
}

// ctxAPI returns the backend under ctx's Driver, which the suite opened.
func ctxAPI(ctx *driver.Context) backend.API {
	api, _ := backends.Load(ctx.Driver())
	return api.(backend.API)
}

// bindCtx locks the OS thread and pushes ctx unless it is current.
func bindCtx(ctx *driver.Context) (binding, error) {
	api := ctxAPI(ctx)
	if ctx.Closed() {
		return binding{}, driver.ErrClosed
	}
	runtime.LockOSThread()
	cur, err := api.CtxGetCurrent()
	if err != nil {
		runtime.UnlockOSThread()
		return binding{}, err
	}
	if cur == ctx.Handle() {
		return binding{api: api}, nil
	}
	if err := api.CtxPushCurrent(ctx.Handle()); err != nil {
		runtime.UnlockOSThread()
		return binding{}, err
	}
	return binding{api: api, pushed: true}, nil
}

// Unbind undoes bindCtx.
func (b binding) Unbind() {
	if b.api == nil {
		return
	}
	if b.pushed {
		b.api.CtxPopCurrent()
	}
	runtime.UnlockOSThread()
}

// leaks returns what the backend reports still alive, and false when it
// cannot tell (it is no backend.LeakReporter).
func leaks(drv *driver.Driver) ([]backend.Leak, bool) {
	v, _ := backends.Load(drv)
	if r, ok := v.(backend.LeakReporter); ok {
		return r.Leaks(), true
	}
	return nil, false
}
