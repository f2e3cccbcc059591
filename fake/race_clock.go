package fake

import "github.com/nocgo/cuda/driver/backend"

// The race detector's orderings: one vector clock per stream and one for
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

// raceThread is a stream as the detector sees it.
type raceThread struct {
	slot  int
	clock vclock // the clock of the stream's latest item (its frontier)
}

// threadLocked returns s's slot and clock, made on first use. race.mu held.
func (r *raceState) threadLocked(s *stream) *raceThread {
	t := r.threads[s]
	if t == nil {
		t = &raceThread{slot: len(r.threads)}
		r.threads[s] = t
	}
	return t
}

// frontierLocked is the clock the next item enqueued on s starts from:
// s's own, the host's, and the legacy stream's implicit edges. Table lock
// and race.mu held.
func (r *raceState) frontierLocked(s *stream) vclock {
	vc := r.threadLocked(s).clock.clone()
	vc.join(r.host)
	c := s.ctx
	if c == nil {
		return vc
	}
	switch s.kind {
	case nullStream:
		if c.perThread != nil {
			vc.join(r.threadLocked(c.perThread).clock)
		}
		for _, t := range c.streams {
			if t.flags&backend.StreamNonBlocking == 0 {
				vc.join(r.threadLocked(t).clock)
			}
		}
	case userStream, perThreadStream:
		if (s.kind == perThreadStream || s.flags&backend.StreamNonBlocking == 0) && c.null != nil {
			vc.join(r.threadLocked(c.null).clock)
		}
	}
	return vc
}

// enqueued gives it its clock, its epoch and its enqueuing call stack, as
// it is pushed onto s. Table lock held.
func (r *raceState) enqueued(s *stream, it *item) {
	if r == nil {
		return
	}
	stack := callers()
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.threadLocked(s)
	vc := r.frontierLocked(s)
	for len(vc) <= t.slot {
		vc = append(vc, 0)
	}
	vc[t.slot]++
	t.clock = vc
	it.race = &raceOp{seq: it.seq, slot: t.slot, epoch: vc[t.slot], vc: vc, stream: streamName(s), stack: stack}
}

// recorded notes an event record enqueued on s (before or after the record
// item itself: the record covers s's work enqueued so far). Table lock held.
func (r *raceState) recorded(st *evState, s *stream) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events[st] = r.frontierLocked(s)
}

// waits orders the work enqueued on s from now on after the latest record
// of st (cuStreamWaitEvent, an event wait node). Table lock held.
func (r *raceState) waits(s *stream, st *evState) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if vc, ok := r.events[st]; ok {
		t := r.threadLocked(s)
		t.clock = t.clock.joined(vc)
	}
}

// hostSawStream orders what the host does next after the work enqueued on
// s so far (a stream synchronize, or a query that found it idle).
func (b *fakeBackend) hostSawStream(s *stream) {
	r := b.race
	if r == nil {
		return
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.host.join(r.threadLocked(s).clock)
}

// hostSawEvent orders what the host does next after the latest record of
// st (an event synchronize, or a query that found it complete).
func (r *raceState) hostSawEvent(st *evState) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.host.join(r.events[st])
}

// hostSawItem orders what the host does next after it (a synchronous copy
// or memset, which the host waits for).
func (r *raceState) hostSawItem(it *item) {
	if r == nil || it.race == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.host.join(it.race.vc)
}

// hostSawContextLocked orders what the host does next after every stream of
// all (a context's streams, drained: a context synchronize, a free that
// waits for the context, a teardown). Table lock held (for reading).
func (r *raceState) hostSawContextLocked(all []*stream) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range all {
		if s != nil {
			r.host.join(r.threadLocked(s).clock)
		}
	}
}

// orderLocked orders the work enqueued on after from now on after the
// work enqueued on before so far, as an event record on before and a wait
// on after would (Fake.DeclareOrder). A nil before stands for the host.
// Table lock held.
func (r *raceState) orderLocked(before, after *stream) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case before == nil && after == nil:
	case before == nil:
		t := r.threadLocked(after)
		t.clock = t.clock.joined(r.host)
	case after == nil:
		r.host.join(r.frontierLocked(before))
	default:
		t := r.threadLocked(after)
		t.clock = t.clock.joined(r.frontierLocked(before))
	}
}
