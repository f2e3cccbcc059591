package graph

import (
	"errors"
	"fmt"
	"sync"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/stream"
)

// Exec is an instantiated graph (CUgraphExec): ready to launch, as often as
// needed, on any stream of its context. It is owned: Close destroys it
// (cuGraphExecDestroy; launches in flight still complete). It holds its
// context until Close, and is safe for concurrent use, except that Update
// must not run while a Launch of the same Exec is being made. Each call
// holds the Exec while it runs: a concurrent Close waits for it, and calls
// made once Close has begun fail with an error wrapping driver.ErrClosed.
type Exec struct {
	ctx  *driver.Context
	hold *core.Hold
	api  backend.Graphs
	h    uintptr

	src  *Graph // the graph it was instantiated from: its nodes name the Exec's (exec_update.go)
	mu   sync.Mutex
	keep *keep // what it retains (retain.go); replaced by Update
}

// Instantiate makes an Exec of the graph as it is now
// (cuGraphInstantiateWithFlags); later changes to the graph do not reach it.
func (g *Graph) Instantiate() (*Exec, error) {
	const op = "graph.Graph.Instantiate"
	if err := g.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	h, err := core.ContextOf(g.ctx).Hold()
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", op, g, err)
	}
	var e uintptr
	err = g.hold.Do(func(backend.API) error {
		var r error
		if e, r = g.api.GraphInstantiate(g.h, 0); r != nil {
			return fmt.Errorf("cuGraphInstantiateWithFlags: %w", r)
		}
		return nil
	})
	if err != nil {
		if e != 0 { // made, but unbinding failed
			err = h.Undo(err, func(backend.API) error { return g.api.GraphExecDestroy(e) })
		}
		return nil, fmt.Errorf("%s: %s: %w", op, g, h.Drop(err))
	}
	x := &Exec{ctx: g.ctx, hold: h, api: g.api, h: e, src: g, keep: &keep{}}
	if err := x.keep.copyFrom(g.keep); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", op, g, errors.Join(err, x.Close()))
	}
	return x, nil
}

// Handle returns the raw CUgraphExec (0 for a nil Exec).
func (x *Exec) Handle() uintptr {
	if x == nil {
		return 0
	}
	return x.h
}

// Context returns the Exec's context.
func (x *Exec) Context() *driver.Context {
	if x == nil {
		return nil
	}
	return x.ctx
}

// String describes the Exec, for errors and logs.
func (x *Exec) String() string {
	if x == nil || x.hold == nil {
		return "nil graph exec"
	}
	s := fmt.Sprintf("graph exec %#x (%s)", x.h, x.ctx)
	if x.hold.Closed() {
		s = "closed " + s
	}
	return s
}

func (x *Exec) check() error {
	if x == nil || x.hold == nil {
		return fmt.Errorf("nil graph exec: %w", driver.ErrInvalidInput)
	}
	return x.hold.Check(x)
}

