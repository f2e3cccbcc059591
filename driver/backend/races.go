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

// StreamNamer is a backend that names streams in what it reports: the
// fake's race detector writes `stream "loader"` where it would write a
// handle. stream.New names a stream through it when Options.Name is set,
// stream.WrapWithOptions a foreign one when WrapOptions.Name is; a backend
// without it (the real driver) ignores names.
type StreamNamer interface {
	// NameStream names the stream h of the current context (a created
	// stream; not 0, 1 or 2). An unknown stream is an error.
	NameStream(h uintptr, name string) error
}
