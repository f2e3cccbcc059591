package fake

// StreamRacesOnly is DetectRaces without the checks inside a launch, for
// BenchmarkRaceCost's middle column.
func StreamRacesOnly() Option {
	return func(c *config) { c.races, c.raceReport, c.streamRacesOnly = true, nil, true }
}
