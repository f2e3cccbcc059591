//go:build linux && (amd64 || arm64)

package libnccl

import (
	"errors"
	"runtime"
	"strconv"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/cstr"
	"github.com/nocgo/cuda/internal/dl"
	"github.com/nocgo/cuda/internal/symtab"
	"github.com/nocgo/cuda/loader"
)

// sym indexes the NCCL entry points.
type sym int

const (
	symGetVersion sym = iota
	symGetUniqueID
	symCommInitRankScalable
	symCommInitRankConfig
	symCommInitAll
	symCommSplit
	symCommFinalize
	symCommDestroy
	symCommAbort
	symCommGetAsyncError
	symCommCount
	symCommCuDevice
	symCommUserRank
	symGetErrorString
	symGetLastError
	symGroupStart
	symGroupEnd
	symAllReduce
	symBroadcast
	symReduce
	symAllGather
	symReduceScatter
	symSend
	symRecv
	numSyms
)

// syms names each entry point and the NCCL version (major*10000 +
// minor*100) that introduced it, 0 for those of every NCCL 2.
var syms = [numSyms]struct {
	name  string
	since int
}{
	symGetVersion:           {abi.NcclGetVersion, 0},
	symGetUniqueID:          {abi.NcclGetUniqueId, 0},
	symCommInitRankScalable: {abi.NcclCommInitRankScalable, 22300},
	symCommInitRankConfig:   {abi.NcclCommInitRankConfig, 21400},
	symCommInitAll:          {abi.NcclCommInitAll, 0},
	symCommSplit:            {abi.NcclCommSplit, 21800},
	symCommFinalize:         {abi.NcclCommFinalize, 21400},
	symCommDestroy:          {abi.NcclCommDestroy, 0},
	symCommAbort:            {abi.NcclCommAbort, 0},
	symCommGetAsyncError:    {abi.NcclCommGetAsyncError, 0},
	symCommCount:            {abi.NcclCommCount, 0},
	symCommCuDevice:         {abi.NcclCommCuDevice, 0},
	symCommUserRank:         {abi.NcclCommUserRank, 0},
	symGetErrorString:       {abi.NcclGetErrorString, 0},
	symGetLastError:         {abi.NcclGetLastError, 21300},
	symGroupStart:           {abi.NcclGroupStart, 0},
	symGroupEnd:             {abi.NcclGroupEnd, 0},
	symAllReduce:            {abi.NcclAllReduce, 0},
	symBroadcast:            {abi.NcclBroadcast, 0},
	symReduce:               {abi.NcclReduce, 0},
	symAllGather:            {abi.NcclAllGather, 0},
	symReduceScatter:        {abi.NcclReduceScatter, 0},
	symSend:                 {abi.NcclSend, 20700},
	symRecv:                 {abi.NcclRecv, 20700},
}

// Lib is the real NCCL: libnccl through internal/dl.CallN.
type Lib struct {
	lib  *loader.Library
	syms *symtab.Table // the entry points, resolved on first use
}

var _ backend.NCCL = (*Lib)(nil)

// Open opens libnccl through package loader.
func Open() (*Lib, error) {
	lib, err := loader.Open(loader.NCCL)
	if err != nil {
		return nil, err
	}
	t := symtab.InLibrary(lib, int(numSyms), func(i int) string { return syms[i].name })
	return &Lib{lib: lib, syms: symtab.New(int(numSyms), func(i int) (uintptr, error) {
		p, err := t.Get(i)
		var se *loader.SymbolError
		if err != nil && errors.As(err, &se) && syms[i].since > 0 {
			se.Err = errors.New("needs NCCL " + version(syms[i].since) + " or later")
		}
		return p, err
	})}, nil
}

// Path returns the path of the library opened.
func (l *Lib) Path() string { return l.lib.Path() }

// fn returns the address of entry point s, resolving it on first use.
func (l *Lib) fn(s sym) (uintptr, error) {
	return l.syms.Get(int(s))
}

