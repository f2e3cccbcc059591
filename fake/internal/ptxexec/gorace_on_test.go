//go:build race

package ptxexec

// goRace is set when the tests run under Go's race detector: kernels
// that race on purpose then run their blocks on one goroutine.
const goRace = true
