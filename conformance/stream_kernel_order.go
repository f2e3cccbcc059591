package conformance

import (
	"fmt"
	"testing"
	"time"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// testStreamKernelOrder: a slow kernel on stream a, after it a flag set to
// the round's number and an event; stream b waits on the event and reads the
// flag, which must be the round's in every round, for an owned a and for a
// foreign a created by raw driver calls as another library would. Without
// the wait, b reads a stale flag: the check can fail.
func testStreamKernelOrder(t *testing.T, drv *driver.Driver) {
	const rounds = 20
	ctx := streamContext(t, drv, 0)
	spin, err := Kernels(t, ctx).Function(kernels.Spin)
	must(t, err)
	a := newStream(t, ctx, stream.Options{Flags: stream.NonBlocking})
	b := newStream(t, ctx, stream.Options{Flags: stream.NonBlocking})
	equal(t, kernelOrderRounds(t, spin, a, b, rounds, true), rounds, "rounds where b read a's flag")

	foreign, err := stream.Wrap(ctx, rawStream(t, ctx, backend.StreamNonBlocking, 0))
	must(t, err)
	defer func() { must(t, foreign.Close()) }()
	equal(t, kernelOrderRounds(t, spin, foreign, b, rounds, true), rounds, "rounds where b read the foreign stream's flag")

	right := kernelOrderRounds(t, spin, a, b, 5, false)
	compare(t, right, "<", 5, "without the wait b must read a stale flag at least once")
	expectRace(t, drv, "memset", "memcpy DtoH", fmt.Sprintf("stream %#x", a.Handle()), fmt.Sprintf("stream %#x", b.Handle()))
}

// kernelOrderRounds runs the rounds and returns how many read the right flag.
func kernelOrderRounds(t *testing.T, spin *module.Function, a, b *stream.Stream, rounds int, wait bool) int {
	t.Helper()
	ctx := a.Context()
	flag := rawAlloc(t, ctx, 4)
	ev := newEvent(t, ctx, stream.DisableTiming)
	memsetU32(t, a, flag, 0, 1)
	must(t, a.Synchronize())
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(1)}
	right := 0
	for r := 1; r <= rounds; r++ {
		must(t, spin.Launch(a, cfg, uint64(300*time.Microsecond)))
		memsetU32(t, a, flag, uint32(r), 1)
		must(t, ev.Record(a))
		if wait {
			must(t, b.Wait(ev))
		}
		if readU32(t, b, flag) == uint32(r) {
			right++
		}
		must(t, a.Synchronize())
	}
	return right
}
