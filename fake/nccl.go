package fake

import (
	"cmp"
	"crypto/rand"
	"errors"
	"slices"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/core"
)

// The fake's NCCL: communicators across the fake devices of one Backend,
// made in one process by goroutines (one per rank, meeting by UniqueID, as
// processes do on real NCCL) or by one goroutine (CommInitAll, or groups).
// Collectives are items on the ranks' streams (nccl_coll.go). All of its
// state is guarded by the table lock (Backend.mu), and every wait is on
// Backend.finished, so that NCCL's rendezvous and the streams' work wake
// each other.
//
// As NCCL does: a non-blocking communicator (ncclConfig_t.blocking 0) is
// handed out at once from ncclCommInitRankConfig and ncclCommSplit, which
// return ncclInProgress, and ncclCommGetAsyncError says ncclInProgress
// until every rank has joined (ncclGroupEnd returns ncclInProgress for
// the group's non-blocking ones); ncclCommAbort or ncclCommDestroy of a
// rank before every rank joined an init or a split breaks it, and the
// others' waits for it end with ncclRemoteError (NCCL's bootstrap loses
// the peer); a rank's collective waiting for a peer ends, with no result,
// when its own communicator is aborted (see runColl).

// fakeNCCLVersion is the NCCL version the fake reports: 2.28.9.
const fakeNCCLVersion = 22809

// idMagic starts every UniqueID the fake makes; the rest is random.
var idMagic = [16]byte{'n', 'o', 'c', 'g', 'o', '/', 'f', 'a', 'k', 'e', ' ', 'n', 'c', 'c', 'l', 0}

type ncclState struct {
	pending map[backend.NCCLUniqueID]*clique // cliques whose ranks are still joining
	used    map[backend.NCCLUniqueID]bool    // ids whose communicator is made: their root stopped listening
	comms   map[uintptr]*ncclComm
	next    uintptr
	groups  map[int64]*ncclGroup // per OS thread
	last    string               // ncclGetLastError
}

// clique is the set of communicators of one communicator (all ranks).
type clique struct {
	n       int
	members []*ncclComm // by rank
	joined  int
	ops     map[collKey]*collInst // collectives and transfers being matched
	splits  map[uint64]*splitInst
	// broken: a rank was aborted or destroyed before every rank joined,
	// so the communicator can never be made (its peers' inits fail with
	// ncclRemoteError, as NCCL's bootstrap does when a peer goes away).
	broken bool
}

func (c *clique) ready() bool { return c.joined == c.n }

type ncclComm struct {
	h     uintptr
	cl    *clique // nil until its split completes
	rank  int
	dev   int // device ordinal
	ops   uint64
	sends map[int]uint64 // transfers to each peer so far
	recvs map[int]uint64 // and from each
	split uint64         // splits so far
	dead  bool
	// nonBlocking: made with ncclConfig_t.blocking 0. Its init and splits
	// return ncclInProgress and complete meanwhile (ncclCommGetAsyncError
	// tells when), so that a rank waiting for a peer can be aborted.
	nonBlocking bool
	splitting   *splitInst // the non-blocking split of this parent in progress, if any
	from        *splitInst // the split that makes this communicator, until it completes
}

// ncclGroup is an OS thread's group in progress.
type ncclGroup struct {
	depth int
	ops   []*groupOp  // calls to issue at the end
	waits []groupWait // cliques (made in the group) to wait for at the end
	split []groupWait // and splits
	made  []*ncclComm // communicators its splits made, handed out on completion
	// failed is the first call of the group that failed: ncclGroupEnd
	// then returns it and issues nothing (ncclGroupErrCheck).
	failed error
}

// groupWait is a communicator init or split of a group, waited for at the
// group's end unless its communicator is non-blocking.
type groupWait struct {
	cl          *clique    // an init's clique
	si          *splitInst // or a split
	nonBlocking bool
}

// doneLocked reports whether the init or split completed, and whether it
// never can (a peer ended before joining).
func (w groupWait) doneLocked() (done, broken bool) {
	if w.si != nil {
		return w.si.done, w.si.broken
	}
	return w.cl.ready(), w.cl.broken
}

