//go:build !race

package faultsweep

const raceEnabled = false
