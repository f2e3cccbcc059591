package fake

import (
	"time"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/internal/abi"
)

// GraphLaunch is cuGraphLaunch: the exec's steps are pushed onto the stream
// as one group of items, in a topological order: a wait item per event wait
// node (it waits for the event's record at launch time), then the work,
// which also completes the event record nodes. Launched into a capturing
// stream, the graph is captured as one node. The exec must belong to the
// stream's context.
func (b *fakeBackend) GraphLaunch(h, s uintptr) error {
	if err := b.enter(abi.CuGraphLaunch); err != nil {
		return err
	}
	tid := tidFor(s)
	b.mu.Lock()
	st, err := b.streamLocked(s, tid)
	if err != nil {
		b.mu.Unlock()
		return err
	}
	x := b.graphs.execs[h]
	if x == nil || h == 0 || x.ctx != st.ctx {
		b.mu.Unlock()
		return driver.ErrInvalidValue
	}
	steps := x.steps
	shape := x.shape
	if c := b.graphs.captures[st]; c != nil {
		err := b.captureLocked(c, st, &item{run: func() error { return runSteps(steps, nil) }})
		b.mu.Unlock()
		return err
	}
	for _, n := range steps {
		if n.kind != nodeWaitEvent {
			continue
		}
		w := &item{run: nop}
		rb, rs, seq, pending := n.ev.st.snapshot()
		if rb == b {
			b.raceWaits(st, n.ev.st)
		}
		switch {
		case !pending:
		case rb == b:
			w.waitS, w.waitSeq = rs, seq
		default:
			w.run = func() error { runRecord(rb, rs, seq); return nil }
		}
		b.pushLocked(st, w)
	}
	body := &item{}
	steps = b.raceSteps(body, shape, steps)
	seq := b.seq + 1
	var records []*evState
	for _, n := range steps {
		if n.kind == nodeEventRecord {
			es := n.ev.st
			es.mu.Lock()
			es.b, es.s, es.seq, es.done = b, st, seq, false
			es.mu.Unlock()
			records = append(records, es)
		}
	}
	body.run = func() error {
		return runSteps(steps, func() {
			for _, es := range records {
				es.mu.Lock()
				if es.b == b && es.seq == seq {
					es.done, es.t = true, time.Now()
				}
				es.mu.Unlock()
			}
		})
	}
	b.pushLocked(st, body)
	for _, es := range records {
		b.raceRecordedLocked(es, st)
	}
	b.mu.Unlock()
	b.backpressure(st)
	return nil
}

// runSteps runs the work of a graph's steps in order, stopping at the first
// failure; done runs after them (the event records).
func runSteps(steps []*gnode, done func()) error {
	for _, n := range steps {
		var err error
		switch {
		case n.run != nil:
			err = runWork(n.run)
		case n.host != nil:
			err = runWork(func() error { n.host(); return nil })
		}
		if err != nil {
			return err
		}
	}
	if done != nil {
		done()
	}
	return nil
}

// runWork runs one step as runItem runs an item: a panic fails it with
// CUDA_ERROR_LAUNCH_FAILED.
func runWork(run func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = driver.ErrLaunchFailed
		}
	}()
	return run()
}
