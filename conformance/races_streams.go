package conformance

import (
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// testRacesStreamOrdered: stream-ordered pool memory (cuMemAllocAsync) is
// usable on another stream only once that stream waits for the
// allocating one, and only until a cuMemFreeAsync that follows the use;
// page-locked host memory that two streams' copies reach while they run
// is ordered as device memory is. Each race-free twin computes the same on
// every backend; each racy case runs only where a race detector is (the
// fake), and must be reported naming both operations and the streams, by
// the names they were made with.
func testRacesStreamOrdered(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	loader := newStream(t, ctx, stream.Options{Flags: stream.NonBlocking, Name: "loader"})
	compute := newStream(t, ctx, stream.Options{Flags: stream.NonBlocking, Name: "compute"})
	equal(t, loader.Name(), "loader", "Stream.Name")
	_, detects := raceDetector(t, drv)
	out := make([]uint32, 64)

	t.Run("pool memory after WaitStream", func(t *testing.T) {
		buf, err := memory.AllocAsync[uint32](loader, 64)
		must(t, err)
		must(t, compute.WaitStream(loader))
		must(t, memory.Fill(compute, buf, 7))
		must(t, memory.CopyToHostAsync(compute, out, buf))
		must(t, buf.FreeAsync(compute))
		must(t, compute.Synchronize())
		equal(t, out[63], uint32(7), "the fill, read back")
	})
	t.Run("pool memory freed after an event", func(t *testing.T) {
		buf, err := memory.AllocAsync[uint32](loader, 64)
		must(t, err)
		must(t, memory.Fill(loader, buf, 8))
		must(t, compute.WaitStream(loader))
		must(t, memory.CopyToHostAsync(compute, out, buf))
		must(t, loader.WaitStream(compute)) // the read before the free
		must(t, buf.FreeAsync(loader))
		must(t, loader.Synchronize())
		must(t, compute.Synchronize())
		equal(t, out[0], uint32(8), "read before the free")
	})
	t.Run("pinned host memory after WaitStream", func(t *testing.T) {
		if _, ok := raw(t, drv).(backend.HostRegistration); !ok {
			t.Skip("the backend cannot register host memory")
		}
		reg := registered(t, ctx)
		defer func() { must(t, reg.Close()) }()
		src, err := memory.Alloc[uint32](ctx, 64)
		must(t, err)
		defer func() { must(t, src.Close()) }()
		dst, err := memory.Alloc[uint32](ctx, 64)
		must(t, err)
		defer func() { must(t, dst.Close()) }()
		must(t, memory.Fill(loader, src, 9))
		must(t, memory.CopyToHostAsync(loader, reg.Slice()[:64], src))
		must(t, compute.WaitStream(loader))
		must(t, memory.CopyToDeviceAsync(compute, dst, reg.Slice()[:64]))
		must(t, memory.CopyToHostAsync(compute, out, dst))
		must(t, compute.Synchronize())
		equal(t, out[5], uint32(9), "through the pinned buffer")
	})
	if !detects {
		return
	}
	t.Run("pool memory on a stream that never waited", func(t *testing.T) {
		buf, err := memory.AllocAsync[uint32](loader, 64)
		must(t, err)
		must(t, memory.Fill(compute, buf, 7)) // the mistake: compute never waits for loader
		must(t, compute.Synchronize())
		must(t, loader.Synchronize())
		must(t, buf.FreeAsync(compute))
		must(t, compute.Synchronize())
		expectRace(t, drv, "cuMemAllocAsync", "allocation", "memset", `stream "loader"`, `stream "compute"`, "To fix", "conformance.testRacesStreamOrdered")
	})
	t.Run("pool memory freed before another stream's read", func(t *testing.T) {
		buf, err := memory.AllocAsync[uint32](loader, 64)
		must(t, err)
		must(t, memory.Fill(loader, buf, 8))
		must(t, compute.WaitStream(loader))
		must(t, memory.CopyToHostAsync(compute, out, buf))
		must(t, buf.FreeAsync(loader)) // the mistake: the free does not wait for the read
		must(t, compute.Synchronize())
		must(t, loader.Synchronize())
		expectRace(t, drv, "cuMemFreeAsync", "memcpy DtoH", `stream "loader"`, `stream "compute"`)
	})
	t.Run("pinned host memory, no wait", func(t *testing.T) {
		if _, ok := raw(t, drv).(backend.HostRegistration); !ok {
			t.Skip("the backend cannot register host memory")
		}
		reg := registered(t, ctx)
		defer func() { must(t, reg.Close()) }()
		src, err := memory.Alloc[uint32](ctx, 64)
		must(t, err)
		defer func() { must(t, src.Close()) }()
		dst, err := memory.Alloc[uint32](ctx, 64)
		must(t, err)
		defer func() { must(t, dst.Close()) }()
		must(t, memory.Fill(loader, src, 9))
		must(t, memory.CopyToHostAsync(loader, reg.Slice()[:64], src))
		must(t, memory.CopyToDeviceAsync(compute, dst, reg.Slice()[:64])) // the mistake: no wait for the copy into the buffer
		must(t, compute.Synchronize())
		must(t, loader.Synchronize())
		expectRace(t, drv, "memcpy DtoH", "memcpy HtoD", `stream "loader"`, `stream "compute"`)
	})
}

// registered is 256 KiB of Go memory page-locked with memory.Register
// (pages of its own: the driver locks whole pages, and a page registered
// twice is an error).
func registered(t *testing.T, ctx *driver.Context) *memory.Registered[uint32] {
	t.Helper()
	reg, err := memory.Register(ctx, make([]uint32, 1<<16), 0)
	must(t, err)
	return reg
}
