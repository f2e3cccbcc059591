//go:build race

package module_test

// raceEnabled: the race detector makes sync.Pool drop items at random, so
// pooled launch blocks are reallocated and allocation counts mean nothing.
const raceEnabled = true
