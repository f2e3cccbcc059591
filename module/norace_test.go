//go:build !race

package module_test

const raceEnabled = false
