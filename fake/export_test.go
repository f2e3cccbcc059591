package fake

// StreamRacesOnly is DetectRaces(report) without the checks inside a
// launch, for BenchmarkRaceCost's middle column.
func StreamRacesOnly(report func(Hazard)) Option {
	return func(c *config) { c.races, c.raceReport, c.streamRacesOnly = true, report, true }
}
