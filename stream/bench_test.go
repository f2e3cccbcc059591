package stream_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/gpu"
	"github.com/nocgo/cuda/stream"
)

// The hot paths (Query, Record, Wait) on the real driver and on the fake.
// Run with -benchmem: the real path allocates nothing (the fake's queue
// allocates for itself, not for this package: see TestHotPathsAllocateNothing).

// backends runs bench against the fake and, when it loads, the real driver.
func backends(b *testing.B, bench func(b *testing.B, ctx *driver.Context)) {
	b.Run("fake", func(b *testing.B) { bench(b, primary(b, fake.New(fake.Devices(1)))) })
	b.Run("real", func(b *testing.B) {
		drv, err := gpu.Load()
		if err != nil {
			b.Skip(err)
		}
		bench(b, primary(b, drv))
	})
}

func benchStream(b *testing.B, ctx *driver.Context) *stream.Stream {
	s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	require.NoError(b, err)
	b.Cleanup(func() { s.Close() })
	return s
}

func benchEvent(b *testing.B, ctx *driver.Context) *stream.Event {
	ev, err := stream.NewEvent(ctx, stream.EventOptions{Flags: stream.DisableTiming})
	require.NoError(b, err)
	b.Cleanup(func() { ev.Close() })
	return ev
}

func BenchmarkQueryIdle(b *testing.B) {
	backends(b, func(b *testing.B, ctx *driver.Context) {
		s := benchStream(b, ctx)
		b.ReportAllocs()
		for b.Loop() {
			done, err := s.Query()
			if err != nil || !done {
				b.Fatal(done, err)
			}
		}
	})
}

func BenchmarkRecord(b *testing.B) {
	backends(b, func(b *testing.B, ctx *driver.Context) {
		s := benchStream(b, ctx)
		ev := benchEvent(b, ctx)
		b.ReportAllocs()
		for b.Loop() {
			if err := ev.Record(s); err != nil {
				b.Fatal(err)
			}
		}
		require.NoError(b, s.Synchronize())
	})
}

func BenchmarkWait(b *testing.B) {
	backends(b, func(b *testing.B, ctx *driver.Context) {
		s := benchStream(b, ctx)
		o := benchStream(b, ctx)
		ev := benchEvent(b, ctx)
		require.NoError(b, ev.Record(o))
		b.ReportAllocs()
		for b.Loop() {
			if err := s.Wait(ev); err != nil {
				b.Fatal(err)
			}
		}
		require.NoError(b, s.Synchronize())
	})
}
