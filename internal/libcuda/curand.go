//go:build linux && (amd64 || arm64)

package libcuda

import (
	"sync"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/libcurand"
)

// libCURAND is libcurand, opened on the first CURAND call. Like the libraries
// themselves it is one per process.
var libCURAND struct {
	sync.Mutex
	lib *libcurand.Lib
	err error
}

// CURAND opens libcurand (through package loader) on the first call and returns
// it; a failure to open it is kept and returned by every later call.
func (l *libcuda) CURAND() (backend.CURAND, error) {
	libCURAND.Lock()
	defer libCURAND.Unlock()
	if libCURAND.lib == nil && libCURAND.err == nil {
		libCURAND.lib, libCURAND.err = libcurand.Open()
	}
	if libCURAND.err != nil {
		return nil, libCURAND.err
	}
	return libCURAND.lib, nil
}

var _ backend.RANDProvider = (*libcuda)(nil)
