package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// testWaitKernel: a wait with a deadline returns at its deadline while a
// long kernel runs (a query never blocks, on the driver or on the fake,
// which runs the kernel while the host polls), and the kernel still
// finishes: for a stream, an event and the context.
func testWaitKernel(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	spin, err := Kernels(t, ctx).Function(kernels.Spin)
	must(t, err)
	s := newStream(t, ctx, stream.Options{Flags: stream.NonBlocking})
	ev := newEvent(t, ctx, stream.DisableTiming)
	const long = 600 * time.Millisecond
	for _, w := range []struct {
		name string
		wait func(context.Context) error
	}{
		{"stream", s.SynchronizeContext},
		{"event", func(c context.Context) error { return ev.SynchronizeContext(c) }},
		{"context", ctx.SynchronizeContext},
	} {
		t.Run(w.name, func(t *testing.T) {
			must(t, spin.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(1)}, uint64(long)))
			must(t, ev.Record(s))
			start := time.Now()
			errorIs(t, w.wait(timeout(t, 50*time.Millisecond)), context.DeadlineExceeded)
			took := time.Since(start)
			compare(t, took, "<", long/2, "the wait returned at its deadline, not after the kernel")
			done, err := s.Query()
			must(t, err)
			isFalse(t, done, "the kernel still runs")
			must(t, w.wait(timeout(t, time.Minute)), "the kernel finishes")
			compare(t, time.Since(start), ">=", long*9/10, "the kernel ran its time")
		})
	}
}
