package faultsweep

import "testing"

// knownBugs are the fault cases ("sequence/op/nth/code") that find a bug in
// the library, not yet fixed. The sweep still runs each: while it breaks a
// rule it is skipped with the bug's note (go test -v lists them), and once
// it passes the sweep fails, asking for its line here to be removed.
var knownBugs = bugs(
	// B1: core.Hold.Close (stream.Stream.Close, stream.Event.Close,
	// module.Module.Close) returns the error of the Unbind that follows a
	// successful destroy (cuCtxPopCurrent) and leaves the object open; each
	// retry destroys again and fails with CUDA_ERROR_INVALID_HANDLE, so the
	// object never closes and its context is never released. memory.Buffer
	// closes all the same.
	known{"B1: Close after a failed cuCtxPopCurrent can never succeed (core.Hold.Close)", "kernel", "cuCtxPopCurrent", []int64{5, 7}, notGone},
	known{"B1: Close after a failed cuCtxPopCurrent can never succeed (core.Hold.Close)", "events", "cuCtxPopCurrent", []int64{11, 12, 13, 14}, notGone},
	known{"B1: Close after a failed cuCtxPopCurrent can never succeed (core.Hold.Close)", "pool", "cuCtxPopCurrent", []int64{10}, notGone},
	known{"B1: Close after a failed cuCtxPopCurrent can never succeed (core.Hold.Close)", "ipc", "cuCtxPopCurrent", []int64{7}, notGone},

	// B2: operations that defer b.Unbind() drop its error: a failed
	// cuCtxPopCurrent after a successful memory.CopyToHost (events, pop 9) or
	// memory.CopyDtoD (pool, pop 4) returns nil, leaving the goroutine
	// locked to its OS thread with the context still pushed.
	known{"B2: memory.CopyToHost swallows a failed cuCtxPopCurrent (defer b.Unbind())", "events", "cuCtxPopCurrent", []int64{9}, allCodes},
	known{"B2: memory.CopyDtoD swallows a failed cuCtxPopCurrent (defer b.Unbind())", "pool", "cuCtxPopCurrent", []int64{4}, allCodes},

	// B3: Function.readLayout takes any CUDA_ERROR_INVALID_VALUE of
	// cuFuncGetParamInfo for the end of the parameters: the layout is cut
	// short and Launch fails with ErrArgs ("4 arguments for 0 parameters"),
	// blaming the caller's arguments, and the Function keeps that layout.
	known{"B3: a failed cuFuncGetParamInfo cuts the layout short; Launch then blames the arguments (ErrArgs)", "kernel", "cuFuncGetParamInfo", []int64{1, 2, 3, 4}, []string{"INVALID_VALUE"}},

	// B4: Function.readLayout takes any other cuFuncGetParamInfo error for a
	// missing entry point and falls back to the PTX signature without a word
	// (for a module loaded from a CUBIN, launches would then fail with
	// ErrNoLayout, which says the driver lacks cuFuncGetParamInfo).
	known{"B4: cuFuncGetParamInfo errors are swallowed (taken for a missing entry point)", "kernel", "cuFuncGetParamInfo", []int64{1, 2, 3, 4, 5}, []string{"OUT_OF_MEMORY", "ILLEGAL_ADDRESS", "LAUNCH_FAILED", "DEINITIALIZED"}},
)

var (
	allCodes = []string{"OUT_OF_MEMORY", "INVALID_VALUE", "ILLEGAL_ADDRESS", "LAUNCH_FAILED", "DEINITIALIZED"}
	// notGone are the codes a failed teardown does not count as closing the
	// object (see core.Gone).
	notGone = []string{"OUT_OF_MEMORY", "INVALID_VALUE"}
)

// known is one bug and the fault cases that find it.
type known struct {
	bug   string
	seq   string
	op    string
	nths  []int64
	codes []string
}

func bugs(ks ...known) map[string]string {
	m := map[string]string{}
	for _, k := range ks {
		for _, nth := range k.nths {
			for _, code := range k.codes {
				key := faultCase{k.seq, k.op, nth, code}.String()
				if _, dup := m[key]; dup {
					panic("faultsweep: case listed twice: " + key)
				}
				m[key] = k.bug
			}
		}
	}
	return m
}

// TestKnownBugsAreCases keeps knownBugs in step with the sequences: each
// case listed is one the sweep makes.
func TestKnownBugsAreCases(t *testing.T) {
	all := map[string]bool{}
	for _, seq := range sequences {
		for _, c := range cases(seq.name, profile(t, seq)) {
			all[c.String()] = true
		}
	}
	for key := range knownBugs {
		if !all[key] {
			t.Errorf("knownBugs lists %s, which the sweep does not make", key)
		}
	}
	t.Logf("%d known-bug cases", len(knownBugs))
}