// groupErr is NCCL's ncclGroupErrCheck for the calls that take part in a
// group (communicator init and split, collectives, Send and Recv): a call
// that fails inside a group fails the group, whose ncclGroupEnd returns
// the error and issues nothing.
func (n *fakeNCCL) groupErr(err *error) {
	if *err == nil {
		return
	}
	b := (*fakeBackend)(n)
	b.mu.Lock()
	defer b.mu.Unlock()
	if g := b.ncclLocked().groups[core.ThreadID()]; g != nil && g.failed == nil {
		g.failed = *err
	}
}

func (b *fakeBackend) ncclLocked() *ncclState {
	n := &b.nccl
	if n.comms == nil {
		n.pending = map[backend.NCCLUniqueID]*clique{}
		n.used = map[backend.NCCLUniqueID]bool{}
		n.comms = map[uintptr]*ncclComm{}
		n.groups = map[int64]*ncclGroup{}
		n.next = 0x7c000000
	}
	return n
}

// NCCL returns the fake's NCCL (backend.NCCLProvider).
func (b *fakeBackend) NCCL() (backend.NCCL, error) { return (*fakeNCCL)(b), nil }

// fakeNCCL is the Backend seen as backend.NCCL.
type fakeNCCL fakeBackend

var _ backend.NCCLProvider = (*fakeBackend)(nil)
var _ backend.NCCL = (*fakeNCCL)(nil)

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

// ready is what NCCL's CUDA calls find: an initialised driver, not
// poisoned by a sticky fault.
func (b *fakeBackend) ready() error {
	if !b.inited.Load() {
		return driver.ErrNotInitialized
	}
	if p := b.poison.Load(); p != nil {
		return *p
	}
	return nil
}

// enter applies FailNth to an NCCL entry point: the rule's code is taken
// as an ncclResult (as the NVRTC entry points take it as an nvrtcResult),
// returned as an *backend.NCCLError and recorded as the last error.
func (n *fakeNCCL) enter(op string) error {
	if err := (*fakeBackend)(n).fault(op); err != nil {
		return n.fail(op, backend.NCCLResult(err.(driver.Result)), "injected by fake.FailNth")
	}
	return nil
}

// fail records detail as the last error and returns the error.
func (n *fakeNCCL) fail(op string, r backend.NCCLResult, detail string) error {
	b := (*fakeBackend)(n)
	b.mu.Lock()
	b.ncclLocked().last = detail
	b.mu.Unlock()
	return ncclErr(op, r, detail)
}

func (n *fakeNCCL) Version() (int, error) {
	if err := n.enter(abi.NcclGetVersion); err != nil {
		return 0, err
	}
	return fakeNCCLVersion, nil
}

func (n *fakeNCCL) GetUniqueID() (backend.NCCLUniqueID, error) {
	var id backend.NCCLUniqueID
	if err := n.enter(abi.NcclGetUniqueId); err != nil {
		return id, err
	}
	copy(id[:], idMagic[:])
	_, _ = rand.Read(id[len(idMagic):])
	return id, nil
}

func (n *fakeNCCL) LastError(uintptr) string {
	b := (*fakeBackend)(n)
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.nccl.last
}

func (n *fakeNCCL) newCommLocked(dev, rank int) *ncclComm {
	st := (*fakeBackend)(n).ncclLocked()
	st.next += 0x100
	c := &ncclComm{h: st.next, rank: rank, dev: dev, sends: map[int]uint64{}, recvs: map[int]uint64{}}
	st.comms[c.h] = c
	return c
}

func newClique(n int) *clique {
	return &clique{n: n, members: make([]*ncclComm, n), ops: map[collKey]*collInst{}, splits: map[uint64]*splitInst{}}
}

func (n *fakeNCCL) CommInitRank(nranks int, id backend.NCCLUniqueID, rank int, cfg *backend.NCCLConfig, out *uintptr) (err error) {
	defer n.groupErr(&err)
	h, err := n.commInitRank(nranks, id, rank, cfg)
	*out = h
	return err
}

