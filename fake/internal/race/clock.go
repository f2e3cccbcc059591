package race

// The detector's orderings: one vector clock per stream and one for
// the host, as ThreadSanitizer keeps one per thread.
//
// Every item gets its clock when it is enqueued (not when it runs): the
// clock of its stream (stream order), joined with the host's (what the
// host had seen complete before it enqueued), with the clocks of the
// events its stream waits for, and with the legacy default stream's
// implicit edges (a NULL-stream item follows the earlier work of the
// context's blocking streams; a blocking stream's item follows the earlier
// NULL-stream work). Its own component in its stream's slot then counts
// one more. Two items are ordered when the earlier one's epoch (its
// stream's slot and count) is covered by the later one's clock; whatever
// order the fake happens to run them in does not change that.
//
// The host clock is one per backend: a synchronize observed by any
// goroutine joins it. That is conservative: it can miss a race between two
// host goroutines that never synchronize with each other, but never
// reports a race where there is an ordering.

// vclock is a vector clock: one count per stream slot.
type vclock []uint64

// join sets c to the componentwise maximum of c and d.
func (c *vclock) join(d vclock) {
	if len(d) > len(*c) {
		*c = append(*c, make(vclock, len(d)-len(*c))...)
	}
	for i, v := range d {
		if v > (*c)[i] {
			(*c)[i] = v
		}
	}
}

// at returns slot i of c (0 past its end).
func (c vclock) at(i int) uint64 {
	if i < len(c) {
		return c[i]
	}
	return 0
}

func (c vclock) clone() vclock { return append(vclock(nil), c...) }

// joined returns a new clock, the join of c and d. A stream's clock is
// shared with its latest item's, so it is replaced, never changed in place.
func (c vclock) joined(d vclock) vclock {
	n := c.clone()
	n.join(d)
	return n
}

// thread is a stream as the detector sees it.
type thread struct {
	slot  int
	clock vclock // the clock of the stream's latest work (its frontier)
}

// threadLocked returns key's slot and clock, made on first use. d.mu held.
func (d *Detector) threadLocked(key any) *thread {
	t := d.threads[key]
	if t == nil {
		t = &thread{slot: len(d.threads)}
		d.threads[key] = t
	}
	return t
}

// frontierLocked is the clock the next work enqueued on s starts from:
// s's own, the host's, and the clocks of the streams it implicitly
// follows. d.mu held.
func (d *Detector) frontierLocked(s Stream) vclock {
	vc := d.threadLocked(s.Key).clock.clone()
	vc.join(d.host)
	for _, k := range s.Follows {
		vc.join(d.threadLocked(k).clock)
	}
	return vc
}

// Enqueued returns the Op of work number seq as it is pushed onto s: its
// clock, its epoch and its enqueuing call stack.
func (d *Detector) Enqueued(s Stream, seq uint64) *Op {
	if d == nil {
		return nil
	}
	stack := callers()
	d.mu.Lock()
	defer d.mu.Unlock()
	t := d.threadLocked(s.Key)
	vc := d.frontierLocked(s)
	for len(vc) <= t.slot {
		vc = append(vc, 0)
	}
	vc[t.slot]++
	t.clock = vc
	op := &Op{seq: seq, slot: t.slot, epoch: vc[t.slot], vc: vc, stream: s.Name, stack: stack}
	d.unrun[op] = struct{}{}
	return op
}

// Recorded notes a record of event ev enqueued on s (before or after the
// record work itself: the record covers s's work enqueued so far).
func (d *Detector) Recorded(ev any, s Stream) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.events[ev] = d.frontierLocked(s)
}

// Waits orders the work enqueued on stream s from now on after the latest
// record of event ev (cuStreamWaitEvent, an event wait node).
func (d *Detector) Waits(s, ev any) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if vc, ok := d.events[ev]; ok {
		t := d.threadLocked(s)
		t.clock = t.clock.joined(vc)
	}
}

// HostSawStreams orders what the host does next after the work enqueued
// so far on each of streams (a stream synchronize, a query that found it
// idle; a context's streams, drained: a context synchronize, a free that
// waits for the context, a teardown). Nil keys are skipped.
func (d *Detector) HostSawStreams(streams ...any) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, s := range streams {
		if s != nil {
			d.host.join(d.threadLocked(s).clock)
		}
	}
}

// HostSawEvent orders what the host does next after the latest record of
// event ev (an event synchronize, or a query that found it complete).
func (d *Detector) HostSawEvent(ev any) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.host.join(d.events[ev])
}

// HostSawOp orders what the host does next after op (a synchronous copy
// or memset, which the host waits for).
func (d *Detector) HostSawOp(op *Op) {
	if d == nil || op == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.host.join(op.vc)
}

// Order orders the work enqueued on after from now on after the work
// enqueued on before so far, as an event record on before and a wait on
// after would (Fake.DeclareOrder). A nil stream stands for the host.
func (d *Detector) Order(before, after *Stream) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case before == nil && after == nil:
	case before == nil:
		t := d.threadLocked(after.Key)
		t.clock = t.clock.joined(d.host)
	case after == nil:
		d.host.join(d.frontierLocked(*before))
	default:
		t := d.threadLocked(after.Key)
		t.clock = t.clock.joined(d.frontierLocked(*before))
	}
}

// Rendezvous orders the work enqueued on each of streams from now on after
// every one of ops (the parts of one NCCL collective, one per rank: no
// part completes before every rank has reached it, so what follows it on
// any rank's stream follows them all).
func (d *Detector) Rendezvous(streams []any, ops []*Op) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	var all vclock
	for _, op := range ops {
		if op != nil {
			all.join(op.vc)
		}
	}
	for _, s := range streams {
		t := d.threadLocked(s)
		t.clock = t.clock.joined(all)
	}
}
