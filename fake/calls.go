package fake

import (
	"slices"
	"sort"

	"github.com/nocgo/cuda/internal/abi"
)

// CountCalls makes the backend count the calls of every entry point (the
// driver's, NVRTC's and the fake NVML's, which FailNVML names), for Calls. The count is the one FailNth counts by: a call is counted when it
// reaches the entry point (the driver version has the symbol), before a
// FailNth rule fires, before the cuInit check and before the poisoned
// process refuses it, so failed calls count too. So after a run of some
// code on a backend with CountCalls, Calls()[op] == k means that
// FailNth(op, n, code) for each n in 1..k makes that same run fail at a
// call it makes; a fault sweep needs nothing else:
//
//	clean := fake.newBackend(fake.CountCalls())
//	run(clean)
//	for op, k := range clean.Calls() {
//		for n := 1; n <= int(k); n++ {
//			run(fake.newBackend(fake.FailNth(op, n, driver.ErrOutOfMemory)))
//		}
//	}
//
// Counting costs one map lookup and one atomic add per call. Without
// CountCalls, only the entry points that a FailNth rule names are counted.
func CountCalls() Option {
	return func(c *config) {
		if c.faults == nil {
			c.faults = map[string][]faultRule{}
		}
		for _, op := range slices.Concat(entryPoints, nvmlEntryPoints) {
			// A key, with no rules unless FailNth gave some: the backend
			// keeps a counter for each key (see NewBackend and
			// Backend.fault); one without rules never fires.
			if _, ok := c.faults[op]; !ok {
				c.faults[op] = nil
			}
		}
	}
}

// Calls returns a snapshot of the calls made so far to each entry point of
// the backend, by CUDA base name ("cuMemAlloc", "cuStreamCreateWithPriority",
// "nvrtcCompileProgram"; no "_v2" suffix), counting failed calls too (see
// CountCalls for exactly what counts). Entry points not called are left
// out. Only a backend built with CountCalls counts every entry point;
// otherwise the map holds the entry points that FailNth rules name.
//
// The snapshot is not atomic across entry points: calls made concurrently
// with Calls may be counted or not.
func (b *fakeBackend) calls() map[string]int64 {
	out := map[string]int64{}
	for op, fc := range b.faults { // read-only after NewBackend
		if n := fc.calls.Load(); n > 0 {
			out[op] = n
		}
	}
	return out
}

// EntryPoints returns the names of every entry point of the fake (the
// libcuda and NVRTC functions it implements, by CUDA base name), sorted:
// the names CountCalls counts and FailNth can name.
func EntryPoints() []string {
	return append([]string(nil), entryPoints...)
}

// entryPoints lists, sorted, every name the fake passes to Backend.fault,
// directly or through enter, syncOp, asyncOp and the NVRTC enter: the
// backends' declaration table (internal/libcuda/entrypoints.txt, through
// package abi) but its inner entry points, which are called only inside
// other entry points' methods. A test checks the list against the sources.
var entryPoints = func() []string {
	var names []string
	for _, ep := range abi.EntryPoints() {
		if !ep.Inner {
			names = append(names, ep.Name)
		}
	}
	sort.Strings(names)
	return names
}()