func (n *fakeNCCL) commInitRank(nranks int, id backend.NCCLUniqueID, rank int, cfg *backend.NCCLConfig) (uintptr, error) {
	const op = abi.NcclCommInitRankConfig
	if err := n.enter(op); err != nil {
		return 0, err
	}
	b := (*fakeBackend)(n)
	if err := b.ready(); err != nil {
		return 0, ncclErr(op, backend.NCCLUnhandledCudaError, err.Error())
	}
	if nranks < 1 || rank < 0 || rank >= nranks {
		return 0, n.fail(op, backend.NCCLInvalidArgument, "Invalid rank requested")
	}
	if cfg != nil && cfg.Blocking != 0 && cfg.Blocking != 1 && cfg.Blocking != backend.NCCLConfigUndef {
		return 0, n.fail(op, backend.NCCLInvalidArgument, "Invalid config blocking attribute value")
	}
	if [16]byte(id[:16]) != idMagic {
		return 0, n.fail(op, backend.NCCLSystemError, "bootstrap: cannot reach the root rank named by the unique id")
	}
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	ctx, err := b.currentLocked(tid)
	if err != nil {
		b.ncclLocked().last = "no CUDA device current"
		return 0, ncclErr(op, backend.NCCLUnhandledCudaError, "no CUDA device current")
	}
	st := b.ncclLocked()
	if st.used[id] {
		st.last = "bootstrap: the root rank of this unique id no longer listens (an id makes one communicator)"
		return 0, ncclErr(op, backend.NCCLSystemError, st.last)
	}
	cl := st.pending[id]
	if cl == nil {
		cl = newClique(nranks)
		st.pending[id] = cl
	}
	if cl.broken {
		st.last = "bootstrap: a rank of this unique id was aborted before every rank joined"
		return 0, ncclErr(op, backend.NCCLRemoteError, st.last)
	}
	if cl.n != nranks || cl.members[rank] != nil {
		st.last = "ranks disagree on the number of ranks, or a rank joined twice"
		return 0, ncclErr(op, backend.NCCLInvalidUsage, st.last)
	}
	for _, m := range cl.members {
		if m != nil && m.dev == ctx.dev.ordinal {
			st.last = "Duplicate GPU detected"
			return 0, ncclErr(op, backend.NCCLInvalidUsage, st.last)
		}
	}
	c := n.newCommLocked(ctx.dev.ordinal, rank)
	c.cl = cl
	c.nonBlocking = cfg != nil && cfg.Blocking == 0
	cl.members[rank] = c
	cl.joined++
	if cl.ready() {
		delete(st.pending, id) // an id makes one communicator
		st.used[id] = true
		b.finished.Broadcast()
	}
	if g := st.groups[tid]; g != nil {
		g.waits = append(g.waits, groupWait{cl: cl, nonBlocking: c.nonBlocking}) // the group's end waits
		return c.h, nil
	}
	if c.nonBlocking {
		// NCCL hands out the communicator at once and initialises it on
		// a thread of its own: ncclCommGetAsyncError says when it is done.
		return c.h, ncclErr(op, backend.NCCLInProgress, "")
	}
	for !cl.ready() && !cl.broken {
		b.finished.Wait()
	}
	if !cl.ready() {
		st.last = "bootstrap: a peer rank was aborted before every rank joined"
		return c.h, ncclErr(op, backend.NCCLRemoteError, st.last) // the caller aborts c
	}
	return c.h, nil
}

