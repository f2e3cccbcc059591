package nccl

import (
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/core"
)

// A collective is one item on each rank's stream (and a Send or Recv one
// item on its rank's stream); the items of one operation across the ranks
// form a collInst. The item of a rank runs when its stream reaches it: it
// waits (execution lock let go, its stream held, as for a host callback)
// until every rank has queued its part, runs the other ranks' streams up to
// their parts (as the GPUs would run them meanwhile), computes the whole
// operation once for all ranks, and is done; the other ranks' items then
// find it computed. The calls of one group are one item per stream, as
// NCCL fuses a group into one kernel per device: that is what lets a rank
// send to and receive from a peer that does the same.

type collKind int

const (
	collAllReduce collKind = iota
	collBroadcast
	collReduce
	collAllGather
	collReduceScatter
	collTransfer // a Send matched with a Recv
)

// collKey names one operation of a clique: the k-th collective, or the k-th
// transfer from src to dst.
type collKey struct {
	transfer bool
	src, dst int
	k        uint64
}

// collInst is one operation across its participants.
type collInst struct {
	kind  collKind
	cl    *clique     // the communicators it runs across
	parts []*collPart // by rank for collectives; [sender, receiver] for transfers
	done  bool        // computed
}

// collPart is one rank's part of an operation, and where it is queued.
type collPart struct {
	send, recv uintptr
	count      uintptr // elements: per rank (AllGather send, ReduceScatter recv)
	dt         backend.NCCLDataType
	op         backend.NCCLRedOp
	root       int
	s          Stream
	it         Item  // nil until queued
	comm       *comm // the rank's communicator
	// ended: the part's communicator was aborted (or destroyed) while it
	// waited for its peers; it ends without the operation, as NCCL's
	// kernel returns when its communicator is aborted.
	ended bool
}

// groupOp is a call made inside a group, issued at its end.
type groupOp struct {
	inst *collInst
	part *collPart
	idx  int // the part's index in inst.parts
}

func streamsOf(ops []*groupOp) []Stream {
	var ss []Stream
	for _, o := range ops {
		found := false
		for _, s := range ss {
			found = found || s == o.part.s
		}
		if !found {
			ss = append(ss, o.part.s)
		}
	}
	return ss
}

// AllReduce is ncclAllReduce.
func (r *Room) AllReduce(send, recv, count uintptr, dt backend.NCCLDataType, op backend.NCCLRedOp, comm, s uintptr) (err error) {
	defer r.groupErr(&err)
	if err := r.enter(abi.NcclAllReduce); err != nil {
		return err
	}
	return r.coll(abi.NcclAllReduce, collAllReduce, comm, s, &collPart{send: send, recv: recv, count: count, dt: dt, op: op})
}

// Broadcast is ncclBroadcast.
func (r *Room) Broadcast(send, recv, count uintptr, dt backend.NCCLDataType, root int, comm, s uintptr) (err error) {
	defer r.groupErr(&err)
	if err := r.enter(abi.NcclBroadcast); err != nil {
		return err
	}
	return r.coll(abi.NcclBroadcast, collBroadcast, comm, s, &collPart{send: send, recv: recv, count: count, dt: dt, root: root})
}

// Reduce is ncclReduce.
func (r *Room) Reduce(send, recv, count uintptr, dt backend.NCCLDataType, op backend.NCCLRedOp, root int, comm, s uintptr) (err error) {
	defer r.groupErr(&err)
	if err := r.enter(abi.NcclReduce); err != nil {
		return err
	}
	return r.coll(abi.NcclReduce, collReduce, comm, s, &collPart{send: send, recv: recv, count: count, dt: dt, op: op, root: root})
}

// AllGather is ncclAllGather.
func (r *Room) AllGather(send, recv, count uintptr, dt backend.NCCLDataType, comm, s uintptr) (err error) {
	defer r.groupErr(&err)
	if err := r.enter(abi.NcclAllGather); err != nil {
		return err
	}
	return r.coll(abi.NcclAllGather, collAllGather, comm, s, &collPart{send: send, recv: recv, count: count, dt: dt})
}

