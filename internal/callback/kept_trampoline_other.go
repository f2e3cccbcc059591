//go:build !(linux && (amd64 || arm64))

package callback

import (
	"errors"
	"runtime"
)

// KeptTrampoline fails on this platform: C callbacks into Go are built for
// linux/amd64 and linux/arm64 only.
func KeptTrampoline() (uintptr, error) {
	return 0, errors.New("callback: host callbacks are supported on linux/amd64 and linux/arm64 only, not " +
		runtime.GOOS + "/" + runtime.GOARCH)
}
