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
// calls (cuStreamBeginCapture's documentation; the H200 agrees): inside a
// global capture, a synchronous allocation or copy fails with
// STREAM_CAPTURE_UNSUPPORTED on the capturing thread and on any other, and
// the capture is invalidated; a thread-local capture prohibits them only on
// its own thread; a relaxed capture nowhere. Asynchronous work on the
// capturing stream is captured in every mode.
func testGraphCaptureModes(t *testing.T, drv *driver.Driver) {
	f := newGraphFixture(t, drv)
	// A non-blocking stream: the legacy stream (where synchronous copies
	// run) never depends on it; see capture-implicit for a blocking one.
	s := newStream(t, f.ctx, stream.Options{Flags: stream.NonBlocking})
	defer endAnyCapture(t, s)
	host := make([]float32, f.buf.Len())

	unsafeCalls := []struct {
		name string
		do   func() error
	}{
		{"memory.Alloc", func() error {
			b, err := memory.Alloc[float32](f.ctx, 16)
			if err == nil {
				must(t, b.Close())
			}
			return err
		}},
		{"memory.CopyToDevice", func() error { return memory.CopyToDevice(f.buf, host) }},
		{"memory.CopyToHost", func() error { return memory.CopyToHost(host, f.buf) }},
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
			fn(t)
		})
	}
	for _, call := range unsafeCalls {
		run("global/"+call.name, func(t *testing.T) {
			must(t, graph.BeginCapture(s, graph.Global))
			must(t, f.addOnes(t, s, f.buf, 1))
			mustIs(t, call.do(), graph.ErrCaptureUnsupported, call.name+" inside a global capture")
			st, _, err := graph.CaptureStatus(s)
			must(t, err)
			equal(t, st, graph.Invalidated, "status after "+call.name)
			g, err := graph.EndCapture(s)
			mustIs(t, err, graph.ErrCaptureInvalidated, "EndCapture after "+call.name)
			isNil(t, g, "no graph from an invalidated capture")
		})
		run("global-other-thread/"+call.name, func(t *testing.T) {
			must(t, graph.BeginCapture(s, graph.Global))
			mustIs(t, onOtherThread(call.do), graph.ErrCaptureUnsupported, call.name+" on another thread during a global capture")
			_, err := graph.EndCapture(s)
			mustIs(t, err, graph.ErrCaptureInvalidated, "EndCapture after "+call.name+" on another thread")
		})
		run("thread-local-other-thread/"+call.name, func(t *testing.T) {
			must(t, graph.BeginCapture(s, graph.ThreadLocal))
			must(t, f.addOnes(t, s, f.buf, 1))
			must(t, onOtherThread(call.do))
			g, err := graph.EndCapture(s)
			must(t, err)
			must(t, g.Close())
		})
		run("thread-local/"+call.name, func(t *testing.T) {
			must(t, graph.BeginCapture(s, graph.ThreadLocal))
			mustIs(t, call.do(), graph.ErrCaptureUnsupported, call.name+" on the thread of a thread-local capture")
			_, err := graph.EndCapture(s)
			mustIs(t, err, graph.ErrCaptureInvalidated, "EndCapture after "+call.name)
		})
		run("relaxed/"+call.name, func(t *testing.T) {
			must(t, graph.BeginCapture(s, graph.Relaxed))
			must(t, f.addOnes(t, s, f.buf, 1))
			must(t, call.do())
			g, err := graph.EndCapture(s)
			must(t, err)
			must(t, g.Close())
		})
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
