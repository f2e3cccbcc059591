package nccl

// accessed tells the race detector what the collective inst reads and
// writes, each rank's buffers as the work of that rank's item on its own
// stream: the send buffers it reads (for a broadcast, the root's only) and
// the receive buffers it writes (for a reduce, the root's only). Execution
// lock held.
func (r *Room) accessed(inst *collInst) {
	if len(inst.parts) == 0 {
		return
	}
	p0 := inst.parts[0]
	size := uintptr(p0.dt.Size())
	n := uintptr(len(inst.parts))
	what := map[collKind]string{
		collAllReduce: "ncclAllReduce", collBroadcast: "ncclBroadcast", collReduce: "ncclReduce",
		collAllGather: "ncclAllGather", collReduceScatter: "ncclReduceScatter", collTransfer: "ncclSend/ncclRecv",
	}[inst.kind]
	for rank, p := range inst.parts {
		if p == nil || p.it == nil {
			continue
		}
		send, recv := p.count*size, p.count*size
		switch inst.kind {
		case collTransfer:
			if rank == 0 {
				recv = 0
			} else {
				send = 0
			}
		case collBroadcast:
			if rank != p0.root {
				send = 0
			}
		case collReduce:
			if rank != p0.root {
				recv = 0
			}
		case collAllGather:
			recv *= n
		case collReduceScatter:
			send *= n
		}
		var acc []Access
		if send > 0 {
			acc = append(acc, Access{Lo: p.send, Hi: p.send + send})
		}
		if recv > 0 {
			acc = append(acc, Access{Lo: p.recv, Hi: p.recv + recv, Write: true})
		}
		r.core.Accessed(p.it, what, acc)
	}
}
