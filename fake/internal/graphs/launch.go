package graphs

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
)

// GraphLaunch is cuGraphLaunch: the exec's steps are queued on the stream
// by the core (Core.Launch) as one group of items, in a topological order:
// a wait item per event wait node (it waits for the event's record at
// launch time), then the work, which also completes the event record
// nodes. Launched into a capturing stream, the graph is captured as one
// node. The exec must belong to the stream's context.
func (r *Room) GraphLaunch(h, s uintptr) error {
	if err := r.enter(abi.CuGraphLaunch); err != nil {
		return err
	}
	return r.core.Launch(s, func(st Stream) (*Launch, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		x := r.execs[h]
		if x == nil || h == 0 || x.ctx != st.Ctx {
			return nil, driver.ErrInvalidValue
		}
		steps := x.steps
		if c := st.Slot.c; c != nil {
			if c.invalid {
				return nil, backend.ErrStreamCaptureInvalidated
			}
			r.recordLocked(c, st.Slot, &gnode{kind: nodeKernel, run: func() error { return runSteps(steps, nil, nil) }})
			return nil, nil
		}
		l := &Launch{steps: steps, shape: x.shape}
		for _, n := range steps {
			switch n.kind {
			case nodeWaitEvent:
				l.Waits = append(l.Waits, n.ev)
			case nodeEventRecord:
				l.Records = append(l.Records, n.ev)
			}
		}
		return l, nil
	})
}

// Launch is a graph launch as the core queues it on its stream: a wait for
// each event of Waits (for the event's record at launch time), then one
// item that runs Run, whose end completes the records of the events of
// Records.
type Launch struct {
	Waits, Records []Event

	steps []*gnode
	shape *fgraph
}

// Run runs the launch's steps in order, stopping at the first failure (a
// step that panics fails with CUDA_ERROR_LAUNCH_FAILED); done runs after
// them. step, when not nil, runs the work of step i (the race detector's
// wrapper: see Order); a step of a host node's function only is run as it
// is.
func (l *Launch) Run(step func(i int, run func() error) error, done func()) error {
	return runSteps(l.steps, step, done)
}

// Order is, for each step of Run, the set of steps of the launch that
// precede it by the graph's edges (bit j of word j/64), for the race
// detector; nil when it is not known, and the launch then stays one
// operation, unchecked inside.
func (l *Launch) Order() [][]uint64 { return graphOrder(l.shape, l.steps) }

// runSteps runs the work of a graph's steps in order, stopping at the
// first failure; done runs after them (the event records).
func runSteps(steps []*gnode, step func(i int, run func() error) error, done func()) error {
	for i, n := range steps {
		var err error
		switch {
		case n.run != nil && step != nil:
			err = runWork(func() error { return step(i, n.run) })
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

// runWork runs one step as the core runs an item: a panic fails it with
// CUDA_ERROR_LAUNCH_FAILED.
func runWork(run func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = driver.ErrLaunchFailed
		}
	}()
	return run()
}
