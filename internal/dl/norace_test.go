//go:build !race

package dl_test

const raceEnabled = false
