//go:build linux && (amd64 || arm64)

package callback

import (
	"fmt"
	"sync"

	"github.com/ebitengine/purego"
)

var trampoline = sync.OnceValues(func() (p uintptr, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("callback: purego.NewCallback: %v", r)
		}
	}()
	return purego.NewCallback(func(userData uintptr) { Dispatch(userData) }), nil
})

// Trampoline returns the process's one C function pointer with the CUhostFn
// signature, void fn(void *userData), which runs the function registered
// under the id passed as userData. It is made on first use and lives as long
// as the process.
func Trampoline() (uintptr, error) { return trampoline() }
