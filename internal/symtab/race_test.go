//go:build race

package symtab

const raceEnabled = true
