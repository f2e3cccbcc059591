package fake

import "github.com/nocgo/cuda/fake/internal/race"

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
		var runs []race.Run
		if send > 0 {
			runs = append(runs, race.Run{Lo: p.send, Hi: p.send + send, Kind: race.CopyRead})
		}
		if recv > 0 {
			runs = append(runs, race.Run{Lo: p.recv, Hi: p.recv + recv, Kind: race.Write})
		}
		b.race.Runs(p.it.race, what, runs)
	}
}

// collectiveQueued orders the work each rank enqueues after the
// collective inst after every rank's work before it, once all its parts
// are queued (race.Detector.Rendezvous). Table lock held.
func (b *fakeBackend) collectiveQueued(inst *collInst) {
	if b.race == nil || !queued(inst) {
		return
	}
	streams := make([]any, 0, len(inst.parts))
	ops := make([]*race.Op, 0, len(inst.parts))
	for _, p := range inst.parts {
		streams = append(streams, p.s)
		ops = append(ops, p.it.race)
	}
	b.race.Rendezvous(streams, ops)
}
