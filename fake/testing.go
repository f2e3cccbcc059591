package fake

import (
	"runtime"
	"strings"
	"testing"
	"weak"

	"github.com/nocgo/cuda/driver"
)

// NewT returns a driver over a new fake Backend for the test t (see New
// for opts). When the test and its subtests end, it fails t if anything
// made on the fake is still alive, listing each leak: a context not closed,
// a stream, an event, a module, memory or an NVRTC program. Cleanups run
// last registered first, so objects closed in cleanups registered after
// NewT (or deferred in the test) are closed before the check.
//
// NewT fails the test at once (t.Fatal) where New would panic: when the
// options make cuInit fail.
func NewT(t testing.TB, opts ...Option) *driver.Driver {
	t.Helper()
	b := newBackend(opts...)
	drv, err := driver.New(b)
	if err != nil {
		t.Fatalf("fake.NewT: %v", err)
	}
	key := weak.Make(drv)
	backends.Store(key, b) // for Of, as New does
	runtime.AddCleanup(drv, func(k weak.Pointer[driver.Driver]) { backends.Delete(k) }, key)
	t.Cleanup(func() {
		if leaks := b.Leaks(); len(leaks) > 0 {
			lines := make([]string, len(leaks))
			for i, l := range leaks {
				lines[i] = "\t" + l.String()
			}
			t.Errorf("fake: %d objects left alive at the end of the test:\n%s", len(leaks), strings.Join(lines, "\n"))
		}
	})
	return drv
}
