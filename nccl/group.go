package nccl

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// Group runs fn between ncclGroupStart and ncclGroupEnd, on one OS thread:
// the NCCL calls fn makes (collectives, Send and Recv, NewComm, Split, on
// any number of communicators) are issued together at the end, as one
// operation. It is how one goroutine drives several communicators (the
// ranks of NewComms) without deadlock, and how Send and Recv pair up into
// an exchange. fn must make its calls on the goroutine that called Group
// (not on goroutines it starts); Groups nest. An error from fn is returned
// after the group is ended; work queued before it still runs.
//
// When a call in the group fails (a collective, Send, Recv, [NewComm] or
// [Comm.Split] refused by NCCL, a Split refused by this package's own
// checks, its communicator's context that could not be bound, or a split
// communicator whose rank and count could not be read at the end), the
// others' calls cannot complete: they would wait for the failed rank
// forever. Group then ends NCCL's group without issuing it
// (ncclGroupEnd returns the failure; for a failure NCCL did not see, such
// as a context not bound, Group first makes NCCL's group fail with a call
// NCCL refuses), aborts every communicator the group used, made or split
// (ncclCommAbort, as NCCL advises for a failed group; see [Comm.Abort]),
// which stops their work, and returns the failure saying so: the
// communicators NewComm and Split returned in the group are aborted too
// (their Close returns nil); make new communicators to go on.
//
// With a non-blocking communicator (Config.NonBlocking) in the group, Group
// returns once NCCL has finished issuing the group's work, and the
// communicators NewComm and Split made in it are made (an Abort from
// another goroutine ends that wait). A group whose inits or splits wait for
// a rank that was aborted (on another goroutine, in another Group) fails
// with ncclRemoteError instead of waiting for good.
//
// A panic in fn, or a runtime.Goexit (t.FailNow, testify's require), ends
// this level of the group all the same (the calls fn made before are
// issued, as after an error) and then goes on to the caller: NCCL's group
// is never left open on the thread, and the next Group starts afresh.
func Group(fn func() error) (err error) {
	const op = "nccl.Group"
	if fn == nil {
		return fmt.Errorf("%s: nil function: %w", op, errors.ErrUnsupported)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	g := enterGroup()
	defer leaveGroup(g)
	if g.n != nil { // an enclosing level already started NCCL's group
		if err := g.n.GroupStart(); err != nil {
			return fmt.Errorf("%s: ncclGroupStart: %w", op, err)
		}
		g.started++
	}
	returned := false
	defer func() {
		if !returned && g.n != nil {
			// fn panicked or called runtime.Goexit: end this level of
			// NCCL's group, so that the thread is left as it was found;
			// the panic goes on (its error, if any, has nowhere to go).
			_ = g.end(op)
		}
	}()
	ferr := fn()
	returned = true
	if g.n == nil {
		// fn made no NCCL call: nothing was started, nothing to end.
		return ferr
	}
	return errors.Join(ferr, g.end(op))
}

// group is the state of the Groups running on one OS thread. NCCL keeps
// its group per thread; so does this package, to start NCCL's group lazily
// (the first call in fn names the NCCL) and to find the communicators to
// wait for.
type group struct {
	tid     int64
	depth   int
	started int          // how many levels started an NCCL group
	n       backend.NCCL // the NCCL of the group's calls, once one was made
	api     backend.API  // and its driver, to give the thread its context back
	comms   []*Comm      // non-blocking communicators used in the group
	members []*Comm      // every communicator a call of the group used
	made    []*Comm      // the communicators NewComm and Split made in the group
	failed  error        // the first call of the group that failed
	told    bool         // a call NCCL refused in the group, so that NCCL's group failed too
}

var groups struct {
	active   atomic.Int32 // Groups in progress, on all threads
	mu       sync.Mutex
	byThread map[int64]*group
	free     []*group
}

func enterGroup() *group {
	tid := core.ThreadID()
	groups.mu.Lock()
	defer groups.mu.Unlock()
	if g := groups.byThread[tid]; g != nil {
		g.depth++
		return g
	}
	if groups.byThread == nil {
		groups.byThread = map[int64]*group{}
	}
	var g *group
	if k := len(groups.free); k > 0 {
		g, groups.free = groups.free[k-1], groups.free[:k-1]
	} else {
		g = &group{}
	}
	g.tid, g.depth = tid, 1
	groups.byThread[tid] = g
	groups.active.Add(1)
	return g
}

func leaveGroup(g *group) {
	groups.mu.Lock()
	defer groups.mu.Unlock()
	g.depth--
	if g.depth > 0 {
		return
	}
	delete(groups.byThread, g.tid)
	groups.active.Add(-1)
	clear(g.comms)
	clear(g.members)
	clear(g.made)
	*g = group{comms: g.comms[:0], members: g.members[:0], made: g.made[:0]}
	groups.free = append(groups.free, g)
}

// currentGroup returns the calling thread's group, nil outside Group. It
// costs one atomic load when no Group runs anywhere.
func currentGroup() *group {
	if groups.active.Load() == 0 {
		return nil
	}
	tid := core.ThreadID()
	groups.mu.Lock()
	defer groups.mu.Unlock()
	return groups.byThread[tid]
}

// join is called by every NCCL call inside a group before the call: it
// starts NCCL's group at the first call (the group's NCCL is known only
// then), and notes a non-blocking communicator.
func (g *group) join(n backend.NCCL, api backend.API, c *Comm) error {
	if g.n == nil {
		g.n, g.api = n, api
		for range g.depth {
			if err := n.GroupStart(); err != nil {
				return fmt.Errorf("ncclGroupStart: %w", err)
			}
			g.started++
		}
	} else if g.n != n {
		return fmt.Errorf("a group's calls must use one NCCL (one driver): %w", InvalidUsage)
	}
	if c != nil && c.nonBlocking && !slices.Contains(g.comms, c) {
		g.comms = append(g.comms, c)
	}
	return nil
}

// end ends one level of NCCL's group. The outermost ncclGroupEnd issues the
// work, setting each communicator's device current in turn: the thread's
// own current context is put back after it. When a call of the group
// failed, the outermost end aborts the group's communicators (see abort).
func (g *group) end(op string) error {
	if g.started < g.depth {
		return nil // this level started after nothing; nothing to end
	}
	g.started--
	outer := g.depth == 1
	var cur uintptr
	var curErr error
	if outer && g.api != nil {
		cur, curErr = g.api.CtxGetCurrent()
	}
	if outer && g.failed != nil && !g.told {
		g.failNCCL()
	}
	err := g.n.GroupEnd()
	if errors.Is(err, InProgress) {
		err = nil
	}
	if err != nil {
		err = fmt.Errorf("%s: ncclGroupEnd: %w", op, err)
		if outer && g.failed == nil {
			// NCCL cleaned the group up, issued or not: abort its
			// communicators, as after a failed call.
			g.failed, err = err, nil
		}
	}
	if outer && g.api != nil {
		err = errors.Join(err, g.restore(op, cur, curErr))
	}
	if outer && g.failed != nil {
		return errors.Join(err, g.abort(op))
	}
	if err != nil || !outer {
		return err
	}
	for _, c := range g.comms {
		if werr := c.await(); werr != nil {
			err = errors.Join(err, fmt.Errorf("%s: %s: %w", op, c, werr))
		}
	}
	if err != nil {
		return err
	}
	for _, c := range g.made {
		if ierr := c.ident(); ierr != nil {
			// A split communicator NCCL made but whose rank and count
			// are not known: unusable, and its peers' are unusable too.
			g.failed = fmt.Errorf("%s: reading a split communicator's rank and count: %w", op, ierr)
			return g.abort(op)
		}
	}
	return nil
}

// failNCCL makes NCCL's group fail, for a failure of the group that NCCL
// did not see (a context not bound, a rank and count not read): NCCL
// would otherwise issue the group at ncclGroupEnd, and the calls of the
// other ranks (a NewComm, a Split) would wait there forever for the rank
// that failed. A call that fails inside a group fails the group
// (NCCL's ncclGroupErrCheck), so that ncclGroupEnd returns the error
// and issues nothing: ncclCommInitRankConfig with no ranks, which NCCL
// refuses at once ("Invalid rank requested") and which makes nothing.
func (g *group) failNCCL() {
	var none uintptr
	if err := g.n.CommInitRank(0, backend.NCCLUniqueID{}, 0, nil, &none); err == nil && none != 0 {
		_ = g.n.CommAbort(none) // cannot happen: NCCL refuses no ranks
	}
	g.told = true
}

// restore gives the thread back the context current before the outermost
// ncclGroupEnd (cur, read with error curErr), which NCCL may have changed.
// The group's work is issued either way: an error here says only that the
// thread's current context could not be checked or put back.
func (g *group) restore(op string, cur uintptr, curErr error) error {
	if curErr != nil {
		return fmt.Errorf("%s: cuCtxGetCurrent before ncclGroupEnd (the group was issued; the thread's current context is not known to be kept): %w", op, curErr)
	}
	now, err := g.api.CtxGetCurrent()
	if err != nil {
		return fmt.Errorf("%s: cuCtxGetCurrent after ncclGroupEnd (the group was issued; the thread's current context is not known to be kept): %w", op, err)
	}
	if now == cur {
		return nil
	}
	if err := g.api.CtxSetCurrent(cur); err != nil {
		return fmt.Errorf("%s: restoring the current context after ncclGroupEnd (the group was issued): %w", op, err)
	}
	return nil
}

// note records a call of the group on c (nil for none) and its error: the
// first failure makes the outermost end abort the group's communicators.
// Calls made by NCCL tell the group with tell as well.
func (g *group) note(c *Comm, err error) {
	if err != nil && g.failed == nil {
		g.failed = err
	}
	if c != nil && !slices.Contains(g.members, c) {
		g.members = append(g.members, c)
	}
}

// tell records the error of an NCCL call made in the group: NCCL's own
// group then fails at ncclGroupEnd, which issues nothing.
func (g *group) tell(err error) {
	if err != nil && !errors.Is(err, InProgress) {
		g.told = true
	}
}

// add records a communicator NewComm or Split made in the group: aborted
// with the others when the group fails, and, for a split one, identified
// at the end.
func (g *group) add(c *Comm) {
	g.made = append(g.made, c)
}

// abort aborts every communicator a call of the group used, after one of
// the calls failed: the calls of the other ranks were issued by
// ncclGroupEnd and wait for a peer whose part never comes, which only
// ncclCommAbort stops (NCCL's advice after a failed group). It returns the
// group's failure, saying so.
func (g *group) abort(op string) error {
	comms := slices.Concat(g.members, g.made)
	errs := []error{fmt.Errorf("%s: the group failed, so its calls cannot all complete: "+
		"its %d communicators were aborted (ncclCommAbort; make new ones): %w", op, len(comms), g.failed)}
	for _, c := range comms {
		if err := c.Abort(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
