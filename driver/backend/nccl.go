package backend

import "strconv"

// NCCLProvider is implemented by backends that come with collective
// communication (NCCL). The real backend opens libnccl on the first call;
// the fake answers with its own in-process NCCL across its devices.
type NCCLProvider interface {
	NCCL() (NCCL, error)
}

// NCCL is the seam to the collective communication library (libnccl),
// beside API: one method per NCCL entry point, communicators (ncclComm_t)
// and streams (cudaStream_t, which is a CUstream) as uintptr, device
// pointers as uintptr, counts in elements.
//
// Calls that create communicators (CommInitRank) work on the calling OS
// thread's current context, as NCCL reads the current device; callers bind
// the context first. Group calls (GroupStart, GroupEnd and everything
// between) are per OS thread: callers lock the goroutine to its thread for
// the group's duration.
//
// Failed calls return an *NCCLError (errors.Is with an NCCLResult).
type NCCL interface {
	// Version is ncclGetVersion: major*10000 + minor*100 + patch (2.9 and later).
	Version() (int, error)
	// GetUniqueID is ncclGetUniqueId.
	GetUniqueID() (NCCLUniqueID, error)
	// CommInitRank is ncclCommInitRankConfig (or an equivalent taking the id
	// by address): rank's communicator of nranks on the current context's
	// device, stored in *comm. cfg nil means NCCL's defaults. Outside a
	// group, and in blocking mode, it returns when every rank has joined.
	//
	// NCCL may write *comm after the call returns (at the end of the
	// enclosing group, or when a non-blocking call completes): comm must be
	// heap memory that the caller keeps alive until then.
	CommInitRank(nranks int, id NCCLUniqueID, rank int, cfg *NCCLConfig, comm *uintptr) error
	// CommInitAll is ncclCommInitAll: one communicator per device ordinal,
	// ranks in the order of devs.
	CommInitAll(devs []int) ([]uintptr, error)
	// CommSplit is ncclCommSplit: the new communicator is stored in
	// *newcomm, which stays 0 for color NCCLSplitNoColor. cfg nil inherits
	// comm's configuration. NCCL writes *newcomm when the split completes:
	// at the end of the enclosing group, or later for a non-blocking
	// communicator; newcomm must be heap memory kept alive until then.
	CommSplit(comm uintptr, color, key int, cfg *NCCLConfig, newcomm *uintptr) error
	CommFinalize(comm uintptr) error
	CommDestroy(comm uintptr) error
	CommAbort(comm uintptr) error
	// CommGetAsyncError is ncclCommGetAsyncError: the communicator's
	// asynchronous state, nil for ncclSuccess (an *NCCLError otherwise,
	// NCCLInProgress while a non-blocking operation runs). err is the
	// call's own failure.
	CommGetAsyncError(comm uintptr) (async, err error)
	CommCount(comm uintptr) (int, error)
	CommCuDevice(comm uintptr) (int, error)
	CommUserRank(comm uintptr) (int, error)
	// LastError is ncclGetLastError: the text of the last failure, "" for none.
	LastError(comm uintptr) string

	GroupStart() error
	GroupEnd() error

	AllReduce(send, recv, count uintptr, dt NCCLDataType, op NCCLRedOp, comm, s uintptr) error
	Broadcast(send, recv, count uintptr, dt NCCLDataType, root int, comm, s uintptr) error
	Reduce(send, recv, count uintptr, dt NCCLDataType, op NCCLRedOp, root int, comm, s uintptr) error
	// AllGather: count is the elements each rank sends.
	AllGather(send, recv, count uintptr, dt NCCLDataType, comm, s uintptr) error
	// ReduceScatter: count is the elements each rank receives.
	ReduceScatter(send, recv, count uintptr, dt NCCLDataType, op NCCLRedOp, comm, s uintptr) error
	Send(buf, count uintptr, dt NCCLDataType, peer int, comm, s uintptr) error
	Recv(buf, count uintptr, dt NCCLDataType, peer int, comm, s uintptr) error
}

// NCCLUniqueID is an ncclUniqueId: 128 opaque bytes (NCCL_UNIQUE_ID_BYTES).
type NCCLUniqueID [128]byte

// NCCLConfigUndef is NCCL_CONFIG_UNDEF_INT (INT_MIN): "NCCL's default" for
// an NCCLConfig field.
const NCCLConfigUndef = -1 << 31

