package fake

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/nccl"
	"github.com/nocgo/cuda/fake/internal/race"
	"github.com/nocgo/cuda/internal/core"
)

// NCCL is a room of its own (fake/internal/nccl): communicators, unique
// ids, groups, the rendezvous of ranks and the reductions. A collective is
// an item on each rank's stream; the room reaches the core through
// ncclCore, and runs its items through ncclExec.

// NCCL returns the fake's NCCL, the room itself (backend.NCCLProvider).
func (b *fakeBackend) NCCL() (backend.NCCL, error) { return b.nccl, nil }

var _ backend.NCCLProvider = (*fakeBackend)(nil)

// ncclCore is the core as the NCCL room sees it (nccl.Core).
type ncclCore struct{ b *fakeBackend }

func (c ncclCore) Fault(op string) error { return c.b.fault(op) }

func (c ncclCore) Ready() error {
	if !c.b.inited.Load() {
		return driver.ErrNotInitialized
	}
	if p := c.b.poison.Load(); p != nil {
		return *p
	}
	return nil
}

func (c ncclCore) CurrentDevice() (int, error) {
	tid := core.ThreadID()
	c.b.mu.RLock()
	defer c.b.mu.RUnlock()
	ctx, err := c.b.currentLocked(tid)
	if err != nil {
		return 0, err
	}
	return ctx.dev.ordinal, nil
}

func (c ncclCore) Devices() int {
	c.b.mu.RLock()
	defer c.b.mu.RUnlock()
	return len(c.b.devs)
}

func (c ncclCore) Stream(h uintptr) (nccl.Stream, int, error) {
	tid := tidFor(h)
	c.b.mu.RLock()
	defer c.b.mu.RUnlock()
	s, err := c.b.streamLocked(h, tid)
	if err != nil {
		return nil, 0, err
	}
	if s.dead {
		return nil, 0, driver.ErrInvalidHandle
	}
	return s, s.ctx.dev.ordinal, nil
}

func (c ncclCore) OnDevice(p, n uintptr, dev int) bool {
	c.b.mu.RLock()
	defer c.b.mu.RUnlock()
	a := c.b.findLocked(p)
	return a != nil && a.kind == deviceMem && a.dev.ordinal == dev && n <= a.end()-p
}

func (c ncclCore) Enqueue(ss []nccl.Stream, runs []func(nccl.Exec) error) ([]nccl.Item, error) {
	b := c.b
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range ss {
		if s.(*stream).dead {
			return nil, driver.ErrInvalidHandle
		}
	}
	items := make([]nccl.Item, len(ss))
	for i, s := range ss {
		s, run := s.(*stream), runs[i]
		it := &item{}
		it.run = func() error { return b.runHeld(s, run) }
		b.pushLocked(s, it)
		items[i] = it
	}
	b.finished.Broadcast()
	return items, nil
}

// runHeld runs the NCCL room's item run of s with s held (busy: no one
// else runs it while run lets the execution lock go), and lets s go when
// run returns. Execution lock held.
func (b *fakeBackend) runHeld(s *stream, run func(nccl.Exec) error) error {
	b.mu.Lock()
	s.busy = true
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		s.busy = false
		b.finished.Broadcast()
		b.mu.Unlock()
	}()
	return run(ncclExec{b})
}

func (c ncclCore) Rendezvous(ss []nccl.Stream, items []nccl.Item) {
	b := c.b
	if b.race == nil {
		return
	}
	streams := make([]any, len(ss))
	ops := make([]*race.Op, len(items))
	b.mu.RLock()
	defer b.mu.RUnlock()
	for i := range ss {
		streams[i], ops[i] = ss[i], items[i].(*item).race
	}
	b.race.Rendezvous(streams, ops)
}

func (c ncclCore) Backpressure(s nccl.Stream) { c.b.backpressure(s.(*stream)) }

func (c ncclCore) Span(p, n uintptr) ([]byte, error) { return c.b.span(p, n) }

func (c ncclCore) Accessed(it nccl.Item, what string, acc []nccl.Access) {
	op := it.(*item).race
	if c.b.race == nil || op == nil {
		return
	}
	runs := make([]race.Run, len(acc))
	for i, a := range acc {
		runs[i] = race.Run{Lo: a.Lo, Hi: a.Hi, Kind: race.CopyRead}
		if a.Write {
			runs[i].Kind = race.Write
		}
	}
	c.b.race.Runs(op, what, runs)
}

// ncclExec is what an item of the NCCL room may do while it runs
// (nccl.Exec).
type ncclExec struct{ b *fakeBackend }

func (x ncclExec) Unlocked(fn func()) {
	x.b.unlockExec()
	defer x.b.relockExec()
	fn()
}

func (x ncclExec) RunBefore(s nccl.Stream, it nccl.Item) bool {
	b, t, target := x.b, s.(*stream), it.(*item)
	b.mu.RLock()
	behind := len(t.q) > 0 && t.q[0].seq < target.seq
	gen, seq := b.gen, target.seq
	b.mu.RUnlock()
	if !behind {
		return false
	}
	if !b.runUpTo(t, seq-1, runNoWait) {
		b.awaitFinish(gen)
	}
	return true
}
