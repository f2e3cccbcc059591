package conformance

import (
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/stream"
)

// streamContext retains device i's primary context for a stream or event
// case and releases it at the end of the test.
func streamContext(t *testing.T, drv *driver.Driver, i int) *driver.Context {
	t.Helper()
	dev, err := drv.Device(i)
	must(t, err)
	ctx, err := dev.PrimaryContext()
	must(t, err)
	t.Cleanup(func() { must(t, ctx.Close()) })
	return ctx
}

// streamOwnContext creates a context of its own on device i, destroyed at
// the end of the test.
func streamOwnContext(t *testing.T, drv *driver.Driver, i int) *driver.Context {
	t.Helper()
	dev, err := drv.Device(i)
	must(t, err)
	ctx, err := dev.NewContext(driver.ContextOptions{})
	must(t, err)
	t.Cleanup(func() { must(t, ctx.Close()) })
	return ctx
}

// rawStream creates a stream the way another library would: raw driver
// calls under its own binding. It is destroyed once, at the end of the test
// (after the cleanups registered later, such as the wrappers' Close).
func rawStream(t *testing.T, ctx *driver.Context, flags uint32, priority int) uintptr {
	t.Helper()
	b, err := bindCtx(ctx)
	must(t, err)
	h, r := ctxAPI(ctx).StreamCreateWithPriority(flags, priority)
	b.Unbind()
	must(t, r)
	t.Cleanup(func() { must(t, ctxAPI(ctx).StreamDestroy(h)) })
	return h
}

// rawEvent creates an event with raw driver calls, destroyed once at the end
// of the test.
func rawEvent(t *testing.T, ctx *driver.Context, flags uint32) uintptr {
	t.Helper()
	b, err := bindCtx(ctx)
	must(t, err)
	h, r := ctxAPI(ctx).EventCreate(flags)
	b.Unbind()
	must(t, r)
	t.Cleanup(func() { must(t, ctxAPI(ctx).EventDestroy(h)) })
	return h
}

// rawAlloc allocates n bytes of device memory in ctx with raw driver calls
// (the memory package is not used here), freed at the end of the test.
func rawAlloc(t testing.TB, ctx *driver.Context, n uintptr) uintptr {
	t.Helper()
	b, err := bindCtx(ctx)
	must(t, err)
	p, r := ctxAPI(ctx).MemAlloc(n)
	b.Unbind()
	must(t, r)
	t.Cleanup(func() {
		b, err := bindCtx(ctx)
		must(t, err)
		defer b.Unbind()
		must(t, ctxAPI(ctx).MemFree(p))
	})
	return p
}

// newStream creates an owned stream closed at the end of the test.
func newStream(t *testing.T, ctx *driver.Context, opts ...stream.Options) *stream.Stream {
	t.Helper()
	var o stream.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	s, err := stream.New(ctx, o)
	must(t, err)
	t.Cleanup(func() { must(t, s.Close()) })
	return s
}

// newEvent creates an owned event closed at the end of the test.
func newEvent(t *testing.T, ctx *driver.Context, flags ...stream.EventFlag) *stream.Event {
	t.Helper()
	var f stream.EventFlag
	for _, x := range flags {
		f |= x
	}
	ev, err := stream.NewEvent(ctx, stream.EventOptions{Flags: f})
	must(t, err)
	t.Cleanup(func() { must(t, ev.Close()) })
	return ev
}

// readU32 copies the uint32 at device pointer p to the host on s and waits
// for it.
func readU32(t *testing.T, s *stream.Stream, p uintptr) uint32 {
	t.Helper()
	var v uint32
	b, err := use(s)
	must(t, err)
	r := ctxAPI(s.Context()).MemcpyDtoHAsync(unsafe.Pointer(&v), p, 4, s.Handle())
	b.Unbind()
	must(t, r)
	must(t, s.Synchronize())
	return v
}

// memsetU32 queues a memset of n uint32 at p to v on s.
func memsetU32(t *testing.T, s *stream.Stream, p uintptr, v uint32, n uintptr) {
	t.Helper()
	b, err := use(s)
	must(t, err)
	defer b.Unbind()
	must(t, ctxAPI(s.Context()).MemsetD32Async(p, v, n, s.Handle()))
}

// gate holds up s: work queued on s after it does not run until release is
// called, so that a test can see it pending. On a backend that runs work
// asynchronously (a GPU: callbacks run on the driver's own thread) it is a
// host callback that blocks until release. On a backend that runs work only
// when the host forces it (the fake: a query runs one item, a synchronize
// all), nothing runs by itself anyway, and the gate is a callback that
// returns at once, which keeps the stream's queue non-empty. release is
// idempotent and also runs at the end of the test, so a failing test never
// leaves a driver thread blocked. Before release, do not synchronize s, or
// an event recorded on it after the gate.
func gate(t *testing.T, s *stream.Stream) (release func()) {
	t.Helper()
	if !runsAlone(t, s.Context()) {
		must(t, s.Callback(func() {}))
		return func() {}
	}
	ch := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(ch) }) }
	must(t, s.Callback(func() {
		select {
		case <-ch:
		case <-time.After(time.Minute): // never hang a driver thread for good
		}
	}))
	t.Cleanup(release)
	return release
}

// runsAlone reports whether the backend of ctx runs queued work by itself,
// with nothing forcing it: whether a host callback on an idle stream runs
// within a second with no synchronize or query. The answer is kept per
// driver.
func runsAlone(t *testing.T, ctx *driver.Context) bool {
	t.Helper()
	if v, ok := runsAloneCache.Load(ctx.Driver()); ok {
		return v.(bool)
	}
	s, err := stream.New(ctx, stream.Options{})
	must(t, err)
	defer func() { must(t, s.Close()) }()
	ran := make(chan struct{})
	must(t, s.Callback(func() { close(ran) }))
	alone := false
	select {
	case <-ran:
		alone = true
	case <-time.After(time.Second):
	}
	must(t, s.Synchronize())
	runsAloneCache.Store(ctx.Driver(), alone)
	return alone
}

var runsAloneCache sync.Map // *driver.Driver -> bool

// ptrU32 is the host address of v, for raw copies.
func ptrU32(v *uint32) unsafe.Pointer { return unsafe.Pointer(v) }

// special returns one of the special streams of ctx (stream.Default,
// stream.Legacy, stream.PerThread), closed at the end of the test.
func special(t testing.TB, of func(*driver.Context) (*stream.Stream, error), ctx *driver.Context) *stream.Stream {
	t.Helper()
	s, err := of(ctx)
	must(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// use binds the stream's context for raw calls on a special stream, whose
// handle the driver resolves through the current context; other streams
// need no binding.
func use(s *stream.Stream) (binding, error) {
	if s.Handle() > backend.StreamPerThread {
		return binding{}, nil
	}
	return bindCtx(s.Context())
}
