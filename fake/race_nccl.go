package fake

// raceCollective records what the collective inst reads and writes, each
// rank's buffers as the work of that rank's item on its own stream: the
// send buffers it reads (for a broadcast, the root's only) and the receive
// buffers it writes (for a reduce, the root's only). Execution lock held.
func (b *fakeBackend) raceCollective(inst *collInst) {
	if b.race == nil || len(inst.parts) == 0 {
		return
	}
	p0 := inst.parts[0]
	size := uintptr(p0.dt.Size())
	n := uintptr(len(inst.parts))
	what := map[collKind]string{
		collAllReduce: "ncclAllReduce", collBroadcast: "ncclBroadcast", collReduce: "ncclReduce",
		collAllGather: "ncclAllGather", collReduceScatter: "ncclReduceScatter", collTransfer: "ncclSend/ncclRecv",
	}[inst.kind]
	for r, p := range inst.parts {
		if p == nil || p.it == nil || p.it.race == nil {
			continue
		}
		send, recv := p.count*size, p.count*size
		switch inst.kind {
		case collTransfer:
			if r == 0 {
				recv = 0
			} else {
				send = 0
			}
		case collBroadcast:
			if r != p0.root {
				send = 0
			}
		case collReduce:
			if r != p0.root {
				recv = 0
			}
		case collAllGather:
			recv *= n
		case collReduceScatter:
			send *= n
		}
		var runs []raceRun
		if send > 0 {
			runs = append(runs, raceRun{lo: p.send, hi: p.send + send, kind: accCopyRead})
		}
		if recv > 0 {
			runs = append(runs, raceRun{lo: p.recv, hi: p.recv + recv, kind: accWrite})
		}
		b.raceRuns(p.it.race, what, runs)
	}
}

// collectiveQueued orders the work each rank enqueues after the
// collective inst after every rank's work before it, once all its parts
// are queued: no rank's part completes before every rank has reached it,
// so what follows it on any rank's stream follows them all. Table lock
// held.
func (r *raceState) collectiveQueued(inst *collInst) {
	if r == nil || !queued(inst) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var all vclock
	for _, p := range inst.parts {
		if p.it.race != nil {
			all.join(p.it.race.vc)
		}
	}
	for _, p := range inst.parts {
		t := r.threadLocked(p.s)
		t.clock = t.clock.joined(all)
	}
}
