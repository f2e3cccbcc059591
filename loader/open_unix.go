//go:build unix

package loader

import (
	"os"
	"syscall"
)

// openNoBlock opens path for reading without waiting: opening a named pipe
// with no writer, or some devices, would otherwise block.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}
