//go:build unix

package module

import (
	"os"
	"syscall"
)

// openEntry opens a cache entry for reading without following a symbolic
// link and without waiting: opening a named pipe with no writer, or some
// devices, would otherwise block.
func openEntry(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW|syscall.O_NOCTTY, 0)
}