// ReduceScatter is ncclReduceScatter.
func (r *Room) ReduceScatter(send, recv, count uintptr, dt backend.NCCLDataType, op backend.NCCLRedOp, comm, s uintptr) (err error) {
	defer r.groupErr(&err)
	if err := r.enter(abi.NcclReduceScatter); err != nil {
		return err
	}
	return r.coll(abi.NcclReduceScatter, collReduceScatter, comm, s, &collPart{send: send, recv: recv, count: count, dt: dt, op: op})
}

// Send is ncclSend: matched with the peer's Recv in order.
func (r *Room) Send(buf, count uintptr, dt backend.NCCLDataType, peer int, comm, s uintptr) (err error) {
	defer r.groupErr(&err)
	if err := r.enter(abi.NcclSend); err != nil {
		return err
	}
	return r.transfer(abi.NcclSend, true, comm, s, peer, &collPart{send: buf, count: count, dt: dt})
}

// Recv is ncclRecv: matched with the peer's Send in order.
func (r *Room) Recv(buf, count uintptr, dt backend.NCCLDataType, peer int, comm, s uintptr) (err error) {
	defer r.groupErr(&err)
	if err := r.enter(abi.NcclRecv); err != nil {
		return err
	}
	return r.transfer(abi.NcclRecv, false, comm, s, peer, &collPart{recv: buf, count: count, dt: dt})
}

// checkPartLocked checks what NCCL checks of a call's arguments: the
// communicator, the stream h and its device, the type, the reduction, the
// root, and (as NCCL_CHECK_POINTERS=1 would) that the buffers are device
// memory of the communicator's device holding the elements.
func (r *Room) checkPartLocked(kind collKind, c *comm, h uintptr, p *collPart) string {
	if c == nil || c.cl == nil {
		return "comm argument is NULL or was destroyed"
	}
	s, dev, err := r.core.Stream(h)
	if err != nil {
		return "invalid stream"
	}
	if dev != c.dev {
		return "stream is on another device than the communicator"
	}
	p.s = s
	size := uintptr(p.dt.Size())
	if size == 0 {
		return "invalid data type"
	}
	if kind != collTransfer && kind != collBroadcast && kind != collAllGather && (p.op < backend.NCCLSum || p.op > backend.NCCLAvg) {
		return "invalid reduction operation"
	}
	if (kind == collBroadcast || kind == collReduce) && (p.root < 0 || p.root >= c.cl.n) {
		return "invalid root"
	}
	if p.count > 1<<40 {
		return "count too large"
	}
	sendN, recvN := p.count*size, p.count*size
	switch kind {
	case collAllGather:
		recvN *= uintptr(c.cl.n)
	case collReduceScatter:
		sendN *= uintptr(c.cl.n)
	}
	needSend := p.send != 0 || kind != collTransfer
	needRecv := p.recv != 0 || kind != collTransfer
	if kind == collBroadcast && c.rank != p.root {
		needSend = false
	}
	if kind == collReduce && c.rank != p.root {
		needRecv = false
	}
	if p.count == 0 {
		return ""
	}
	if needSend && !r.core.OnDevice(p.send, sendN, c.dev) {
		return "sendbuff is not device memory of the communicator's device"
	}
	if needRecv && !r.core.OnDevice(p.recv, recvN, c.dev) {
		return "recvbuff is not device memory of the communicator's device"
	}
	return ""
}

// coll is a collective call of one rank: its part is matched with the
// other ranks' parts of the same position and queued on its stream.
func (r *Room) coll(op string, kind collKind, comm, h uintptr, p *collPart) error {
	s, err := r.collLocked(op, kind, comm, h, p)
	if s != nil {
		r.core.Backpressure(s)
	}
	return err
}

