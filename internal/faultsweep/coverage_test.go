package faultsweep

import (
	"sort"
	"testing"

	"github.com/nocgo/cuda/fake"
)

// notCalled are the fake's entry points that no code of the library calls
// on the fake, so that no sequence can reach them, each with the reason.
// TestSweepCoversEveryEntryPoint checks that each is indeed never called.
var notCalled = map[string]string{
	"cuMemsetD16":      "the library fills in stream order (memory.Fill: cuMemsetD16Async) and zeroes with cuMemsetD8 (AllocZeroed)",
	"cuMemsetD32":      "the library fills in stream order (memory.Fill: cuMemsetD32Async) and zeroes with cuMemsetD8 (AllocZeroed)",
	"cuCtxSetCurrent":  "nccl.Group calls it only to restore the thread's context when ncclGroupEnd changed it, which the fake's NCCL never does",
	"ncclCommCuDevice": "package nccl knows each communicator's device from its context, and never asks",
	"ncclCommFinalize": "Comm.Close destroys with ncclCommDestroy, which finalizes a communicator not yet finalized",
}

// TestSweepCoversEveryEntryPoint: every entry point the fake lists is
// called by some sequence, so that the sweep fails each call of it once
// with each code, except the few in notCalled, which the library never
// calls on the fake. A new entry point in the fake fails this test until a
// sequence reaches it.
func TestSweepCoversEveryEntryPoint(t *testing.T) {
	covered := map[string][]string{}
	for _, seq := range sequences {
		for op := range profile(t, seq) {
			covered[op] = append(covered[op], seq.name)
		}
	}
	var missing []string
	listed := map[string]bool{}
	for _, op := range fake.EntryPoints() {
		listed[op] = true
		_, excused := notCalled[op]
		switch {
		case excused && len(covered[op]) > 0:
			t.Errorf("%s is listed in notCalled, yet sequences %v call it: remove it from the list", op, covered[op])
		case !excused && len(covered[op]) == 0:
			missing = append(missing, op)
		}
	}
	for op := range notCalled {
		if !listed[op] {
			t.Errorf("notCalled lists %s, which is not an entry point of the fake", op)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d of %d entry points are called by no sequence, so never failed by the sweep: %v", len(missing), len(fake.EntryPoints()), missing)
	}
}
