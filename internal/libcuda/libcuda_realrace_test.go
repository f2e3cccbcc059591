//go:build race

package libcuda_test

const raceEnabled = true
