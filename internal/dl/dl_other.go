//go:build !(linux && (amd64 || arm64))

package dl

import (
	"errors"
	"runtime"
)

// Supported reports whether this platform can load libraries at run time.
const Supported = false

var errUnsupported = errors.New("dl: loading CUDA libraries at run time is supported on linux/amd64 and linux/arm64 only, not " +
	runtime.GOOS + "/" + runtime.GOARCH)

// Open always fails on this platform.
func Open(path string) (uintptr, error) { return 0, errUnsupported }

// Sym always fails on this platform.
func Sym(h uintptr, name string) (uintptr, error) { return 0, errUnsupported }

// Path knows nothing on this platform.
func Path(h uintptr) (string, bool) { return "", false }
