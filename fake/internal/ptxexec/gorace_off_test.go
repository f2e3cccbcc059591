//go:build !race

package ptxexec

// goRace is set when the tests run under Go's race detector.
const goRace = false
