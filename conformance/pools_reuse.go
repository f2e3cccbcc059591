package conformance

import (
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// testPoolReuse: stream-ordered pools hand memory freed on a stream to the
// next allocation on that stream at once, before the stream reaches the
// free (measured on the H200): a 64 MiB pool serves 48 MiB allocated and
// freed 200 times with no synchronization, and the default pool 1,000
// rounds of 16 MiB. Another stream reuses it too while the pool allows
// internal dependencies (the default), and its work is then ordered after
// the free: what it writes is not overwritten by the first stream's
// earlier work.
func testPoolReuse(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	s := newStream(t, ctx, stream.Options{Flags: stream.NonBlocking})
	const mib = 1 << 20

	t.Run("same-stream", func(t *testing.T) {
		p, err := memory.NewPool(ctx, memory.PoolOptions{MaxSize: 64 * mib})
		must(t, err)
		defer func() { must(t, p.Close()) }()
		for i := range 200 {
			b, err := memory.AllocFromPool[byte](s, p, 48*mib)
			must(t, err, "round", i)
			must(t, b.FreeAsync(s), "round", i)
		}
		must(t, s.Synchronize())
		st, err := p.Stats()
		must(t, err)
		compare(t, st.ReservedHigh, "<=", uint64(64*mib), "the pool never held more than its cap")
		equal(t, st.UsedCurrent, uint64(0), "everything freed")
	})
	t.Run("default-pool", func(t *testing.T) {
		for i := range 1000 {
			b, err := memory.AllocAsync[byte](s, 16*mib)
			must(t, err, "round", i)
			must(t, b.FreeAsync(s), "round", i)
		}
		must(t, s.Synchronize())
	})
	t.Run("across-streams", func(t *testing.T) {
		p, err := memory.NewPool(ctx, memory.PoolOptions{MaxSize: 64 * mib})
		must(t, err)
		defer func() { must(t, p.Close()) }()
		other := newStream(t, ctx, stream.Options{Flags: stream.NonBlocking})
		const n = 12 * mib // float32s: 48 MiB
		a, err := memory.AllocFromPool[float32](s, p, n)
		must(t, err)
		must(t, memory.Fill(s, a, 1))
		must(t, a.FreeAsync(s))
		b, err := memory.AllocFromPool[float32](other, p, n)
		must(t, err, "the pool reuses the other stream's free (internal dependencies are allowed)")
		must(t, memory.Fill(other, b, 2))
		head, err := b.Slice(0, 4)
		must(t, err)
		got := make([]float32, 4)
		must(t, memory.CopyToHostAsync(other, got, head))
		must(t, other.Synchronize())
		equal(t, got, []float32{2, 2, 2, 2}, "the second stream's fill, ordered after the first stream's work")
		must(t, head.Close())
		must(t, b.FreeAsync(other))
		must(t, other.Synchronize())
		must(t, s.Synchronize())
	})
}
