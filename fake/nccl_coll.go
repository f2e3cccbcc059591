package fake

import (
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/core"
)

// A collective is one item on each rank's stream (and a Send or Recv one
// item on its rank's stream); the items of one operation across the ranks
// form a collInst. The item of a rank runs when its stream reaches it: it
// waits (execution lock let go, its stream busy as for a host callback)
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
	done  bool
}

// collPart is one rank's part of an operation, and where it is queued.
type collPart struct {
	send, recv uintptr
	count      uintptr // elements: per rank (AllGather send, ReduceScatter recv)
	dt         backend.NCCLDataType
	op         backend.NCCLRedOp
	root       int
	s          *stream
	it         *item     // nil until queued
	comm       *ncclComm // the rank's communicator
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

func streamsOf(ops []*groupOp) []*stream {
	var ss []*stream
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

func (n *fakeNCCL) AllReduce(send, recv, count uintptr, dt backend.NCCLDataType, op backend.NCCLRedOp, comm, s uintptr) (err error) {
	defer n.groupErr(&err)
	if err := n.enter(abi.NcclAllReduce); err != nil {
		return err
	}
	return n.coll(abi.NcclAllReduce, collAllReduce, comm, s, &collPart{send: send, recv: recv, count: count, dt: dt, op: op})
}

func (n *fakeNCCL) Broadcast(send, recv, count uintptr, dt backend.NCCLDataType, root int, comm, s uintptr) (err error) {
	defer n.groupErr(&err)
	if err := n.enter(abi.NcclBroadcast); err != nil {
		return err
	}
	return n.coll(abi.NcclBroadcast, collBroadcast, comm, s, &collPart{send: send, recv: recv, count: count, dt: dt, root: root})
}

func (n *fakeNCCL) Reduce(send, recv, count uintptr, dt backend.NCCLDataType, op backend.NCCLRedOp, root int, comm, s uintptr) (err error) {
	defer n.groupErr(&err)
	if err := n.enter(abi.NcclReduce); err != nil {
		return err
	}
	return n.coll(abi.NcclReduce, collReduce, comm, s, &collPart{send: send, recv: recv, count: count, dt: dt, op: op, root: root})
}

func (n *fakeNCCL) AllGather(send, recv, count uintptr, dt backend.NCCLDataType, comm, s uintptr) (err error) {
	defer n.groupErr(&err)
	if err := n.enter(abi.NcclAllGather); err != nil {
		return err
	}
	return n.coll(abi.NcclAllGather, collAllGather, comm, s, &collPart{send: send, recv: recv, count: count, dt: dt})
}

func (n *fakeNCCL) ReduceScatter(send, recv, count uintptr, dt backend.NCCLDataType, op backend.NCCLRedOp, comm, s uintptr) (err error) {
	defer n.groupErr(&err)
	if err := n.enter(abi.NcclReduceScatter); err != nil {
		return err
	}
	return n.coll(abi.NcclReduceScatter, collReduceScatter, comm, s, &collPart{send: send, recv: recv, count: count, dt: dt, op: op})
}

func (n *fakeNCCL) Send(buf, count uintptr, dt backend.NCCLDataType, peer int, comm, s uintptr) (err error) {
	defer n.groupErr(&err)
	if err := n.enter(abi.NcclSend); err != nil {
		return err
	}
	return n.transfer(abi.NcclSend, true, comm, s, peer, &collPart{send: buf, count: count, dt: dt})
}

func (n *fakeNCCL) Recv(buf, count uintptr, dt backend.NCCLDataType, peer int, comm, s uintptr) (err error) {
	defer n.groupErr(&err)
	if err := n.enter(abi.NcclRecv); err != nil {
		return err
	}
	return n.transfer(abi.NcclRecv, false, comm, s, peer, &collPart{recv: buf, count: count, dt: dt})
}

// checkPartLocked checks what NCCL checks of a call's arguments: the
// communicator, the stream and its device, the type, the reduction, the
// root, and (as NCCL_CHECK_POINTERS=1 would) that the buffers are device
// memory of the communicator's device holding the elements.
func (n *fakeNCCL) checkPartLocked(kind collKind, c *ncclComm, h uintptr, tid int64, p *collPart) string {
	b := (*fakeBackend)(n)
	if c == nil || c.cl == nil {
		return "comm argument is NULL or was destroyed"
	}
	s, err := b.streamLocked(h, tid)
	if err != nil || s.dead {
		return "invalid stream"
	}
	if s.ctx.dev.ordinal != c.dev {
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
	if needSend && !b.onDeviceLocked(p.send, sendN, c.dev) {
		return "sendbuff is not device memory of the communicator's device"
	}
	if needRecv && !b.onDeviceLocked(p.recv, recvN, c.dev) {
		return "recvbuff is not device memory of the communicator's device"
	}
	return ""
}

func (b *fakeBackend) onDeviceLocked(p, n uintptr, dev int) bool {
	a := b.findLocked(p)
	return a != nil && a.kind == deviceMem && a.dev.ordinal == dev && n <= a.end()-p
}

func (n *fakeNCCL) coll(op string, kind collKind, comm, h uintptr, p *collPart) error {
	b := (*fakeBackend)(n)
	tid := tidFor(h)
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.ncclLocked()
	c := n.commLocked(comm)
	p.comm = c
	if msg := n.checkPartLocked(kind, c, h, tid, p); msg != "" {
		st.last = msg
		return ncclErr(op, backend.NCCLInvalidArgument, msg)
	}
	if p.count == 0 {
		return nil // NCCL queues nothing for an empty collective
	}
	key := collKey{k: c.ops}
	c.ops++
	inst := c.cl.ops[key]
	if inst == nil {
		inst = &collInst{kind: kind, cl: c.cl, parts: make([]*collPart, c.cl.n)}
		c.cl.ops[key] = inst
	}
	if inst.kind != kind {
		st.last = "ranks called different collectives in the same position"
		return ncclErr(op, backend.NCCLInvalidUsage, st.last)
	}
	inst.parts[c.rank] = p
	if filled(inst) {
		delete(c.cl.ops, key)
	}
	return n.queueLocked(&groupOp{inst: inst, part: p, idx: c.rank})
}

func (n *fakeNCCL) transfer(op string, send bool, comm, h uintptr, peer int, p *collPart) error {
	b := (*fakeBackend)(n)
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.ncclLocked()
	c := n.commLocked(comm)
	p.comm = c
	if msg := n.checkPartLocked(collTransfer, c, h, tidFor(h), p); msg != "" {
		st.last = msg
		return ncclErr(op, backend.NCCLInvalidArgument, msg)
	}
	if peer < 0 || peer >= c.cl.n {
		st.last = "invalid peer"
		return ncclErr(op, backend.NCCLInvalidArgument, st.last)
	}
	if p.count == 0 {
		return nil
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
	return n.queueLocked(&groupOp{inst: inst, part: p, idx: idx})
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
func (n *fakeNCCL) queueLocked(o *groupOp) error {
	b := (*fakeBackend)(n)
	if g := b.ncclLocked().groups[core.ThreadID()]; g != nil {
		g.ops = append(g.ops, o)
		return nil
	}
	if err := b.issueLocked([]*groupOp{o}); err != nil {
		return err
	}
	s := o.part.s
	b.mu.Unlock()
	b.backpressure(s)
	b.mu.Lock()
	return nil
}

// issueLocked queues ops as one item per stream.
func (b *fakeBackend) issueLocked(ops []*groupOp) error {
	for _, o := range ops {
		if o.part.s.dead {
			b.nccl.last = "invalid stream"
			return ncclErr("ncclGroupEnd", backend.NCCLInvalidArgument, b.nccl.last)
		}
	}
	for _, s := range streamsOf(ops) {
		var mine []*groupOp
		for _, o := range ops {
			if o.part.s == s {
				mine = append(mine, o)
			}
		}
		it := &item{}
		it.run = func() error { return b.runColl(s, it, mine) }
		for _, o := range mine {
			o.part.it = it
		}
		b.pushLocked(s, it)
	}
	for _, o := range ops {
		b.collectiveQueued(o.inst)
	}
	b.finished.Broadcast()
	return nil
}

// runColl runs the item it of stream s, which holds ops (see the top of
// this file). The execution lock is held, the table lock is not.
//
// A part waits for its peers until every part is queued, or until its own
// communicator is aborted (or destroyed): then it ends without the
// operation, as NCCL's kernel returns on ncclCommAbort, and its stream
// goes on. A peer's abort does not end it: on the GPU its kernel waits for
// the aborted peer's data until its own communicator is aborted too. An
// operation whose parts were all queued is computed, aborts or not: the
// GPUs would have run it meanwhile (the fake runs stream work only when
// something waits for it).
func (b *fakeBackend) runColl(s *stream, it *item, ops []*groupOp) error {
	if allDone(ops) {
		return nil // another rank's item computed everything: nothing to wait for
	}
	b.mu.Lock()
	s.busy = true // no one else runs it while the execution lock is let go
	if !allSettledLocked(ops) {
		b.mu.Unlock()
		b.unlockExec()
		b.mu.Lock()
		for !allSettledLocked(ops) {
			b.finished.Wait()
		}
		b.mu.Unlock()
		b.relockExec()
		b.mu.Lock()
	}
	for _, o := range ops {
		if !o.inst.done && !queued(o.inst) && o.part.comm.dead {
			o.part.ended = true // its communicator was aborted: no operation
		}
	}
	b.mu.Unlock()
	// Run the other participants' streams up to their parts, until none has
	// anything left before its part.
	for again := true; again; {
		again = false
		for _, o := range ops {
			if o.inst.done || o.part.ended {
				continue // computed meanwhile, while the execution lock was let go
			}
			for _, p := range o.inst.parts {
				if p.s == s || p.it == it {
					continue
				}
				b.mu.RLock()
				behind := len(p.s.q) > 0 && p.s.q[0].seq < p.it.seq
				b.mu.RUnlock()
				if behind {
					// Never wait for a busy stream here while s is busy
					// (its owner may be waiting for s): let the execution
					// lock go until something finishes, and look again.
					b.mu.RLock()
					gen := b.gen
					b.mu.RUnlock()
					if !b.runUpTo(p.s, p.it.seq-1, runNoWait) {
						b.awaitFinish(gen)
					}
					again = true
				}
			}
		}
	}
	var err error
	for _, o := range ops {
		if o.inst.done || o.part.ended {
			continue
		}
		o.inst.done = true
		if e := b.compute(o.inst); e != nil && err == nil {
			err = e
		}
	}
	b.mu.Lock()
	s.busy = false
	b.finished.Broadcast()
	b.mu.Unlock()
	return err
}

// allSettledLocked reports whether every operation of ops can go on: every
// part is queued (it may have been computed already), or its own part's
// communicator was aborted. Table lock held (inst.done, written under the
// execution lock alone, is not read here).
func allSettledLocked(ops []*groupOp) bool {
	for _, o := range ops {
		settled := o.part.ended || o.part.comm.dead || queued(o.inst)
		if !settled {
			return false
		}
	}
	return true
}

// allDone reports whether every operation of ops was computed. Execution
// lock held.
func allDone(ops []*groupOp) bool {
	for _, o := range ops {
		if !o.inst.done && !o.part.ended {
			return false
		}
	}
	return true
}

// queued reports whether every part of inst is on its stream. Table lock held.
func queued(inst *collInst) bool {
	for _, p := range inst.parts {
		if p == nil || p.it == nil || p.it.seq == 0 {
			return false
		}
	}
	return true
}
