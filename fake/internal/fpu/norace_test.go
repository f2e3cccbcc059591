//go:build !race

package fpu

const raceEnabled = false