func (r *Room) collLocked(op string, kind collKind, comm, h uintptr, p *collPart) (Stream, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.commLocked(comm)
	p.comm = c
	if msg := r.checkPartLocked(kind, c, h, p); msg != "" {
		return nil, r.failLocked(op, backend.NCCLInvalidArgument, msg)
	}
	if p.count == 0 {
		return nil, nil // NCCL queues nothing for an empty collective
	}
	key := collKey{k: c.ops}
	c.ops++
	inst := c.cl.ops[key]
	if inst == nil {
		inst = &collInst{kind: kind, cl: c.cl, parts: make([]*collPart, c.cl.n)}
		c.cl.ops[key] = inst
	}
	if inst.kind != kind {
		return nil, r.failLocked(op, backend.NCCLInvalidUsage, "ranks called different collectives in the same position")
	}
	inst.parts[c.rank] = p
	if filled(inst) {
		delete(c.cl.ops, key)
	}
	return r.queueLocked(&groupOp{inst: inst, part: p, idx: c.rank})
}

// transfer is a Send (send) or a Recv of one rank: matched with the
// peer's counterpart of the same position and queued on its stream.
func (r *Room) transfer(op string, send bool, comm, h uintptr, peer int, p *collPart) error {
	s, err := r.transferLocked(op, send, comm, h, peer, p)
	if s != nil {
		r.core.Backpressure(s)
	}
	return err
}

func (r *Room) transferLocked(op string, send bool, comm, h uintptr, peer int, p *collPart) (Stream, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.commLocked(comm)
	p.comm = c
	if msg := r.checkPartLocked(collTransfer, c, h, p); msg != "" {
		return nil, r.failLocked(op, backend.NCCLInvalidArgument, msg)
	}
	if peer < 0 || peer >= c.cl.n {
		return nil, r.failLocked(op, backend.NCCLInvalidArgument, "invalid peer")
	}
	if p.count == 0 {
		return nil, nil
	}
	var key collKey
	idx := 0
	if send {
		key = collKey{transfer: true, src: c.rank, dst: peer, k: c.sends[peer]}
		c.sends[peer]++
	} else {
		key = collKey{transfer: true, src: peer, dst: c.rank, k: c.recvs[peer]}
		c.recvs[peer]++
		idx = 1
	}
	inst := c.cl.ops[key]
	if inst == nil {
		inst = &collInst{kind: collTransfer, cl: c.cl, parts: make([]*collPart, 2)}
		c.cl.ops[key] = inst
	}
	inst.parts[idx] = p
	if filled(inst) {
		delete(c.cl.ops, key)
	}
	return r.queueLocked(&groupOp{inst: inst, part: p, idx: idx})
}

func filled(inst *collInst) bool {
	for _, p := range inst.parts {
		if p == nil {
			return false
		}
	}
	return true
}

// queueLocked issues o now, or at the end of the calling thread's group.
// It returns the stream to apply backpressure to once the room's lock is
// let go (nil in a group).
func (r *Room) queueLocked(o *groupOp) (Stream, error) {
	if g := r.groups[core.ThreadID()]; g != nil {
		g.ops = append(g.ops, o)
		return nil, nil
	}
	if err := r.issueLocked([]*groupOp{o}); err != nil {
		return nil, err
	}
	return o.part.s, nil
}

// issueLocked queues ops as one item per stream, and tells the race
// detector of the operations whose parts are now all queued.
func (r *Room) issueLocked(ops []*groupOp) error {
	ss := streamsOf(ops)
	runs := make([]func(Exec) error, len(ss))
	mine := make([][]*groupOp, len(ss))
	for i, s := range ss {
		for _, o := range ops {
			if o.part.s == s {
				mine[i] = append(mine[i], o)
			}
		}
		runs[i] = func(x Exec) error { return r.run(x, s, mine[i]) }
	}
	its, err := r.core.Enqueue(ss, runs)
	if err != nil {
		return r.failLocked(abi.NcclGroupEnd, backend.NCCLInvalidArgument, "invalid stream")
	}
	for i := range ss {
		for _, o := range mine[i] {
			o.part.it = its[i]
		}
	}
	for _, o := range ops {
		if queued(o.inst) {
			ss := make([]Stream, len(o.inst.parts))
			items := make([]Item, len(o.inst.parts))
			for k, p := range o.inst.parts {
				ss[k], items[k] = p.s, p.it
			}
			r.core.Rendezvous(ss, items)
		}
	}
	r.met.Broadcast()
	return nil
}

