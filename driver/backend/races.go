package backend

// RaceDetector is a backend that checks the ordering of the work it runs:
// it reports two accesses to the same device bytes, at least one a write,
// that nothing orders (not stream order, an event, a synchronize the host
// observed, the legacy default stream's implicit synchronisation), and
// reads of device memory nothing wrote. The fake implements it when its
// race detector is on; a GPU backend does not (a GPU cannot see this). A
// backend-agnostic test looks for it to check that a deliberately
// unordered program is caught, and to take the reports it provoked.
type RaceDetector interface {
	// DetectsRaces reports whether the detector is on.
	DetectsRaces() bool
	// TakeRaceReports returns the hazards found since the last call, one
	// report each (the text names both operations, their streams, the
	// bytes and the Go call sites that enqueued them), and forgets them.
	TakeRaceReports() []string
}