func (n *fakeNCCL) CommInitAll(devs []int) ([]uintptr, error) {
	const op = abi.NcclCommInitAll
	if err := n.enter(op); err != nil {
		return nil, err
	}
	b := (*fakeBackend)(n)
	if err := b.ready(); err != nil {
		return nil, ncclErr(op, backend.NCCLUnhandledCudaError, err.Error())
	}
	if len(devs) == 0 {
		return nil, n.fail(op, backend.NCCLInvalidArgument, "invalid device count")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.ncclLocked()
	for i, d := range devs {
		if d < 0 || d >= len(b.devs) {
			st.last = "invalid device"
			return nil, ncclErr(op, backend.NCCLInvalidArgument, st.last)
		}
		if slices.Contains(devs[:i], d) {
			st.last = "Duplicate GPU detected"
			return nil, ncclErr(op, backend.NCCLInvalidUsage, st.last)
		}
	}
	cl := newClique(len(devs))
	hs := make([]uintptr, len(devs))
	for r, d := range devs {
		c := n.newCommLocked(d, r)
		c.cl = cl
		cl.members[r] = c
		hs[r] = c.h
	}
	cl.joined = cl.n
	return hs, nil
}

// commLocked returns the live communicator h.
func (n *fakeNCCL) commLocked(h uintptr) *ncclComm {
	c := (*fakeBackend)(n).ncclLocked().comms[h]
	if c == nil || c.dead {
		return nil
	}
	return c
}

func (n *fakeNCCL) comm(op string, h uintptr) (*ncclComm, error) {
	b := (*fakeBackend)(n)
	b.mu.RLock()
	c := n.commLocked(h)
	b.mu.RUnlock()
	if c == nil {
		return nil, n.fail(op, backend.NCCLInvalidArgument, "comm argument is NULL or was destroyed")
	}
	return c, nil
}

// splitInst is one ncclCommSplit across the ranks of a clique.
type splitInst struct {
	cl     *clique
	color  []int
	key    []int
	out    []*ncclComm // by parent rank; nil for no color
	slots  []*uintptr  // where each rank's handle goes on completion
	joined int
	done   bool
	// broken: a rank of the parent was aborted or destroyed before the
	// split completed; it never will (the others fail with
	// ncclRemoteError), and the communicators it would make are freed.
	broken bool
}

func (n *fakeNCCL) CommSplit(h uintptr, color, key int, cfg *backend.NCCLConfig, out *uintptr) (err error) {
	const op = abi.NcclCommSplit
	defer n.groupErr(&err)
	if err := n.enter(op); err != nil {
		return err
	}
	b := (*fakeBackend)(n)
	if color < 0 && color != backend.NCCLSplitNoColor {
		return n.fail(op, backend.NCCLInvalidArgument, "invalid color")
	}
	if cfg != nil && cfg.Blocking != 0 && cfg.Blocking != 1 && cfg.Blocking != backend.NCCLConfigUndef {
		return n.fail(op, backend.NCCLInvalidArgument, "Invalid config blocking attribute value")
	}
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	c := n.commLocked(h)
	st := b.ncclLocked()
	if c == nil || c.cl == nil {
		st.last = "comm argument is NULL or was destroyed"
		return ncclErr(op, backend.NCCLInvalidArgument, st.last)
	}
	if !c.cl.ready() {
		st.last = "the communicator is not ready: its init is in progress (poll ncclCommGetAsyncError)"
		return ncclErr(op, backend.NCCLInvalidUsage, st.last)
	}
	// A child inherits its parent's configuration without cfg; with one,
	// an unset blocking is NCCL's default, blocking.
	nonBlocking := c.nonBlocking
	if cfg != nil {
		nonBlocking = cfg.Blocking == 0
	}
	*out = 0 // NCCL_COMM_NULL until the split completes
	cl := c.cl
	k := c.split
	c.split++
	si := cl.splits[k]
	if si == nil {
		si = &splitInst{cl: cl, color: make([]int, cl.n), key: make([]int, cl.n), out: make([]*ncclComm, cl.n), slots: make([]*uintptr, cl.n)}
		cl.splits[k] = si
	}
	si.color[c.rank], si.key[c.rank] = color, key
	g := st.groups[tid]
	if color != backend.NCCLSplitNoColor {
		child := n.newCommLocked(c.dev, -1) // its rank is known once all have joined
		child.nonBlocking, child.from = nonBlocking, si
		si.out[c.rank] = child
		si.slots[c.rank] = out
		if g != nil {
			g.made = append(g.made, child)
		}
	}
	si.joined++
	if si.joined == cl.n {
		n.completeSplitLocked(si)
		delete(cl.splits, k)
		b.finished.Broadcast()
	}
	if g != nil {
		g.split = append(g.split, groupWait{si: si, nonBlocking: c.nonBlocking || nonBlocking})
		if c.nonBlocking || nonBlocking {
			c.splitting = si
		}
		return nil
	}
	if c.nonBlocking || nonBlocking {
		// The split completes on NCCL's thread: the parent's
		// ncclCommGetAsyncError says ncclInProgress until then.
		c.splitting = si
		return ncclErr(op, backend.NCCLInProgress, "")
	}
	for !si.done && !si.broken {
		b.finished.Wait()
	}
	if !si.done {
		st.last = "ncclCommSplit: a peer rank was aborted before every rank joined the split"
		return ncclErr(op, backend.NCCLRemoteError, st.last)
	}
	return nil
}

// completeSplitLocked makes the new cliques: by color, ranks ordered by key
// and then by parent rank.
func (n *fakeNCCL) completeSplitLocked(si *splitInst) {
	byColor := map[int][]int{}
	for r, col := range si.color {
		if col != backend.NCCLSplitNoColor {
			byColor[col] = append(byColor[col], r)
		}
	}
	for _, rs := range byColor {
		slices.SortStableFunc(rs, func(a, b int) int { return cmp.Compare(si.key[a], si.key[b]) })
		cl := newClique(len(rs))
		for i, r := range rs {
			c := si.out[r]
			c.rank, c.cl, c.from = i, cl, nil
			cl.members[i] = c
			*si.slots[r] = c.h
		}
		cl.joined = cl.n
	}
	si.done = true
}

func (n *fakeNCCL) CommFinalize(h uintptr) error {
	if err := n.enter(abi.NcclCommFinalize); err != nil {
		return err
	}
	_, err := n.comm(abi.NcclCommFinalize, h)
	return err
}

func (n *fakeNCCL) CommDestroy(h uintptr) error {
	if err := n.enter(abi.NcclCommDestroy); err != nil {
		return err
	}
	return n.end(abi.NcclCommDestroy, h)
}

func (n *fakeNCCL) CommAbort(h uintptr) error {
	if err := n.enter(abi.NcclCommAbort); err != nil {
		return err
	}
	return n.end(abi.NcclCommAbort, h)
}

func (n *fakeNCCL) end(op string, h uintptr) error {
	b := (*fakeBackend)(n)
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.ncclLocked()
	c := st.comms[h]
	if c == nil {
		st.last = "comm argument is NULL or was destroyed"
		return ncclErr(op, backend.NCCLInvalidArgument, st.last)
	}
	c.dead = true
	delete(st.comms, h)
	n.breakLocked(c)
	b.finished.Broadcast() // its operations waiting for peers end (see runColl)
	return nil
}

// breakLocked notes that c was aborted or destroyed: the init of its
// communicator, if not every rank has joined, and its splits in progress
// can never complete. Those waiting for them fail with ncclRemoteError, as
// NCCL's bootstrap does when a peer goes away; the communicators such
// splits would have made (never handed out) are freed.
func (n *fakeNCCL) breakLocked(c *ncclComm) {
	if c.cl == nil {
		return
	}
	if !c.cl.ready() {
		c.cl.broken = true
	}
	st := (*fakeBackend)(n).ncclLocked()
	for k, si := range c.cl.splits {
		si.broken = true
		for _, m := range si.out {
			if m != nil {
				delete(st.comms, m.h)
			}
		}
		delete(c.cl.splits, k)
	}
}

func (n *fakeNCCL) CommGetAsyncError(h uintptr) (error, error) {
	const op = abi.NcclCommGetAsyncError
	if err := n.enter(op); err != nil {
		return nil, err
	}
	b := (*fakeBackend)(n)
	b.mu.RLock()
	defer b.mu.RUnlock()
	c := n.commLocked(h)
	if c == nil {
		return nil, ncclErr(op, backend.NCCLInvalidArgument, "comm argument is NULL or was destroyed")
	}
	return asyncLocked(c), nil
}

// asyncLocked is c's state as ncclCommGetAsyncError reports it: nil when
// ready, ncclInProgress while its init or a non-blocking split runs (or, in
// a group, until the group's end), ncclRemoteError when a peer was aborted
// before they completed.
func asyncLocked(c *ncclComm) error {
	const op = abi.NcclCommGetAsyncError
	remote := func() error {
		return ncclErr(op, backend.NCCLRemoteError, "a peer rank was aborted before the communicator's init or split completed")
	}
	switch {
	case c.cl == nil && c.from != nil && c.from.broken:
		return remote()
	case c.cl == nil:
		return ncclErr(op, backend.NCCLInProgress, "")
	case c.cl.broken:
		return remote()
	case !c.cl.ready():
		return ncclErr(op, backend.NCCLInProgress, "")
	case c.splitting != nil && c.splitting.broken:
		return remote()
	case c.splitting != nil && !c.splitting.done:
		return ncclErr(op, backend.NCCLInProgress, "")
	}
	return nil
}

func (n *fakeNCCL) CommCount(h uintptr) (int, error) {
	if err := n.enter(abi.NcclCommCount); err != nil {
		return 0, err
	}
	c, err := n.comm(abi.NcclCommCount, h)
	if err != nil {
		return 0, err
	}
	b := (*fakeBackend)(n)
	b.mu.RLock()
	defer b.mu.RUnlock()
	if c.cl == nil {
		return 0, ncclErr(abi.NcclCommCount, backend.NCCLInvalidUsage, "communicator not initialized yet (ncclGroupEnd)")
	}
	return c.cl.n, nil
}

func (n *fakeNCCL) CommCuDevice(h uintptr) (int, error) {
	if err := n.enter(abi.NcclCommCuDevice); err != nil {
		return 0, err
	}
	c, err := n.comm(abi.NcclCommCuDevice, h)
	if err != nil {
		return 0, err
	}
	return c.dev, nil
}

func (n *fakeNCCL) CommUserRank(h uintptr) (int, error) {
	if err := n.enter(abi.NcclCommUserRank); err != nil {
		return 0, err
	}
	c, err := n.comm(abi.NcclCommUserRank, h)
	if err != nil {
		return 0, err
	}
	b := (*fakeBackend)(n)
	b.mu.RLock()
	defer b.mu.RUnlock()
	if c.cl == nil {
		return 0, ncclErr(abi.NcclCommUserRank, backend.NCCLInvalidUsage, "communicator not initialized yet (ncclGroupEnd)")
	}
	return c.rank, nil
}

func (n *fakeNCCL) GroupStart() error {
	if err := n.enter(abi.NcclGroupStart); err != nil {
		return err
	}
	b := (*fakeBackend)(n)
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.ncclLocked()
	g := st.groups[tid]
	if g == nil {
		g = &ncclGroup{}
		st.groups[tid] = g
	}
	g.depth++
	return nil
}

func (n *fakeNCCL) GroupEnd() error {
	const op = abi.NcclGroupEnd
	b := (*fakeBackend)(n)
	injected := n.enter(op)
	tid := core.ThreadID()
	b.mu.Lock()
	st := b.ncclLocked()
	g := st.groups[tid]
	if g == nil {
		b.mu.Unlock()
		if injected != nil {
			return injected
		}
		st.last = "ncclGroupEnd: not in a group"
		return ncclErr(op, backend.NCCLInvalidUsage, st.last)
	}
	g.depth--
	if g.depth > 0 {
		b.mu.Unlock()
		return injected
	}
	delete(st.groups, tid)
	if injected != nil {
		// A failed ncclGroupEnd cleans the group up without issuing it:
		// the thread is out of the group, and its communicators are to be
		// aborted (NCCL's advice after a failed group).
		b.mu.Unlock()
		return injected
	}
	if g.failed != nil {
		err := n.failGroupLocked(g)
		b.mu.Unlock()
		return err
	}
	// Blocking inits and splits complete here; non-blocking ones on NCCL's
	// threads, and ncclGroupEnd returns ncclInProgress for them.
	inProgress := false
	for _, w := range slices.Concat(g.waits, g.split) {
		if w.nonBlocking {
			inProgress = true
			continue
		}
		for done, broken := w.doneLocked(); !done && !broken; done, broken = w.doneLocked() {
			b.finished.Wait()
		}
		if done, _ := w.doneLocked(); !done {
			st.last = "a peer rank was aborted before every rank joined the group's communicator init or split"
			b.mu.Unlock()
			return ncclErr(op, backend.NCCLRemoteError, st.last)
		}
	}
	err := b.issueLocked(g.ops)
	b.mu.Unlock()
	if err != nil {
		return err
	}
	for _, s := range streamsOf(g.ops) {
		b.backpressure(s)
	}
	if inProgress {
		return ncclErr(op, backend.NCCLInProgress, "")
	}
	return nil
}

// failGroupLocked ends a group in which a call failed, as NCCL's
// ncclGroupEnd does: nothing of it is issued, and it returns the failed
// call's result. Communicators its splits made and never completed are
// freed (their handles were never handed out); those its inits made stay,
// for the user to abort (NCCL's advice after a failed group).
func (n *fakeNCCL) failGroupLocked(g *ncclGroup) error {
	st := (*fakeBackend)(n).ncclLocked()
	for _, c := range g.made {
		if c.cl == nil {
			delete(st.comms, c.h)
		}
	}
	r := backend.NCCLInternalError
	var ne *backend.NCCLError
	if errors.As(g.failed, &ne) {
		r = ne.Result
	}
	st.last = "a call in the group failed, so the group was not issued: " + g.failed.Error()
	return ncclErr(abi.NcclGroupEnd, r, st.last)
}
