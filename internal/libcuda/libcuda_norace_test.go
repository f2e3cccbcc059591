//go:build !race

package libcuda

const raceEnabled = false
