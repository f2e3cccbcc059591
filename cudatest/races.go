package cudatest

import (
	"sync"
	"testing"

	"github.com/nocgo/cuda/fake"
)

// RaceReporter fails a test for the fake race detector's hazards: at once,
// on the goroutine that ran the work, while the test runs, and at the
// test's end for those not reported yet. Fake uses one; a test that builds
// its fake with fake.New or fake.NewBackend gives it Option and calls
// Check at its end.
type RaceReporter struct {
	t testing.TB

	mu       sync.Mutex
	done     bool                // the test has ended: t must not be used
	reported map[string]struct{} // the hazards already failed the test
}

// Races returns a RaceReporter for t. Its Option turns the detector on;
// Fake's final check is registered by Fake itself.
func Races(t testing.TB) *RaceReporter {
	r := &RaceReporter{t: t, reported: map[string]struct{}{}}
	t.Cleanup(func() {
		r.mu.Lock()
		r.done = true
		r.mu.Unlock()
	})
	return r
}

// Option is fake.DetectRaces with this reporter's function: each hazard
// fails the test with its report.
func (r *RaceReporter) Option() fake.Option { return r.option() }

func (r *RaceReporter) option() fake.Option {
	return fake.DetectRaces(func(h fake.Hazard) { r.fail(h) })
}

// fail reports h once, unless the test has ended.
func (r *RaceReporter) fail(h fake.Hazard) {
	s := h.String()
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.reported[s]; ok || r.done {
		return
	}
	r.reported[s] = struct{}{}
	r.t.Errorf("cudatest: the fake's race detector found a hazard:\n%s", s)
}

// Check fails the test for the hazards f holds (see fake.Fake.Hazards)
// that it has not reported yet. A nil f (not a fake) is fine.
func (r *RaceReporter) Check(f *fake.Fake) { r.check(f) }

func (r *RaceReporter) check(f *fake.Fake) {
	if f == nil {
		return
	}
	for _, h := range f.Hazards() {
		r.fail(h)
	}
}
