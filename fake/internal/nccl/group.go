package nccl

import (
	"errors"
	"slices"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/core"
)

// group is an OS thread's group in progress.
type group struct {
	depth int
	ops   []*groupOp  // calls to issue at the end
	waits []groupWait // cliques (made in the group) to wait for at the end
	split []groupWait // and splits
	made  []*comm     // communicators its splits made, handed out on completion
	// failed is the first call of the group that failed: ncclGroupEnd
	// then returns it and issues nothing (ncclGroupErrCheck).
	failed error
}

// groupWait is a communicator init or split of a group, waited for at the
// group's end unless its communicator is non-blocking.
type groupWait struct {
	cl          *clique    // an init's clique
	si          *splitInst // or a split
	nonBlocking bool
}

// doneLocked reports whether the init or split completed, and whether it
// never can (a peer ended before joining).
func (w groupWait) doneLocked() (done, broken bool) {
	if w.si != nil {
		return w.si.done, w.si.broken
	}
	return w.cl.ready(), w.cl.broken
}

// GroupStart is ncclGroupStart: the calling thread's calls until the
// matching GroupEnd are issued together.
func (r *Room) GroupStart() error {
	if err := r.enter(abi.NcclGroupStart); err != nil {
		return err
	}
	tid := core.ThreadID()
	r.mu.Lock()
	defer r.mu.Unlock()
	g := r.groups[tid]
	if g == nil {
		g = &group{}
		r.groups[tid] = g
	}
	g.depth++
	return nil
}

// GroupEnd is ncclGroupEnd: at the outermost one, the group's blocking
// inits and splits complete, and its calls are issued, one item per
// stream.
func (r *Room) GroupEnd() error {
	const op = abi.NcclGroupEnd
	injected := r.enter(op)
	tid := core.ThreadID()
	r.mu.Lock()
	g := r.groups[tid]
	if g == nil {
		defer r.mu.Unlock()
		if injected != nil {
			return injected
		}
		return r.failLocked(op, backend.NCCLInvalidUsage, "ncclGroupEnd: not in a group")
	}
	g.depth--
	if g.depth > 0 {
		r.mu.Unlock()
		return injected
	}
	delete(r.groups, tid)
	if injected != nil {
		// A failed ncclGroupEnd cleans the group up without issuing it:
		// the thread is out of the group, and its communicators are to be
		// aborted (NCCL's advice after a failed group).
		r.mu.Unlock()
		return injected
	}
	if g.failed != nil {
		err := r.failGroupLocked(g)
		r.mu.Unlock()
		return err
	}
	// Blocking inits and splits complete here; non-blocking ones on NCCL's
	// threads, and ncclGroupEnd returns ncclInProgress for them.
	inProgress := false
	for _, w := range slices.Concat(g.waits, g.split) {
		if w.nonBlocking {
			inProgress = true
			continue
		}
		for done, broken := w.doneLocked(); !done && !broken; done, broken = w.doneLocked() {
			r.met.Wait()
		}
		if done, _ := w.doneLocked(); !done {
			err := r.failLocked(op, backend.NCCLRemoteError, "a peer rank was aborted before every rank joined the group's communicator init or split")
			r.mu.Unlock()
			return err
		}
	}
	err := r.issueLocked(g.ops)
	r.mu.Unlock()
	if err != nil {
		return err
	}
	for _, s := range streamsOf(g.ops) {
		r.core.Backpressure(s)
	}
	if inProgress {
		return ncclErr(op, backend.NCCLInProgress, "")
	}
	return nil
}

// failGroupLocked ends a group in which a call failed, as NCCL's
// ncclGroupEnd does: nothing of it is issued, and it returns the failed
// call's result. Communicators its splits made and never completed are
// freed (their handles were never handed out); those its inits made stay,
// for the user to abort (NCCL's advice after a failed group).
func (r *Room) failGroupLocked(g *group) error {
	for _, c := range g.made {
		if c.cl == nil {
			delete(r.comms, c.h)
		}
	}
	res := backend.NCCLInternalError
	var ne *backend.NCCLError
	if errors.As(g.failed, &ne) {
		res = ne.Result
	}
	return r.failLocked(abi.NcclGroupEnd, res, "a call in the group failed, so the group was not issued: "+g.failed.Error())
}
