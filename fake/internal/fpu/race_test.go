//go:build race

package fpu

// The race detector slows the random tests about tenfold and they share no
// memory: run fewer inputs.
const raceEnabled = true
