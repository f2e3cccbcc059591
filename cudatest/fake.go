package cudatest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
)

// Fake returns a driver over a new fake backend for the test t, as
// fake.New(opts...) makes it (fake.Of finds its backend). When the test and
// its subtests end, it fails t if anything made on the fake is still alive,
// listing each leak: a context not closed, a stream, an event, a module,
// memory or an NVRTC program. Cleanups run last registered first, so
// objects closed in cleanups registered after Fake (or deferred in the
// test) are closed before the check.
//
// The fake's race detector is on (fake.DetectRaces; see Races): a hazard
// it finds (work on two streams touching the same device bytes with
// nothing ordering them, a read of device memory never written) fails t
// with a report like Go's race detector's. opts come after that default:
// fake.IgnoreRaces turns it off, and fake.DetectRaces with a function of
// the test's own takes the reports instead (hazards the test leaves
// untaken, see fake.Fake.TakeHazards, still fail it at its end).
//
// module.Compile on it caches its kernels in the test's own t.TempDir()
// (fake.KernelCacheDir), never in the user's cache, unless the compile's
// Options or NOCGO_CUDA_CACHE_DIR name a directory.
//
// Fake fails the test at once (t.Fatal) where fake.New would panic: when
// the options make cuInit fail.
func Fake(t testing.TB, opts ...fake.Option) *driver.Driver {
	t.Helper()
	races := Races(t)
	drv, err := newFake(append([]fake.Option{races.option(), fake.KernelCacheDir(t.TempDir())}, opts...))
	if err != nil {
		t.Fatalf("cudatest.Fake: %v", err)
	}
	t.Cleanup(func() { races.check(fake.Of(drv)) })
	t.Cleanup(func() {
		if leaks := fake.Of(drv).Leaks(); len(leaks) > 0 {
			lines := make([]string, len(leaks))
			for i, l := range leaks {
				lines[i] = "\t" + l.String()
			}
			t.Errorf("cudatest.Fake: %d objects left alive at the end of the test:\n%s", len(leaks), strings.Join(lines, "\n"))
		}
	})
	return drv
}

// newFake is fake.New, with its panic (cuInit failed on the fake) turned
// into an error.
func newFake(opts []fake.Option) (drv *driver.Driver, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return fake.New(opts...), nil
}
