//go:build !unix

package module

import "os"

// openEntry opens a cache entry for reading; get refuses it unless it is a
// regular file.
func openEntry(path string) (*os.File, error) { return os.Open(path) }
