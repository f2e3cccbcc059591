//go:build linux

package libnccl

import (
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/dl"
)

// initRankByValue calls ncclCommInitRankConfig(ncclComm_t*, int nranks,
// ncclUniqueId, int rank, ncclConfig_t*), for an NCCL older than 2.23.
// AAPCS64 passes a composite over 16 bytes by reference: the caller copies
// it to memory (ids, a heap copy the callee may write to) and passes the
// copy's address in the next general register (x2); rank and config follow
// in x3 and x4.
func (l *Lib) initRankByValue(nranks int, ids *backend.NCCLUniqueID, rank int, c *config, name []byte, comm *uintptr) error {
	p, err := l.fn(symCommInitRankConfig)
	if err != nil {
		return err
	}
	r := dl.Call5(p, uintptr(unsafe.Pointer(comm)), uintptr(int64(nranks)), uintptr(unsafe.Pointer(ids)),
		uintptr(int64(rank)), uintptr(unsafe.Pointer(c)))
	runtime.KeepAlive(ids)
	runtime.KeepAlive(c)
	runtime.KeepAlive(name)
	runtime.KeepAlive(comm)
	return l.checkIn(symCommInitRankConfig, r, *comm)
}
