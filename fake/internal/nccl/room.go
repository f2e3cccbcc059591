package nccl

import (
	"crypto/rand"
	"sync"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/core"
)

// Room is the fake's NCCL, a backend.NCCL: communicators across the fake
// devices of one backend, made in one process by goroutines (one per rank,
// meeting by UniqueID, as processes do on real NCCL) or by one goroutine
// (CommInitAll, or groups). Collectives are items on the ranks' streams
// (coll.go). It is safe for concurrent use.
//
// As NCCL does: a non-blocking communicator (ncclConfig_t.blocking 0) is
// handed out at once from ncclCommInitRankConfig and ncclCommSplit, which
// return ncclInProgress, and ncclCommGetAsyncError says ncclInProgress
// until every rank has joined (ncclGroupEnd returns ncclInProgress for
// the group's non-blocking ones); ncclCommAbort or ncclCommDestroy of a
// rank before every rank joined an init or a split breaks it, and the
// others' waits for it end with ncclRemoteError (NCCL's bootstrap loses
// the peer); a rank's collective waiting for a peer ends, with no result,
// when its own communicator is aborted (see Room.run).
type Room struct {
	core Core

	mu      sync.Mutex                       // guards everything below
	met     sync.Cond                        // on mu: a rank joined, a split completed, a part was queued, a communicator ended
	pending map[backend.NCCLUniqueID]*clique // cliques whose ranks are still joining
	used    map[backend.NCCLUniqueID]bool    // ids whose communicator is made: their root stopped listening
	comms   map[uintptr]*comm
	next    uintptr
	groups  map[int64]*group // per OS thread
	last    string           // ncclGetLastError
}

// New returns the NCCL of the core c, with no communicators.
func New(c Core) *Room {
	r := &Room{
		core:    c,
		pending: map[backend.NCCLUniqueID]*clique{},
		used:    map[backend.NCCLUniqueID]bool{},
		comms:   map[uintptr]*comm{},
		groups:  map[int64]*group{},
		next:    0x7c000000,
	}
	r.met.L = &r.mu
	return r
}

var _ backend.NCCL = (*Room)(nil)

// version is the NCCL version the fake reports: 2.28.9.
const version = 22809

// idMagic starts every UniqueID the fake makes; the rest is random.
var idMagic = [16]byte{'n', 'o', 'c', 'g', 'o', '/', 'f', 'a', 'k', 'e', ' ', 'n', 'c', 'c', 'l', 0}

func ncclErr(op string, r backend.NCCLResult, detail string) error {
	return &backend.NCCLError{Result: r, Op: op, Text: ncclText[r], Detail: detail}
}

// ncclText is what ncclGetErrorString says for each result (NCCL 2.28).
var ncclText = map[backend.NCCLResult]string{
	backend.NCCLUnhandledCudaError: "unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
	backend.NCCLSystemError:        "unhandled system error (run with NCCL_DEBUG=INFO for details)",
	backend.NCCLInternalError:      "internal error - please report this issue to the NCCL developers",
	backend.NCCLInvalidArgument:    "invalid argument (run with NCCL_DEBUG=WARN for details)",
	backend.NCCLInvalidUsage:       "invalid usage (run with NCCL_DEBUG=WARN for details)",
	backend.NCCLRemoteError:        "remote process exited or there was a network error",
	backend.NCCLInProgress:         "NCCL operation in progress",
}

// enter applies FailNth to an NCCL entry point: the rule's code is taken
// as an ncclResult (as the NVRTC entry points take it as an nvrtcResult),
// returned as an *backend.NCCLError and recorded as the last error.
func (r *Room) enter(op string) error {
	if err := r.core.Fault(op); err != nil {
		return r.fail(op, backend.NCCLResult(err.(driver.Result)), "injected by fake.FailNth")
	}
	return nil
}

// fail records detail as the last error and returns the error.
func (r *Room) fail(op string, res backend.NCCLResult, detail string) error {
	r.mu.Lock()
	r.last = detail
	r.mu.Unlock()
	return ncclErr(op, res, detail)
}

// failLocked is fail with the room's lock held.
func (r *Room) failLocked(op string, res backend.NCCLResult, detail string) error {
	r.last = detail
	return ncclErr(op, res, detail)
}

// groupErr is NCCL's ncclGroupErrCheck for the calls that take part in a
// group (communicator init and split, collectives, Send and Recv): a call
// that fails inside a group fails the group, whose ncclGroupEnd returns
// the error and issues nothing.
func (r *Room) groupErr(err *error) {
	if *err == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if g := r.groups[core.ThreadID()]; g != nil && g.failed == nil {
		g.failed = *err
	}
}

// Version is ncclGetVersion.
func (r *Room) Version() (int, error) {
	if err := r.enter(abi.NcclGetVersion); err != nil {
		return 0, err
	}
	return version, nil
}

// GetUniqueID is ncclGetUniqueId: an id that makes one communicator.
func (r *Room) GetUniqueID() (backend.NCCLUniqueID, error) {
	var id backend.NCCLUniqueID
	if err := r.enter(abi.NcclGetUniqueId); err != nil {
		return id, err
	}
	copy(id[:], idMagic[:])
	_, _ = rand.Read(id[len(idMagic):])
	return id, nil
}

// LastError is ncclGetLastError: the detail of the latest failure.
func (r *Room) LastError(uintptr) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}
