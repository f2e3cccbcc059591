package graph

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"sync"

	"github.com/nocgo/cuda/driver/backend"
)

// Retain hands release to the graph through a CUDA user object
// (cuUserObjectCreate, cuGraphRetainUserObject): the graph, its clones and
// child copies, and every Exec made from any of them keep it (and what it
// captures: the Go values their work needs), and release runs once, after
// the last of them is closed and the work they launched is done. It runs
// on a goroutine of its own (the driver's thread is not held up), so it may
// call into CUDA, close buffers and block; a panic in it is recovered and
// reported on stderr. When the graph cannot take it (a nil or closed
// graph, a backend without user objects, a driver refusal), Retain returns
// the error and release runs all the same, on a goroutine of its own
// (nothing has it).
func (g *Graph) Retain(release func()) (err error) {
	const op = "graph.Graph.Retain"
	if release == nil {
		return fmt.Errorf("%s: %s: nil func: %w", op, g, errInvalid)
	}
	handed := false // release went to a user object, which runs it
	defer func() {
		if err != nil && !handed {
			go runRelease(release) // nothing has it
		}
	}()
	if err := g.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	uo, ok := g.api.(backend.UserObjects)
	if !ok {
		return fmt.Errorf("%s: the backend (%T) has no user objects (backend.UserObjects): %w", op, g.api, errors.ErrUnsupported)
	}
	err = g.hold.Do(func(backend.API) error {
		obj, err := uo.UserObjectCreate(func() { go runRelease(release) }) // never holds up the driver's thread
		if err != nil {
			return fmt.Errorf("cuUserObjectCreate: %w", err)
		}
		handed = true
		// The graph takes a reference of its own; then ours goes (on a
		// refused retain too, which runs release: nothing else has it).
		rerr := uo.GraphRetainUserObject(g.h, obj, 1, 0)
		if rerr != nil {
			rerr = fmt.Errorf("cuGraphRetainUserObject: %w", rerr)
		}
		if err := uo.UserObjectRelease(obj, 1); err != nil {
			return errors.Join(rerr, fmt.Errorf("cuUserObjectRelease: %w", err))
		}
		return rerr
	})
	if err != nil {
		return fmt.Errorf("%s: %s: %w", op, g, err)
	}
	return nil
}

// closing is held (read-locked) by each Graph.Close and Exec.Close from
// its destroy to its letting go of what it retained: the destroy may run a
// Retain function, which first waits for them (so that it may close the
// buffers the graph retained).
var closing sync.RWMutex

// runRelease runs a Retain function once the Closes in progress let go of
// what they retain, a panic in it reported on stderr.
func runRelease(release func()) {
	waitCloses()
	defer func() {
		if v := recover(); v != nil {
			fmt.Fprintf(os.Stderr, "nocgo/cuda: graph.Graph.Retain function panicked: %v\n%s", v, debug.Stack())
		}
	}()
	release()
}

// waitCloses returns once the Graph and Exec Closes in progress are done.
func waitCloses() {
	closing.Lock()
	defer closing.Unlock()
}