// run runs the item of stream s, which holds ops (see the top of this
// file). The execution lock is held, the room's lock is not.
//
// A part waits for its peers until every part is queued, or until its own
// communicator is aborted (or destroyed): then it ends without the
// operation, as NCCL's kernel returns on ncclCommAbort, and its stream
// goes on. A peer's abort does not end it: on the GPU its kernel waits for
// the aborted peer's data until its own communicator is aborted too. An
// operation whose parts were all queued is computed, aborts or not: the
// GPUs would have run it meanwhile (the fake runs stream work only when
// something waits for it).
func (r *Room) run(x Exec, s Stream, ops []*groupOp) error {
	r.mu.Lock()
	if allDone(ops) {
		r.mu.Unlock()
		return nil // another rank's item computed everything: nothing to wait for
	}
	if !allSettled(ops) {
		r.mu.Unlock()
		x.Unlocked(func() {
			r.mu.Lock()
			for !allSettled(ops) {
				r.met.Wait()
			}
			r.mu.Unlock()
		})
		r.mu.Lock()
	}
	it := ops[0].part.it
	for _, o := range ops {
		if !o.inst.done && !queued(o.inst) && o.part.comm.dead {
			o.part.ended = true // its communicator was aborted: no operation
		}
	}
	r.mu.Unlock()
	// Run the other participants' streams up to their parts, until none has
	// anything left before its part.
	for again := true; again; {
		again = false
		for _, peer := range r.peers(ops, s, it) {
			// RunBefore never waits for a busy stream while s is held
			// (its owner may be waiting for s): it lets the execution
			// lock go until something finishes, and we look again.
			if x.RunBefore(peer.s, peer.it) {
				again = true
			}
		}
	}
	var err error
	for _, o := range ops {
		r.mu.Lock()
		skip := o.inst.done || o.part.ended
		if !skip {
			o.inst.done = true
		}
		r.mu.Unlock()
		if skip {
			continue
		}
		if e := r.compute(o.inst); e != nil && err == nil {
			err = e
		}
	}
	return err
}

// peers lists the other participants' parts of ops still to compute: their
// streams run up to them before ops are computed.
func (r *Room) peers(ops []*groupOp, s Stream, it Item) []*collPart {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ps []*collPart
	for _, o := range ops {
		if o.inst.done || o.part.ended {
			continue // computed meanwhile, while the execution lock was let go
		}
		for _, p := range o.inst.parts {
			if p.s != s && p.it != it {
				ps = append(ps, p)
			}
		}
	}
	return ps
}

// allSettled reports whether every operation of ops can go on: every
// part is queued (it may have been computed already), or its own part's
// communicator was aborted. Room's lock held.
func allSettled(ops []*groupOp) bool {
	for _, o := range ops {
		settled := o.part.ended || o.part.comm.dead || queued(o.inst)
		if !settled {
			return false
		}
	}
	return true
}

// allDone reports whether every operation of ops was computed. Room's
// lock held.
func allDone(ops []*groupOp) bool {
	for _, o := range ops {
		if !o.inst.done && !o.part.ended {
			return false
		}
	}
	return true
}

// queued reports whether every part of inst is on its stream. Room's lock
// held.
func queued(inst *collInst) bool {
	for _, p := range inst.parts {
		if p == nil || p.it == nil {
			return false
		}
	}
	return true
}
