package stream_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// The latency of a wait for a short piece of work (a 4 KiB memset), by
// kind of wait: the plain blocking call, SynchronizeContext with a context
// that can never be done (the same call), SynchronizeContext with a
// cancellable context (polling with backoff), and an event created with
// BlockingSync (the alternative the driver offers, which cannot be
// cancelled without a goroutine). Run on the GPU with
//
//	go test ./stream -run '^$' -bench 'Wait' -benchmem
func benchWait(b *testing.B, wait func(s *stream.Stream) error) {
	backends(b, func(b *testing.B, ctx *driver.Context) {
		s := benchStream(b, ctx)
		buf, err := memory.Alloc[uint32](ctx, 1024)
		require.NoError(b, err)
		b.Cleanup(func() { buf.Close() })
		b.ReportAllocs()
		for b.Loop() {
			if err := memory.Fill(s, buf, 7); err != nil {
				b.Fatal(err)
			}
			if err := wait(s); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkWaitSynchronize(b *testing.B) {
	benchWait(b, func(s *stream.Stream) error { return s.Synchronize() })
}

func BenchmarkWaitSynchronizeContextBackground(b *testing.B) {
	benchWait(b, func(s *stream.Stream) error {
		return s.SynchronizeContext(context.Background())
	})
}

func BenchmarkWaitSynchronizeContextCancellable(b *testing.B) {
	c, cancel := context.WithCancel(context.Background())
	defer cancel()
	benchWait(b, func(s *stream.Stream) error { return s.SynchronizeContext(c) })
}

func BenchmarkWaitBlockingSyncEvent(b *testing.B) {
	backends(b, func(b *testing.B, ctx *driver.Context) {
		s := benchStream(b, ctx)
		ev, err := stream.NewEvent(ctx, stream.EventOptions{Flags: stream.BlockingSync | stream.DisableTiming})
		require.NoError(b, err)
		b.Cleanup(func() { ev.Close() })
		buf, err := memory.Alloc[uint32](ctx, 1024)
		require.NoError(b, err)
		b.Cleanup(func() { buf.Close() })
		b.ReportAllocs()
		for b.Loop() {
			if err := memory.Fill(s, buf, 7); err != nil {
				b.Fatal(err)
			}
			if err := ev.Record(s); err != nil {
				b.Fatal(err)
			}
			if err := ev.Synchronize(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