func version(v int) string {
	return strconv.Itoa(v/10000) + "." + strconv.Itoa(v%10000/100)
}

// check turns an ncclResult_t (a 32-bit enum in a 64-bit register) from op
// into nil or an *NCCLError with NCCL's text and last error.
func (l *Lib) check(op string, r uintptr, comm uintptr) error {
	code := backend.NCCLResult(int32(uint32(r)))
	if code == 0 {
		return nil
	}
	return &backend.NCCLError{Result: code, Op: op, Text: l.errorString(code), Detail: l.LastError(comm)}
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

// Version is ncclGetVersion(int*).
func (l *Lib) Version() (int, error) {
	p, err := l.fn(symGetVersion)
	if err != nil {
		return 0, err
	}
	var v int32
	r := dl.Call1(p, uintptr(unsafe.Pointer(&v)))
	return int(v), l.check("ncclGetVersion", r, 0)
}

// GetUniqueID is ncclGetUniqueId(ncclUniqueId*).
func (l *Lib) GetUniqueID() (backend.NCCLUniqueID, error) {
	p, err := l.fn(symGetUniqueID)
	if err != nil {
		return backend.NCCLUniqueID{}, err
	}
	var id backend.NCCLUniqueID
	r := dl.Call1(p, uintptr(unsafe.Pointer(&id)))
	return id, l.check("ncclGetUniqueId", r, 0)
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
	return l.check("ncclCommInitRankScalable", r, *comm)
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
	if err := l.check("ncclCommInitAll", r, 0); err != nil {
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
	return l.check("ncclCommSplit", r, comm)
}

func (l *Lib) call1(s sym, comm uintptr) error {
	p, err := l.fn(s)
	if err != nil {
		return err
	}
	return l.check(syms[s].name, dl.Call1(p, comm), comm)
}

// CommFinalize is ncclCommFinalize(ncclComm_t).
func (l *Lib) CommFinalize(comm uintptr) error { return l.call1(symCommFinalize, comm) }

// CommDestroy is ncclCommDestroy(ncclComm_t).
func (l *Lib) CommDestroy(comm uintptr) error { return l.call1(symCommDestroy, comm) }

// CommAbort is ncclCommAbort(ncclComm_t).
func (l *Lib) CommAbort(comm uintptr) error { return l.call1(symCommAbort, comm) }

// CommGetAsyncError is ncclCommGetAsyncError(ncclComm_t, ncclResult_t*).
func (l *Lib) CommGetAsyncError(comm uintptr) (error, error) {
	p, err := l.fn(symCommGetAsyncError)
	if err != nil {
		return nil, err
	}
	var async int32
	r := dl.Call2(p, comm, uintptr(unsafe.Pointer(&async)))
	if err := l.check("ncclCommGetAsyncError", r, comm); err != nil {
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

func (l *Lib) intOut(s sym, comm uintptr) (int, error) {
	p, err := l.fn(s)
	if err != nil {
		return 0, err
	}
	var v int32
	r := dl.Call2(p, comm, uintptr(unsafe.Pointer(&v)))
	return int(v), l.check(syms[s].name, r, comm)
}

// CommCount is ncclCommCount(const ncclComm_t, int*).
func (l *Lib) CommCount(comm uintptr) (int, error) { return l.intOut(symCommCount, comm) }

// CommCuDevice is ncclCommCuDevice(const ncclComm_t, int*).
func (l *Lib) CommCuDevice(comm uintptr) (int, error) { return l.intOut(symCommCuDevice, comm) }

// CommUserRank is ncclCommUserRank(const ncclComm_t, int*).
func (l *Lib) CommUserRank(comm uintptr) (int, error) { return l.intOut(symCommUserRank, comm) }

// GroupStart is ncclGroupStart().
func (l *Lib) GroupStart() error {
	p, err := l.fn(symGroupStart)
	if err != nil {
		return err
	}
	return l.check("ncclGroupStart", dl.Call0(p), 0)
}

// GroupEnd is ncclGroupEnd().
func (l *Lib) GroupEnd() error {
	p, err := l.fn(symGroupEnd)
	if err != nil {
		return err
	}
	return l.check("ncclGroupEnd", dl.Call0(p), 0)
}

// AllReduce is ncclAllReduce(const void* sendbuff, void* recvbuff, size_t
// count, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t).
func (l *Lib) AllReduce(send, recv, count uintptr, dt backend.NCCLDataType, op backend.NCCLRedOp, comm, s uintptr) error {
	p, err := l.fn(symAllReduce)
	if err != nil {
		return err
	}
	r := dl.Call7(p, send, recv, count, uintptr(dt), uintptr(op), comm, s)
	return l.check("ncclAllReduce", r, comm)
}

// Broadcast is ncclBroadcast(const void*, void*, size_t count,
// ncclDataType_t, int root, ncclComm_t, cudaStream_t).
func (l *Lib) Broadcast(send, recv, count uintptr, dt backend.NCCLDataType, root int, comm, s uintptr) error {
	p, err := l.fn(symBroadcast)
	if err != nil {
		return err
	}
	r := dl.Call7(p, send, recv, count, uintptr(dt), uintptr(int64(root)), comm, s)
	return l.check("ncclBroadcast", r, comm)
}

// Reduce is ncclReduce(const void*, void*, size_t count, ncclDataType_t,
// ncclRedOp_t, int root, ncclComm_t, cudaStream_t).
func (l *Lib) Reduce(send, recv, count uintptr, dt backend.NCCLDataType, op backend.NCCLRedOp, root int, comm, s uintptr) error {
	p, err := l.fn(symReduce)
	if err != nil {
		return err
	}
	r := dl.Call8(p, send, recv, count, uintptr(dt), uintptr(op), uintptr(int64(root)), comm, s)
	return l.check("ncclReduce", r, comm)
}

// AllGather is ncclAllGather(const void*, void*, size_t sendcount,
// ncclDataType_t, ncclComm_t, cudaStream_t).
func (l *Lib) AllGather(send, recv, count uintptr, dt backend.NCCLDataType, comm, s uintptr) error {
	p, err := l.fn(symAllGather)
	if err != nil {
		return err
	}
	r := dl.Call6(p, send, recv, count, uintptr(dt), comm, s)
	return l.check("ncclAllGather", r, comm)
}

// ReduceScatter is ncclReduceScatter(const void*, void*, size_t recvcount,
// ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t).
func (l *Lib) ReduceScatter(send, recv, count uintptr, dt backend.NCCLDataType, op backend.NCCLRedOp, comm, s uintptr) error {
	p, err := l.fn(symReduceScatter)
	if err != nil {
		return err
	}
	r := dl.Call7(p, send, recv, count, uintptr(dt), uintptr(op), comm, s)
	return l.check("ncclReduceScatter", r, comm)
}

// Send is ncclSend(const void*, size_t count, ncclDataType_t, int peer,
// ncclComm_t, cudaStream_t).
func (l *Lib) Send(buf, count uintptr, dt backend.NCCLDataType, peer int, comm, s uintptr) error {
	p, err := l.fn(symSend)
	if err != nil {
		return err
	}
	r := dl.Call6(p, buf, count, uintptr(dt), uintptr(int64(peer)), comm, s)
	return l.check("ncclSend", r, comm)
}

// Recv is ncclRecv(void*, size_t count, ncclDataType_t, int peer,
// ncclComm_t, cudaStream_t).
func (l *Lib) Recv(buf, count uintptr, dt backend.NCCLDataType, peer int, comm, s uintptr) error {
	p, err := l.fn(symRecv)
	if err != nil {
		return err
	}
	r := dl.Call6(p, buf, count, uintptr(dt), uintptr(int64(peer)), comm, s)
	return l.check("ncclRecv", r, comm)
}
