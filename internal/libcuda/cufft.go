//go:build linux && (amd64 || arm64)

package libcuda

import (
	"sync"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/libcufft"
)

// libCUFFT is libcufft, opened on the first CUFFT call. Like the libraries
// themselves it is one per process.
var libCUFFT struct {
	sync.Mutex
	lib *libcufft.Lib
	err error
}

// CUFFT opens libcufft (through package loader) on the first call and returns
// it; a failure to open it is kept and returned by every later call.
func (l *libcuda) CUFFT() (backend.CUFFT, error) {
	libCUFFT.Lock()
	defer libCUFFT.Unlock()
	if libCUFFT.lib == nil && libCUFFT.err == nil {
		libCUFFT.lib, libCUFFT.err = libcufft.Open()
	}
	if libCUFFT.err != nil {
		return nil, libCUFFT.err
	}
	return libCUFFT.lib, nil
}

var _ backend.FFTProvider = (*libcuda)(nil)
