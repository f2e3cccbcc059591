//go:build !race

package loader_test

const raceEnabled = false
