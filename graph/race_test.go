//go:build race

package graph_test

// raceEnabled: allocation counts are meaningless under the race detector.
const raceEnabled = true
