package conformance

import (
	"runtime"
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/graph"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// testGraphCaptureModes: the capture modes' rules for "potentially unsafe"
// calls (cuStreamBeginCapture's documentation, and what the H200 with
// driver 580 does): inside a global capture, an allocation (cuMemAlloc,
// cuMemHostAlloc) or a synchronization of the legacy stream (which
// memory.CopyToDevice does after cuMemcpyHtoD) fails with
// STREAM_CAPTURE_UNSUPPORTED on the capturing thread and on any other, and
// the capture is invalidated; a thread-local capture prohibits them only on
// its own thread; a relaxed capture nowhere. A synchronous copy to the host
// (cuMemcpyDtoH) is no such call: with a non-blocking stream capturing (the
// legacy stream does not encompass it) it succeeds in every mode.
// Asynchronous work on the capturing stream is captured in every mode.
func testGraphCaptureModes(t *testing.T, drv *driver.Driver) {
	f := newGraphFixture(t, drv)
	// A non-blocking stream: the legacy stream (where synchronous copies
	// run) never depends on it; see capture-implicit for a blocking one.
	s := newStream(t, f.ctx, stream.Options{Flags: stream.NonBlocking})
	defer endAnyCapture(t, s)
	host := make([]float32, f.buf.Len())

	calls := []struct {
		name   string
		unsafe bool
		do     func() error
	}{
		{"memory.Alloc", true, func() error {
			b, err := memory.Alloc[float32](f.ctx, 16)
			if err == nil {
				must(t, b.Close())
			}
			return err
		}},
		{"memory.AllocHost", true, func() error {
			b, err := memory.AllocHost[float32](f.ctx, 16)
			if err == nil {
				must(t, b.Close())
			}
			return err
		}},
		{"memory.CopyToDevice", true, func() error { return memory.CopyToDevice(f.buf, host) }},
		{"memory.CopyToHost", false, func() error { return memory.CopyToHost(host, f.buf) }},
	}
	// onOtherThread runs do on a goroutine locked to another OS thread.
	onOtherThread := func(do func() error) error {
		res := make(chan error, 1)
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			res <- do()
		}()
		return <-res
	}
	// run runs a subtest on one OS thread (t.Run's goroutine is not the
	// caller's): Begin and End must be on one thread.
	run := func(name string, fn func(t *testing.T)) {
		t.Run(name, func(t *testing.T) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			defer endAnyCapture(t, s) // a failed check leaves no capture for the next
			fn(t)
		})
	}
	// allowed checks a call that the mode permits: it succeeds and the
	// capture ends with a graph.
	allowed := func(t *testing.T, mode graph.Mode, do func() error, what string) {
		t.Helper()
		must(t, graph.BeginCapture(s, mode))
		must(t, f.addOnes(t, s, f.buf, 1))
		must(t, do(), what)
		g, err := graph.EndCapture(s)
		must(t, err, "EndCapture after "+what)
		must(t, g.Close())
	}
	// refused checks a call that the mode prohibits: it fails, and the
	// capture is invalidated.
	refused := func(t *testing.T, mode graph.Mode, do func() error, what string) {
		t.Helper()
		must(t, graph.BeginCapture(s, mode))
		must(t, f.addOnes(t, s, f.buf, 1))
		mustIs(t, do(), graph.ErrCaptureUnsupported, what)
		st, _, err := graph.CaptureStatus(s)
		must(t, err)
		equal(t, st, graph.Invalidated, "status after "+what)
		g, err := graph.EndCapture(s)
		mustIs(t, err, graph.ErrCaptureInvalidated, "EndCapture after "+what)
		isNil(t, g, "no graph from an invalidated capture")
	}
	for _, c := range calls {
		other := func() error { return onOtherThread(c.do) }
		check := allowed
		if c.unsafe {
			check = refused
		}
		run("global/"+c.name, func(t *testing.T) { check(t, graph.Global, c.do, c.name+" in a global capture") })
		run("global-other-thread/"+c.name, func(t *testing.T) {
			check(t, graph.Global, other, c.name+" on another thread during a global capture")
		})
		run("thread-local/"+c.name, func(t *testing.T) {
			check(t, graph.ThreadLocal, c.do, c.name+" on the thread of a thread-local capture")
		})
		run("thread-local-other-thread/"+c.name, func(t *testing.T) {
			allowed(t, graph.ThreadLocal, other, c.name+" on another thread during a thread-local capture")
		})
		run("relaxed/"+c.name, func(t *testing.T) { allowed(t, graph.Relaxed, c.do, c.name+" in a relaxed capture") })
	}
	must(t, s.Synchronize())
}

// testGraphCaptureImplicit: while a blocking stream captures (in any mode),
// work on the legacy stream of its context would depend on the capture: a
// synchronous copy, and work queued on the legacy stream, fail with
// STREAM_CAPTURE_IMPLICIT and invalidate the capture. A non-blocking stream
// does not encompass the capture: its work is not refused.
func testGraphCaptureImplicit(t *testing.T, drv *driver.Driver) {
	runtime.LockOSThread() // Begin and End on one thread, as the driver requires
	defer runtime.UnlockOSThread()
	f := newGraphFixture(t, drv)
	blocking := newStream(t, f.ctx)
	defer endAnyCapture(t, blocking)
	other := newStream(t, f.ctx, stream.Options{Flags: stream.NonBlocking})
	legacy, err := stream.Legacy(f.ctx)
	must(t, err)
	defer func() { must(t, legacy.Close()) }()
	host := make([]float32, f.buf.Len())

	must(t, graph.BeginCapture(blocking, graph.Relaxed))
	must(t, f.addOnes(t, blocking, f.buf, 1))
	must(t, memory.CopyToHostAsync(other, host, f.buf))
	mustIs(t, memory.CopyToHost(host, f.buf), graph.ErrCaptureImplicit, "a synchronous copy while a blocking stream captures")
	_, err = graph.EndCapture(blocking)
	mustIs(t, err, graph.ErrCaptureInvalidated, "EndCapture after the implicit dependency")

	must(t, graph.BeginCapture(blocking, graph.Relaxed))
	mustIs(t, memory.CopyToHostAsync(legacy, host, f.buf), graph.ErrCaptureImplicit, "work on the legacy stream while a blocking stream captures")
	_, err = graph.EndCapture(blocking)
	mustIs(t, err, graph.ErrCaptureInvalidated, "EndCapture after the legacy stream's work")
	must(t, other.Synchronize())
	must(t, blocking.Synchronize())
}
