package conformance

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// raceDetector returns the backend's race detector (backend.RaceDetector),
// when it has one and it is on.
func raceDetector(t testing.TB, drv *driver.Driver) (backend.RaceDetector, bool) {
	d, ok := raw(t, drv).(backend.RaceDetector)
	if !ok || !d.DetectsRaces() {
		return nil, false
	}
	return d, true
}

// expectRace takes the race reports that the work just done provoked on
// purpose and checks that one names every word of want (operations,
// streams), so that the suite's final check does not count them. Without
// a race detector it does nothing.
func expectRace(t *testing.T, drv *driver.Driver, want ...string) {
	t.Helper()
	d, ok := raceDetector(t, drv)
	if !ok {
		return
	}
	reports := d.TakeRaceReports()
	for _, r := range reports {
		all := true
		for _, w := range want {
			all = all && strings.Contains(r, w)
		}
		if all {
			return
		}
	}
	t.Errorf("the race detector reported %d hazards, none naming all of %q:\n%s", len(reports), want, strings.Join(reports, "\n"))
}

// testRaces is the seeds' bug: a library's stream is wrapped (as PyTorch's
// ExternalStream should), the library writes a buffer on it after a slow
// kernel, and the user reads the buffer back. Read on the wrapped stream,
// or on another stream after an event recorded on the library's stream, the
// read sees the library's value, on every backend. Read by mistake on the
// legacy default stream (the library's stream is non-blocking, so nothing
// orders the two) or on another stream with no event, it may see the old
// value on a GPU, only sometimes; where the backend has a race detector
// (the fake), the mistake is reported every time, naming both operations
// and both streams. The mistaken variants run only there.
func testRaces(t *testing.T, drv *driver.Driver) {
	t.Run("stream-ordered memory", func(t *testing.T) { testRacesStreamOrdered(t, drv) })
	ctx := streamContext(t, drv, 0)
	spin, err := Kernels(t, ctx).Function(kernels.Spin)
	must(t, err)
	lib := rawStream(t, ctx, backend.StreamNonBlocking, 0) // the library's own stream
	wrapped, err := stream.Wrap(ctx, lib)
	must(t, err)
	defer func() { must(t, wrapped.Close()) }()
	other := newStream(t, ctx, stream.Options{Flags: stream.NonBlocking})
	legacy, err := stream.Legacy(ctx)
	must(t, err)
	defer func() { must(t, legacy.Close()) }()
	buf := rawAlloc(t, ctx, 4)
	memsetU32(t, wrapped, buf, 0, 1)
	must(t, wrapped.Synchronize())

	round := uint32(0)
	libraryWrites := func() uint32 {
		round++
		must(t, spin.Launch(wrapped, module.Config{Grid: module.Dim(1), Block: module.Dim(1)}, uint64(200*time.Microsecond)))
		memsetU32(t, wrapped, buf, round, 1)
		return round
	}
	t.Run("wrapped stream", func(t *testing.T) {
		want := libraryWrites()
		equal(t, readU32(t, wrapped, buf), want, "read on the library's own stream")
	})
	t.Run("event", func(t *testing.T) {
		want := libraryWrites()
		ev := newEvent(t, ctx, stream.DisableTiming)
		must(t, ev.Record(wrapped))
		must(t, other.Wait(ev))
		equal(t, readU32(t, other, buf), want, "read on another stream after an event")
	})
	// The in-kernel twins' results are checked on every backend; the racy
	// ones where a detector is on.
	t.Run("in-kernel", func(t *testing.T) { testRacesInKernel(t, drv) })
	t.Run("indigo", func(t *testing.T) { testRacesIndigo(t, drv) })
	if _, ok := raceDetector(t, drv); !ok {
		return
	}
	t.Run("legacy stream by mistake", func(t *testing.T) {
		libraryWrites()
		readU32(t, legacy, buf)
		must(t, wrapped.Synchronize())
		expectRace(t, drv, "memset", "memcpy DtoH", fmt.Sprintf("stream %#x", lib), "legacy default stream", "conformance.testRaces")
	})
	t.Run("another stream by mistake", func(t *testing.T) {
		libraryWrites()
		readU32(t, other, buf)
		must(t, wrapped.Synchronize())
		expectRace(t, drv, "memset", "memcpy DtoH", fmt.Sprintf("stream %#x", lib), fmt.Sprintf("stream %#x", other.Handle()))
	})
}
