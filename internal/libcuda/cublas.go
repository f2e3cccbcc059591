//go:build linux && (amd64 || arm64)

package libcuda

import (
	"sync"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/libcublas"
)

// libCUBLAS and libCUBLASLt are libcublas and libcublasLt, each opened on
// its first call. Like the libraries themselves they are one per process;
// a failure to open one is kept and returned by every later call, and
// breaks nothing else.
var (
	libCUBLAS struct {
		sync.Mutex
		lib *libcublas.Lib
		err error
	}
	libCUBLASLt struct {
		sync.Mutex
		lib *libcublas.LtLib
		err error
	}
)

// CUBLAS opens libcublas (through package loader) on the first call and
// returns it.
func (l *libcuda) CUBLAS() (backend.CUBLAS, error) {
	libCUBLAS.Lock()
	defer libCUBLAS.Unlock()
	if libCUBLAS.lib == nil && libCUBLAS.err == nil {
		libCUBLAS.lib, libCUBLAS.err = libcublas.Open()
	}
	if libCUBLAS.err != nil {
		return nil, libCUBLAS.err
	}
	return libCUBLAS.lib, nil
}

// CUBLASLt opens libcublasLt on the first call and returns it.
func (l *libcuda) CUBLASLt() (backend.CUBLASLt, error) {
	libCUBLASLt.Lock()
	defer libCUBLASLt.Unlock()
	if libCUBLASLt.lib == nil && libCUBLASLt.err == nil {
		libCUBLASLt.lib, libCUBLASLt.err = libcublas.OpenLt()
	}
	if libCUBLASLt.err != nil {
		return nil, libCUBLASLt.err
	}
	return libCUBLASLt.lib, nil
}

var (
	_ backend.BLASProvider   = (*libcuda)(nil)
	_ backend.BLASLtProvider = (*libcuda)(nil)
)
