package cudatest

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// Foreign makes CUDA objects the way another library sharing the process
// would (a C library, the CUDA runtime, PyTorch): raw driver handles that
// this module did not make and does not own, for testing the code that
// wraps them (stream.Wrap, stream.WrapEvent, memory.Borrow,
// driver.WrapContext). It works on the fake and on the GPU alike. Every
// object it makes is destroyed at the end of the test (after the test's
// own cleanups, which run first: wrappers detach before their objects go),
// as the owning library would destroy it; the test fails if that fails.
type Foreign struct {
	t    testing.TB
	ctx  *core.Context
	hold *core.Hold // keeps the context until the last object is destroyed
}

// NewForeign returns a maker of foreign objects in ctx's context. It holds
// the context, as every object made in it does, until the end of the test
// (after the foreign objects are destroyed): the test may close ctx when
// it likes, in a defer or a cleanup registered before or after NewForeign.
func NewForeign(t testing.TB, ctx *driver.Context) *Foreign {
	t.Helper()
	c := core.ContextOf(ctx)
	if c == nil || ctx.Closed() {
		t.Fatalf("cudatest.NewForeign: %v is nil or closed", ctx)
	}
	h, err := c.Hold()
	if err != nil {
		t.Fatalf("cudatest.NewForeign: %v", err)
	}
	t.Cleanup(func() { // registered first: runs after every object's cleanup
		if err := h.Close(nil); err != nil {
			t.Errorf("cudatest.Foreign: letting go of %v: %v", ctx, err)
		}
	})
	return &Foreign{t: t, ctx: c, hold: h}
}

// do runs call with the context current on a locked OS thread, as the other
// library would, and fails the test when it fails.
func (f *Foreign) do(what string, call func(api backend.API) error) {
	f.t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := f.hold.Do(call); err != nil {
		f.t.Fatalf("cudatest.Foreign: %s: %v", what, err)
	}
}

// later destroys an object at the end of the test, with the context
// current.
func (f *Foreign) later(what string, destroy func(api backend.API) error) {
	f.t.Cleanup(func() { f.do("destroying the "+what, destroy) })
}

// Stream creates a stream (cuStreamCreateWithPriority; non-blocking if
// asked) and returns its handle.
func (f *Foreign) Stream(nonBlocking bool) uintptr {
	f.t.Helper()
	var flags uint32
	if nonBlocking {
		flags = backend.StreamNonBlocking
	}
	var h uintptr
	f.do("cuStreamCreateWithPriority", func(api backend.API) (err error) {
		h, err = api.StreamCreateWithPriority(flags, 0)
		return err
	})
	f.later("stream", func(api backend.API) error { return api.StreamDestroy(h) })
	return h
}

// Event creates an event (cuEventCreate, timing disabled) and returns its
// handle.
func (f *Foreign) Event() uintptr {
	f.t.Helper()
	var h uintptr
	f.do("cuEventCreate", func(api backend.API) (err error) {
		h, err = api.EventCreate(backend.EventDisableTiming)
		return err
	})
	f.later("event", func(api backend.API) error { return api.EventDestroy(h) })
	return h
}

// Alloc allocates n bytes of device memory (cuMemAlloc) and returns its
// address.
func (f *Foreign) Alloc(n int) uintptr {
	f.t.Helper()
	if n <= 0 {
		f.t.Fatalf("cudatest.Foreign.Alloc: %d bytes", n)
	}
	var p uintptr
	f.do(fmt.Sprintf("cuMemAlloc(%d)", n), func(api backend.API) (err error) {
		p, err = api.MemAlloc(uintptr(n))
		return err
	})
	f.later("allocation", func(api backend.API) error { return api.MemFree(p) })
	return p
}

// Context creates a context of its own on ctx's device (cuCtxCreate; the
// calling thread's current context is left as it was) and returns its
// handle.
func (f *Foreign) Context() uintptr {
	f.t.Helper()
	var h uintptr
	f.do("cuCtxCreate", func(api backend.API) error {
		dev, err := api.CtxGetDevice()
		if err != nil {
			return err
		}
		if h, err = api.CtxCreate(0, dev); err != nil {
			return err
		}
		_, err = api.CtxPopCurrent() // cuCtxCreate made it current
		return err
	})
	f.t.Cleanup(func() {
		if err := f.ctx.API.CtxDestroy(h); err != nil {
			f.t.Errorf("cudatest.Foreign: destroying the context: %v", err)
		}
	})
	return h
}
