package nccl

import (
	"cmp"
	"slices"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/core"
)

// clique is the set of communicators of one communicator (all ranks).
type clique struct {
	n       int
	members []*comm // by rank
	joined  int
	ops     map[collKey]*collInst // collectives and transfers being matched
	splits  map[uint64]*splitInst
	// broken: a rank was aborted or destroyed before every rank joined,
	// so the communicator can never be made (its peers' inits fail with
	// ncclRemoteError, as NCCL's bootstrap does when a peer goes away).
	broken bool
}

func (c *clique) ready() bool { return c.joined == c.n }

func newClique(n int) *clique {
	return &clique{n: n, members: make([]*comm, n), ops: map[collKey]*collInst{}, splits: map[uint64]*splitInst{}}
}

// comm is one rank's communicator.
type comm struct {
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

// splitInst is one ncclCommSplit across the ranks of a clique.
type splitInst struct {
	cl     *clique
	color  []int
	key    []int
	out    []*comm    // by parent rank; nil for no color
	slots  []*uintptr // where each rank's handle goes on completion
	joined int
	done   bool
	// broken: a rank of the parent was aborted or destroyed before the
	// split completed; it never will (the others fail with
	// ncclRemoteError), and the communicators it would make are freed.
	broken bool
}

func (r *Room) newCommLocked(dev, rank int) *comm {
	r.next += 0x100
	c := &comm{h: r.next, rank: rank, dev: dev, sends: map[int]uint64{}, recvs: map[int]uint64{}}
	r.comms[c.h] = c
	return c
}

// commLocked returns the live communicator h, or nil.
func (r *Room) commLocked(h uintptr) *comm {
	c := r.comms[h]
	if c == nil || c.dead {
		return nil
	}
	return c
}

// validConfig reports whether cfg's blocking attribute is one NCCL takes.
func validConfig(cfg *backend.NCCLConfig) bool {
	return cfg == nil || cfg.Blocking == 0 || cfg.Blocking == 1 || cfg.Blocking == backend.NCCLConfigUndef
}

// CommInitRank is ncclCommInitRankConfig: rank joins the communicator of
// id on the calling thread's current device.
func (r *Room) CommInitRank(nranks int, id backend.NCCLUniqueID, rank int, cfg *backend.NCCLConfig, out *uintptr) (err error) {
	defer r.groupErr(&err)
	h, err := r.commInitRank(nranks, id, rank, cfg)
	*out = h
	return err
}

func (r *Room) commInitRank(nranks int, id backend.NCCLUniqueID, rank int, cfg *backend.NCCLConfig) (uintptr, error) {
	const op = abi.NcclCommInitRankConfig
	if err := r.enter(op); err != nil {
		return 0, err
	}
	if err := r.core.Ready(); err != nil {
		return 0, ncclErr(op, backend.NCCLUnhandledCudaError, err.Error())
	}
	if nranks < 1 || rank < 0 || rank >= nranks {
		return 0, r.fail(op, backend.NCCLInvalidArgument, "Invalid rank requested")
	}
	if !validConfig(cfg) {
		return 0, r.fail(op, backend.NCCLInvalidArgument, "Invalid config blocking attribute value")
	}
	if [16]byte(id[:16]) != idMagic {
		return 0, r.fail(op, backend.NCCLSystemError, "bootstrap: cannot reach the root rank named by the unique id")
	}
	tid := core.ThreadID()
	r.mu.Lock()
	defer r.mu.Unlock()
	dev, err := r.core.CurrentDevice()
	if err != nil {
		return 0, r.failLocked(op, backend.NCCLUnhandledCudaError, "no CUDA device current")
	}
	if r.used[id] {
		return 0, r.failLocked(op, backend.NCCLSystemError, "bootstrap: the root rank of this unique id no longer listens (an id makes one communicator)")
	}
	cl := r.pending[id]
	if cl == nil {
		cl = newClique(nranks)
		r.pending[id] = cl
	}
	if cl.broken {
		return 0, r.failLocked(op, backend.NCCLRemoteError, "bootstrap: a rank of this unique id was aborted before every rank joined")
	}
	if cl.n != nranks || cl.members[rank] != nil {
		return 0, r.failLocked(op, backend.NCCLInvalidUsage, "ranks disagree on the number of ranks, or a rank joined twice")
	}
	for _, m := range cl.members {
		if m != nil && m.dev == dev {
			return 0, r.failLocked(op, backend.NCCLInvalidUsage, "Duplicate GPU detected")
		}
	}
	c := r.newCommLocked(dev, rank)
	c.cl = cl
	c.nonBlocking = cfg != nil && cfg.Blocking == 0
	cl.members[rank] = c
	cl.joined++
	if cl.ready() {
		delete(r.pending, id) // an id makes one communicator
		r.used[id] = true
		r.met.Broadcast()
	}
	if g := r.groups[tid]; g != nil {
		g.waits = append(g.waits, groupWait{cl: cl, nonBlocking: c.nonBlocking}) // the group's end waits
		return c.h, nil
	}
	if c.nonBlocking {
		// NCCL hands out the communicator at once and initialises it on
		// a thread of its own: ncclCommGetAsyncError says when it is done.
		return c.h, ncclErr(op, backend.NCCLInProgress, "")
	}
	for !cl.ready() && !cl.broken {
		r.met.Wait()
	}
	if !cl.ready() {
		return c.h, r.failLocked(op, backend.NCCLRemoteError, "bootstrap: a peer rank was aborted before every rank joined") // the caller aborts c
	}
	return c.h, nil
}

// CommInitAll is ncclCommInitAll: one communicator over devs, rank i on
// devs[i], made at once by the calling goroutine.
func (r *Room) CommInitAll(devs []int) ([]uintptr, error) {
	const op = abi.NcclCommInitAll
	if err := r.enter(op); err != nil {
		return nil, err
	}
	if err := r.core.Ready(); err != nil {
		return nil, ncclErr(op, backend.NCCLUnhandledCudaError, err.Error())
	}
	if len(devs) == 0 {
		return nil, r.fail(op, backend.NCCLInvalidArgument, "invalid device count")
	}
	n := r.core.Devices()
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, d := range devs {
		if d < 0 || d >= n {
			return nil, r.failLocked(op, backend.NCCLInvalidArgument, "invalid device")
		}
		if slices.Contains(devs[:i], d) {
			return nil, r.failLocked(op, backend.NCCLInvalidUsage, "Duplicate GPU detected")
		}
	}
	cl := newClique(len(devs))
	hs := make([]uintptr, len(devs))
	for rank, d := range devs {
		c := r.newCommLocked(d, rank)
		c.cl = cl
		cl.members[rank] = c
		hs[rank] = c.h
	}
	cl.joined = cl.n
	return hs, nil
}

// CommSplit is ncclCommSplit: the ranks of h that pass the same color
// make a new communicator, ordered by key.
func (r *Room) CommSplit(h uintptr, color, key int, cfg *backend.NCCLConfig, out *uintptr) (err error) {
	const op = abi.NcclCommSplit
	defer r.groupErr(&err)
	if err := r.enter(op); err != nil {
		return err
	}
	if color < 0 && color != backend.NCCLSplitNoColor {
		return r.fail(op, backend.NCCLInvalidArgument, "invalid color")
	}
	if !validConfig(cfg) {
		return r.fail(op, backend.NCCLInvalidArgument, "Invalid config blocking attribute value")
	}
	tid := core.ThreadID()
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.commLocked(h)
	if c == nil || c.cl == nil {
		return r.failLocked(op, backend.NCCLInvalidArgument, "comm argument is NULL or was destroyed")
	}
	if !c.cl.ready() {
		return r.failLocked(op, backend.NCCLInvalidUsage, "the communicator is not ready: its init is in progress (poll ncclCommGetAsyncError)")
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
		si = &splitInst{cl: cl, color: make([]int, cl.n), key: make([]int, cl.n), out: make([]*comm, cl.n), slots: make([]*uintptr, cl.n)}
		cl.splits[k] = si
	}
	si.color[c.rank], si.key[c.rank] = color, key
	g := r.groups[tid]
	if color != backend.NCCLSplitNoColor {
		child := r.newCommLocked(c.dev, -1) // its rank is known once all have joined
		child.nonBlocking, child.from = nonBlocking, si
		si.out[c.rank] = child
		si.slots[c.rank] = out
		if g != nil {
			g.made = append(g.made, child)
		}
	}
	si.joined++
	if si.joined == cl.n {
		completeSplit(si)
		delete(cl.splits, k)
		r.met.Broadcast()
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
		r.met.Wait()
	}
	if !si.done {
		return r.failLocked(op, backend.NCCLRemoteError, "ncclCommSplit: a peer rank was aborted before every rank joined the split")
	}
	return nil
}

// completeSplit makes the new cliques: by color, ranks ordered by key
// and then by parent rank. Room's lock held.
func completeSplit(si *splitInst) {
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

// CommFinalize is ncclCommFinalize: the fake has nothing in flight to
// flush, so it only checks h.
func (r *Room) CommFinalize(h uintptr) error {
	const op = abi.NcclCommFinalize
	if err := r.enter(op); err != nil {
		return err
	}
	_, err := r.comm(op, h)
	return err
}

// CommDestroy is ncclCommDestroy.
func (r *Room) CommDestroy(h uintptr) error {
	const op = abi.NcclCommDestroy
	if err := r.enter(op); err != nil {
		return err
	}
	return r.end(op, h)
}

// CommAbort is ncclCommAbort: as CommDestroy, and the rank's operations
// waiting for peers end.
func (r *Room) CommAbort(h uintptr) error {
	const op = abi.NcclCommAbort
	if err := r.enter(op); err != nil {
		return err
	}
	return r.end(op, h)
}

func (r *Room) end(op string, h uintptr) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.comms[h]
	if c == nil {
		return r.failLocked(op, backend.NCCLInvalidArgument, "comm argument is NULL or was destroyed")
	}
	c.dead = true
	delete(r.comms, h)
	r.breakLocked(c)
	r.met.Broadcast() // its operations waiting for peers end (see run)
	return nil
}

// breakLocked notes that c was aborted or destroyed: the init of its
// communicator, if not every rank has joined, and its splits in progress
// can never complete. Those waiting for them fail with ncclRemoteError, as
// NCCL's bootstrap does when a peer goes away; the communicators such
// splits would have made (never handed out) are freed.
func (r *Room) breakLocked(c *comm) {
	if c.cl == nil {
		return
	}
	if !c.cl.ready() {
		c.cl.broken = true
	}
	for k, si := range c.cl.splits {
		si.broken = true
		for _, m := range si.out {
			if m != nil {
				delete(r.comms, m.h)
			}
		}
		delete(c.cl.splits, k)
	}
}

// comm returns the live communicator h, or the error of op for it.
func (r *Room) comm(op string, h uintptr) (*comm, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.commLocked(h)
	if c == nil {
		return nil, r.failLocked(op, backend.NCCLInvalidArgument, "comm argument is NULL or was destroyed")
	}
	return c, nil
}

// CommGetAsyncError is ncclCommGetAsyncError (see async).
func (r *Room) CommGetAsyncError(h uintptr) (error, error) {
	const op = abi.NcclCommGetAsyncError
	if err := r.enter(op); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.commLocked(h)
	if c == nil {
		return nil, ncclErr(op, backend.NCCLInvalidArgument, "comm argument is NULL or was destroyed")
	}
	return asyncLocked(c), nil
}

// asyncLocked is c's state as ncclCommGetAsyncError reports it: nil when
// ready, ncclInProgress while its init or a non-blocking split runs (or, in
// a group, until the group's end), ncclRemoteError when a peer was aborted
// before they completed.
func asyncLocked(c *comm) error {
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

// CommCount is ncclCommCount: how many ranks h's communicator has.
func (r *Room) CommCount(h uintptr) (int, error) {
	const op = abi.NcclCommCount
	if err := r.enter(op); err != nil {
		return 0, err
	}
	c, err := r.comm(op, h)
	if err != nil {
		return 0, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if c.cl == nil {
		return 0, ncclErr(op, backend.NCCLInvalidUsage, "communicator not initialized yet (ncclGroupEnd)")
	}
	return c.cl.n, nil
}

// CommCuDevice is ncclCommCuDevice: the device ordinal of h.
func (r *Room) CommCuDevice(h uintptr) (int, error) {
	const op = abi.NcclCommCuDevice
	if err := r.enter(op); err != nil {
		return 0, err
	}
	c, err := r.comm(op, h)
	if err != nil {
		return 0, err
	}
	return c.dev, nil
}

// CommUserRank is ncclCommUserRank: h's rank in its communicator.
func (r *Room) CommUserRank(h uintptr) (int, error) {
	const op = abi.NcclCommUserRank
	if err := r.enter(op); err != nil {
		return 0, err
	}
	c, err := r.comm(op, h)
	if err != nil {
		return 0, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if c.cl == nil {
		return 0, ncclErr(op, backend.NCCLInvalidUsage, "communicator not initialized yet (ncclGroupEnd)")
	}
	return c.rank, nil
}
