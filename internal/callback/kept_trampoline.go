//go:build linux && (amd64 || arm64)

package callback

import (
	"fmt"
	"sync"

	"github.com/ebitengine/purego"
)

var keptTrampoline = sync.OnceValues(func() (p uintptr, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("callback: purego.NewCallback: %v", r)
		}
	}()
	return purego.NewCallback(func(userData uintptr) { DispatchKept(userData) }), nil
})

// KeptTrampoline returns the process's one C function pointer with the
// CUhostFn signature that runs the kept function (see Keep) whose id is
// passed as userData, leaving it kept. It is made on first use and lives
// as long as the process.
func KeptTrampoline() (uintptr, error) { return keptTrampoline() }
