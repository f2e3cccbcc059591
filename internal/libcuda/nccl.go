//go:build linux && (amd64 || arm64)

package libcuda

import (
	"sync"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/libnccl"
)

// libNCCL is libnccl, opened on the first NCCL call. Like the libraries
// themselves it is one per process.
var libNCCL struct {
	sync.Mutex
	lib *libnccl.Lib
	err error
}

// NCCL opens libnccl (through package loader) on the first call and returns
// it; a failure to open it is kept and returned by every later call.
func (l *libcuda) NCCL() (backend.NCCL, error) {
	libNCCL.Lock()
	defer libNCCL.Unlock()
	if libNCCL.lib == nil && libNCCL.err == nil {
		libNCCL.lib, libNCCL.err = libnccl.Open()
	}
	if libNCCL.err != nil {
		return nil, libNCCL.err
	}
	return libNCCL.lib, nil
}

var _ backend.NCCLProvider = (*libcuda)(nil)
