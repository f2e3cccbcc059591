//go:build linux && (amd64 || arm64)

package libcurand

import (
	"github.com/nocgo/cuda/driver/backend"
)

// check turns a curandStatus_t (in the low 32 bits) from s into nil or a
// *RANDError.
func (l *Lib) check(s sym, r uintptr) error {
	code := backend.RANDStatus(int32(uint32(r)))
	if code == 0 {
		return nil
	}
	return &backend.RANDError{Status: code, Op: symEntries[s].Name}
}
