package conformance

import (
	"testing"
	"time"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// testDefaultStreams: CUDA's implicit orderings of the default streams. The
// per-thread default stream is a blocking stream: work on the legacy stream
// after it waits for it, and so does a synchronous copy (which runs on the
// legacy stream); a blocking stream's work waits for the legacy stream's
// earlier work. Each check puts a slow kernel first, then writes a value
// behind it, so that a missing ordering reads the old value.
func testDefaultStreams(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	spin, err := Kernels(t, ctx).Function(kernels.Spin)
	must(t, err)
	perThread, err := stream.PerThread(ctx)
	must(t, err)
	defer func() { must(t, perThread.Close()) }()
	legacy, err := stream.Legacy(ctx)
	must(t, err)
	defer func() { must(t, legacy.Close()) }()
	blocking := newStream(t, ctx)
	slow := func(s *stream.Stream) {
		t.Helper()
		must(t, spin.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(1)}, uint64(2*time.Millisecond)))
	}
	buf, err := memory.Alloc[uint32](ctx, 1)
	must(t, err)
	defer func() { must(t, buf.Close()) }()
	set := func(s *stream.Stream, v uint32) {
		t.Helper()
		must(t, memory.CopyToDeviceAsync(s, buf, []uint32{v}))
	}
	got := make([]uint32, 1)

	t.Run("sync-copy-after-per-thread", func(t *testing.T) {
		set(legacy, 0)
		slow(perThread)
		set(perThread, 1)
		must(t, memory.CopyToHost(got, buf)) // synchronous: the legacy stream
		equal(t, got[0], uint32(1), "a synchronous copy after per-thread work")
	})
	t.Run("legacy-after-per-thread", func(t *testing.T) {
		set(legacy, 0)
		slow(perThread)
		set(perThread, 2)
		must(t, memory.CopyToHostAsync(legacy, got, buf))
		must(t, legacy.Synchronize())
		equal(t, got[0], uint32(2), "the legacy stream after per-thread work")
	})
	t.Run("per-thread-after-legacy", func(t *testing.T) {
		set(legacy, 0)
		slow(legacy)
		set(legacy, 3)
		must(t, memory.CopyToHostAsync(perThread, got, buf))
		must(t, perThread.Synchronize())
		equal(t, got[0], uint32(3), "the per-thread stream after legacy work")
	})
	t.Run("blocking-after-legacy", func(t *testing.T) {
		set(legacy, 0)
		slow(legacy)
		set(legacy, 4)
		must(t, memory.CopyToHostAsync(blocking, got, buf))
		must(t, blocking.Synchronize())
		equal(t, got[0], uint32(4), "a blocking stream after legacy work")
	})
	t.Run("sync-copy-after-blocking", func(t *testing.T) {
		set(legacy, 0)
		slow(blocking)
		set(blocking, 5)
		must(t, memory.CopyToHost(got, buf))
		equal(t, got[0], uint32(5), "a synchronous copy after a blocking stream's work")
	})
	must(t, ctx.Synchronize())
}
