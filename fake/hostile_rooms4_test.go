package fake

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
)

// TestHostileRaceReport gives the race detector report functions that
// panic or call back into the driver, over the unordered memsets of two
// streams: nothing panics out of the driver nor deadlocks, and the
// driver is usable afterwards.
func TestHostileRaceReport(t *testing.T) {
	for _, c := range []struct {
		name   string
		report func(b **fakeBackend) func(Hazard)
	}{
		{"panics", func(**fakeBackend) func(Hazard) { return func(Hazard) { panic("user report") } }},
		{"synchronizes", func(b **fakeBackend) func(Hazard) {
			return func(Hazard) { _ = (*b).CtxSynchronize() }
		}},
		{"allocates", func(b **fakeBackend) func(Hazard) {
			return func(Hazard) {
				if p, err := (*b).MemAlloc(8); err == nil {
					_ = (*b).MemFree(p)
				}
			}
		}},
	} {
		var b *fakeBackend
		reports := 0
		report := c.report(&b)
		b = bound(t, DetectRaces(func(h Hazard) { reports++; report(h) }))
		ctx := mustCurrent(t, b)
		p, err := b.MemAlloc(64)
		require.NoError(t, err)
		var ss [2]uintptr
		for i := range ss {
			ss[i], err = b.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
			require.NoError(t, err)
		}
		within(t, 10*time.Second, c.name, func() {
			require.NoError(t, b.CtxSetCurrent(ctx))
			for i, s := range ss {
				noPanic(t, "MemsetD8Async", func() error { return b.MemsetD8Async(p, byte(i), 64, s) })
			}
			for _, s := range ss {
				noPanic(t, "StreamSynchronize", func() error { return b.StreamSynchronize(s) })
			}
			noPanic(t, "CtxSynchronize", func() error { return b.CtxSynchronize() })
		})
		assert.NotZero(t, reports, "%s: the unordered memsets are a race", c.name)
		for _, s := range ss {
			require.NoError(t, b.StreamDestroy(s), c.name)
		}
		require.NoError(t, b.MemFree(p), c.name)
	}
}
