package faultsweep

import "testing"

// knownBugs are the fault cases ("sequence/op/nth/code") that find a bug in
// the library, not yet fixed. The sweep still runs each: while it breaks a
// rule it is skipped with the bug's note (go test -v lists them), and once
// it passes the sweep fails, asking for its line here to be removed.
//
// The six bugs the first sweep found (B1–B6) are fixed, and B7 and B8 of
// the second (graph and pool create paths), B9 and B10 (nccl.Group), and
// B11 of the NCCL sweep (a failed NewComm or Split in a Group). A bug that
// every code finds lists codes: []string{"OUT_OF_MEMORY", "INVALID_VALUE",
// "ILLEGAL_ADDRESS", "LAUNCH_FAILED", "DEINITIALIZED"}.
var knownBugs = bugs()

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
