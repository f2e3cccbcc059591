//go:build race

package dl_test

const raceEnabled = true
