//go:build linux && (amd64 || arm64)

package libcuda

import (
	"sync"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/libnvml"
)

// libNVML is libnvidia-ml, opened on the first NVML call. Like the library
// itself it is one per process (nvmlInit_v2 counts references per process).
var libNVML struct {
	sync.Mutex
	lib *libnvml.Lib
	err error
}

// NVML opens libnvidia-ml (through package loader) on the first call and
// returns it; a failure to open it is kept and returned by every later call.
func (l *libcuda) NVML() (backend.NVML, error) {
	libNVML.Lock()
	defer libNVML.Unlock()
	if libNVML.lib == nil && libNVML.err == nil {
		libNVML.lib, libNVML.err = libnvml.Open()
	}
	if libNVML.err != nil {
		return nil, libNVML.err
	}
	return libNVML.lib, nil
}

var _ backend.NVMLProvider = (*libcuda)(nil)
