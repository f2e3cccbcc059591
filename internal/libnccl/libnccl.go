//go:build linux && (amd64 || arm64)

package libnccl

import (
	"errors"
	"runtime"
	"strconv"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/cstr"
	"github.com/nocgo/cuda/internal/dl"
)

// needs is the reason of an entry point this NCCL lacks.
func needs(since int) error { return errors.New("needs NCCL " + version(since) + " or later") }

func version(v int) string {
	return strconv.Itoa(v/10000) + "." + strconv.Itoa(v%10000/100)
}

// checkIn turns an ncclResult_t (a 32-bit enum in a 64-bit register) from
// s on comm into nil or an *NCCLError with NCCL's text and last error.
func (l *Lib) checkIn(s sym, r uintptr, comm uintptr) error {
	code := backend.NCCLResult(int32(uint32(r)))
	if code == 0 {
		return nil
	}
	return &backend.NCCLError{Result: code, Op: symEntries[s].Name, Text: l.errorString(code), Detail: l.LastError(comm)}
}

// check is checkIn for a call on no communicator.
func (l *Lib) check(s sym, r uintptr) error { return l.checkIn(s, r, 0) }

// tooBig is the error of s for a Go int beyond a C int.
func (l *Lib) tooBig(s sym) error {
	return &backend.NCCLError{Result: backend.NCCLInvalidArgument, Op: symEntries[s].Name, Detail: "a rank or peer beyond a C int"}
}

// cString reads the const char* a call returned: stored through memory so
// that it is a pointer from the start, never an integer turned into one.
func cString(r uintptr) string {
	var p unsafe.Pointer
	*(*uintptr)(unsafe.Pointer(&p)) = r
	return cstr.GoString(p)
}

// errorString is ncclGetErrorString(result).
func (l *Lib) errorString(r backend.NCCLResult) string {
	p, err := l.fn(symGetErrorString)
	if err != nil {
		return ""
	}
	return cString(dl.Call1(p, uintptr(uint32(r))))
}

// LastError is ncclGetLastError(comm): NCCL's text of the last failure on
// the calling thread ("" for none or before NCCL 2.13).
func (l *Lib) LastError(comm uintptr) string {
	p, err := l.fn(symGetLastError)
	if err != nil {
		return ""
	}
	return cString(dl.Call1(p, comm))
}

// CommInitRank is ncclCommInitRankScalable(ncclComm_t*, int nranks, int
// myrank, int nId, ncclUniqueId*, ncclConfig_t*) with one id (see the
// package documentation), or on an older NCCL the by-value
// ncclCommInitRankConfig where the architecture allows it.
func (l *Lib) CommInitRank(nranks int, id backend.NCCLUniqueID, rank int, cfg *backend.NCCLConfig, comm *uintptr) error {
	c, name, err := newConfig(cfg)
	if err != nil {
		return &backend.NCCLError{Result: backend.NCCLInvalidArgument, Op: "ncclCommInitRankConfig", Detail: "netName: " + err.Error()}
	}
	ids := new(backend.NCCLUniqueID) // heap: NCCL reads it during the call
	*ids = id
	p, err := l.fn(symCommInitRankScalable)
	if err != nil {
		return l.initRankByValue(nranks, ids, rank, c, name, comm)
	}
	r := dl.Call6(p, uintptr(unsafe.Pointer(comm)), uintptr(int64(nranks)), uintptr(int64(rank)), 1,
		uintptr(unsafe.Pointer(ids)), uintptr(unsafe.Pointer(c)))
	runtime.KeepAlive(ids)
	runtime.KeepAlive(c)
	runtime.KeepAlive(name)
	runtime.KeepAlive(comm)
	return l.checkIn(symCommInitRankScalable, r, *comm)
}

// CommInitAll is ncclCommInitAll(ncclComm_t*, int ndev, const int* devlist).
func (l *Lib) CommInitAll(devs []int) ([]uintptr, error) {
	p, err := l.fn(symCommInitAll)
	if err != nil {
		return nil, err
	}
	list := make([]int32, len(devs))
	for i, d := range devs {
		list[i] = int32(d)
	}
	comms := make([]uintptr, len(devs))
	r := dl.Call3(p, uintptr(unsafe.Pointer(unsafe.SliceData(comms))), uintptr(len(devs)), uintptr(unsafe.Pointer(unsafe.SliceData(list))))
	runtime.KeepAlive(list)
	runtime.KeepAlive(comms)
	if err := l.check(symCommInitAll, r); err != nil {
		return nil, err
	}
	return comms, nil
}

// CommSplit is ncclCommSplit(ncclComm_t, int color, int key, ncclComm_t*, ncclConfig_t*).
func (l *Lib) CommSplit(comm uintptr, color, key int, cfg *backend.NCCLConfig, newcomm *uintptr) error {
	p, err := l.fn(symCommSplit)
	if err != nil {
		return err
	}
	c, name, err := newConfig(cfg)
	if err != nil {
		return &backend.NCCLError{Result: backend.NCCLInvalidArgument, Op: "ncclCommSplit", Detail: "netName: " + err.Error()}
	}
	r := dl.Call5(p, comm, uintptr(int64(color)), uintptr(int64(key)), uintptr(unsafe.Pointer(newcomm)), uintptr(unsafe.Pointer(c)))
	runtime.KeepAlive(c)
	runtime.KeepAlive(name)
	runtime.KeepAlive(newcomm)
	return l.checkIn(symCommSplit, r, comm)
}

// CommGetAsyncError is ncclCommGetAsyncError(ncclComm_t, ncclResult_t*).
func (l *Lib) CommGetAsyncError(comm uintptr) (error, error) {
	p, err := l.fn(symCommGetAsyncError)
	if err != nil {
		return nil, err
	}
	var async int32
	r := dl.Call2(p, comm, uintptr(unsafe.Pointer(&async)))
	if err := l.checkIn(symCommGetAsyncError, r, comm); err != nil {
		return nil, err
	}
	if async == 0 {
		return nil, nil
	}
	code := backend.NCCLResult(async)
	detail := ""
	if code != backend.NCCLInProgress {
		detail = l.LastError(comm)
	}
	return &backend.NCCLError{Result: code, Op: "ncclCommGetAsyncError", Text: l.errorString(code), Detail: detail}, nil
}