// NCCLConfig is the part of ncclConfig_t the seam passes: each field is
// NCCLConfigUndef for NCCL's default. The real backend lays it out as the
// ncclConfig_t of NCCL 2.17, which every later NCCL accepts (the struct is
// versioned by its size and version fields).
type NCCLConfig struct {
	Blocking       int32 // 1 blocking (the default), 0 non-blocking
	CGAClusterSize int32
	MinCTAs        int32
	MaxCTAs        int32
	SplitShare     int32  // 1: a split child shares its parent's resources
	NetName        string // "" for NCCL's choice ("IB", "Socket", a plugin's name)
}

// NCCLSplitNoColor is NCCL_SPLIT_NOCOLOR: the rank joins no new communicator.
const NCCLSplitNoColor = -1

// NCCLDataType is an ncclDataType_t.
type NCCLDataType int32

// The ncclDataType_t values (nccl.h, 2.19 and later; the same since 2.0 for 0-8).
const (
	NCCLInt8     NCCLDataType = 0
	NCCLUint8    NCCLDataType = 1
	NCCLInt32    NCCLDataType = 2
	NCCLUint32   NCCLDataType = 3
	NCCLInt64    NCCLDataType = 4
	NCCLUint64   NCCLDataType = 5
	NCCLFloat16  NCCLDataType = 6
	NCCLFloat32  NCCLDataType = 7
	NCCLFloat64  NCCLDataType = 8
	NCCLBfloat16 NCCLDataType = 9
)

// Size returns the size of one element in bytes, 0 for an unknown type.
func (t NCCLDataType) Size() int {
	switch t {
	case NCCLInt8, NCCLUint8:
		return 1
	case NCCLFloat16, NCCLBfloat16:
		return 2
	case NCCLInt32, NCCLUint32, NCCLFloat32:
		return 4
	case NCCLInt64, NCCLUint64, NCCLFloat64:
		return 8
	}
	return 0
}

// NCCLRedOp is an ncclRedOp_t.
type NCCLRedOp int32

// The built-in ncclRedOp_t values.
const (
	NCCLSum  NCCLRedOp = 0
	NCCLProd NCCLRedOp = 1
	NCCLMax  NCCLRedOp = 2
	NCCLMin  NCCLRedOp = 3
	NCCLAvg  NCCLRedOp = 4
)

// NCCLResult is an ncclResult_t other than ncclSuccess. It is an error;
// NCCL failures are *NCCLError values that match their NCCLResult with
// errors.Is.
type NCCLResult int32

// The ncclResult_t codes (nccl.h).
const (
	NCCLUnhandledCudaError NCCLResult = 1
	NCCLSystemError        NCCLResult = 2
	NCCLInternalError      NCCLResult = 3
	NCCLInvalidArgument    NCCLResult = 4
	NCCLInvalidUsage       NCCLResult = 5
	NCCLRemoteError        NCCLResult = 6
	NCCLInProgress         NCCLResult = 7
	NCCLTimeout            NCCLResult = 8
)

var ncclNames = map[NCCLResult]string{
	NCCLUnhandledCudaError: "ncclUnhandledCudaError",
	NCCLSystemError:        "ncclSystemError",
	NCCLInternalError:      "ncclInternalError",
	NCCLInvalidArgument:    "ncclInvalidArgument",
	NCCLInvalidUsage:       "ncclInvalidUsage",
	NCCLRemoteError:        "ncclRemoteError",
	NCCLInProgress:         "ncclInProgress",
	NCCLTimeout:            "ncclTimeout",
}

// Name returns the enumerator's name, "ncclInvalidArgument" and the like.
func (r NCCLResult) Name() string {
	if n, ok := ncclNames[r]; ok {
		return n
	}
	return "ncclResult(" + strconv.Itoa(int(r)) + ")"
}

// Error returns the name.
func (r NCCLResult) Error() string { return r.Name() }

// NCCLError is a failed NCCL call: the result, the entry point, NCCL's
// text for the result (ncclGetErrorString) and, when NCCL gave one, the
// detail of ncclGetLastError.
type NCCLError struct {
	Result NCCLResult
	Op     string // "ncclAllReduce"
	Text   string // "invalid argument (run with NCCL_DEBUG=WARN for details)"
	Detail string // ncclGetLastError, "" for none
}

// Error returns "ncclAllReduce: ncclInvalidArgument: invalid argument ...: detail".
func (e *NCCLError) Error() string {
	s := e.Op + ": " + e.Result.Name()
	if e.Text != "" {
		s += ": " + e.Text
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the NCCLResult.
func (e *NCCLError) Unwrap() error { return e.Result }