// Close destroys the Exec (cuGraphExecDestroy) and lets go of its context.
// A second Close returns nil; a failed destroy leaves it open for a retry.
func (x *Exec) Close() error {
	const op = "graph.Exec.Close"
	if x == nil || x.hold == nil {
		return fmt.Errorf("%s: nil graph exec: %w", op, driver.ErrInvalidInput)
	}
	closing.RLock() // a Retain function waits for the releasing below
	defer closing.RUnlock()
	err := x.hold.Close(func(backend.API) error {
		if r := x.api.GraphExecDestroy(x.h); r != nil {
			return fmt.Errorf("%s: cuGraphExecDestroy: %w", x, r)
		}
		return nil
	})
	if x.hold.Closed() {
		x.mu.Lock()
		x.keep.releaseOnce()
		x.mu.Unlock()
	}
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// onStream checks x and s for a stream-ordered call and returns the
// stream's binding (see core.Queue.Use). It holds x for the call (a
// concurrent Close waits): the caller ends it with x.hold.Unuse once the
// error is nil.
func (x *Exec) onStream(s *stream.Stream) (_ core.Binding, err error) {
	if x == nil || x.hold == nil {
		return core.Binding{}, fmt.Errorf("nil graph exec: %w", driver.ErrInvalidInput)
	}
	if err := x.hold.Use(x); err != nil {
		return core.Binding{}, err
	}
	defer func() {
		if err != nil {
			x.hold.Unuse()
		}
	}()
	q := core.QueueOf(s)
	if q == nil {
		return core.Binding{}, fmt.Errorf("%s: nil or zero stream: %w", x, driver.ErrInvalidInput)
	}
	if sc := s.Context(); !sc.Same(x.ctx) {
		return core.Binding{}, fmt.Errorf("%s: %s belongs to %s: %w", x, s, sc, driver.ErrWrongContext)
	}
	b, err := q.Use()
	if err != nil {
		return core.Binding{}, fmt.Errorf("%s: %w", x, err)
	}
	return b, nil
}

// Launch enqueues one run of the graph on s (cuGraphLaunch), ordered with
// the stream's other work. s must belong to the Exec's context (else an
// error wrapping driver.ErrWrongContext). It allocates nothing.
func (x *Exec) Launch(s *stream.Stream) (err error) {
	const op = "graph.Exec.Launch"
	b, err := x.onStream(s)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer x.hold.Unuse()
	defer b.Done(&err)
	if r := x.api.GraphLaunch(x.h, s.Handle()); r != nil {
		return fmt.Errorf("%s: %s on %s: cuGraphLaunch: %w", op, x, s, core.Unusable(r))
	}
	return nil
}

// Upload prepares the Exec's device resources on s ahead of its first
// launch (cuGraphUpload), so that the first Launch costs no more than the
// next ones.
func (x *Exec) Upload(s *stream.Stream) (err error) {
	const op = "graph.Exec.Upload"
	b, err := x.onStream(s)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer x.hold.Unuse()
	defer b.Done(&err)
	if r := x.api.GraphUpload(x.h, s.Handle()); r != nil {
		return fmt.Errorf("%s: %s on %s: cuGraphUpload: %w", op, x, s, core.Unusable(r))
	}
	return nil
}

// Update makes the Exec run g from its next launch on (cuGraphExecUpdate),
// cheaper than a new Instantiate. g must have the shape of the graph the
// Exec was made from (the same nodes, of the same types, with the same
// dependencies); kernel arguments, copy and memset parameters and events
// may differ. When the driver refuses, the error is an *UpdateError saying
// why, and the Exec is unchanged.
func (x *Exec) Update(g *Graph) error {
	const op = "graph.Exec.Update"
	if err := x.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := g.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if !g.ctx.Same(x.ctx) {
		return fmt.Errorf("%s: %s: %s belongs to another context: %w", op, x, g, driver.ErrWrongContext)
	}
	if err := g.use(); err != nil { // g is read by the update: held until then
		return fmt.Errorf("%s: %w", op, err)
	}
	defer g.hold.Unuse()
	next := &keep{}
	if err := next.copyFrom(g.keep); err != nil {
		return fmt.Errorf("%s: %s from %s: %w", op, x, g, err)
	}
	var info backend.GraphExecUpdateInfo
	err := x.hold.Do(func(backend.API) error {
		var r error
		info, r = x.api.GraphExecUpdate(x.h, g.h)
		return r
	})
	if err == nil {
		x.mu.Lock()
		old := x.keep
		x.keep = next
		x.mu.Unlock()
		old.releaseOnce()
		return nil
	}
	next.releaseOnce()
	var res driver.Result
	if errors.As(err, &res) && res == ErrUpdateFailure {
		err = &UpdateError{Result: UpdateResult(info.Result), Node: info.ErrorNode, FromNode: info.ErrorFromNode, Err: err}
	}
	return fmt.Errorf("%s: %s from %s: cuGraphExecUpdate: %w", op, x, g, err)
}

// HostPanic returns the first panic (or runtime.Goexit) of a host node's
// function, of this Exec or of another Exec of the same graphs, since the
// previous HostPanic, as a *HostPanicError; nil when none panicked. The
// panic is taken: the next HostPanic reports the next one. A nil or zero
// Exec is an error wrapping driver.ErrInvalidValue.
func (x *Exec) HostPanic() error {
	if x == nil || x.keep == nil {
		return fmt.Errorf("graph.Exec.HostPanic: nil graph exec: %w", driver.ErrInvalidInput)
	}
	x.mu.Lock()
	boxes := x.keep.boxes
	x.mu.Unlock()
	for _, b := range boxes {
		if p := b.take(); p != nil {
			return p
		}
	}
	return nil
}
