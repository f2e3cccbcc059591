package graphs

import (
	"fmt"
	"os"
	"runtime/debug"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
)

// The fake's user objects (cuUserObjectCreate): a count of references,
// held by the caller and by graphs (cuGraphRetainUserObject); a clone, a
// child graph's copy and an exec take references of their own on those of
// the graphs they copy. The destructor runs on a goroutine of its own (a
// driver thread on a GPU) once the last reference is gone and, when an
// exec let go of it, once the work queued in the exec's context until then
// has run.

type userObject struct {
	h       uintptr
	refs    uint32
	destroy func()
}

// UserObjectCreate is cuUserObjectCreate with one reference.
func (r *Room) UserObjectCreate(destroy func()) (uintptr, error) {
	if err := r.enter(abi.CuUserObjectCreate); err != nil {
		return 0, err
	}
	if destroy == nil {
		return 0, driver.ErrInvalidValue
	}
	o := &userObject{h: r.core.NewHandle(), refs: 1, destroy: destroy}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.uobjs[o.h] = o
	return o.h, nil
}

func (r *Room) userObjectLocked(h uintptr) (*userObject, error) {
	o := r.uobjs[h]
	if o == nil || h == 0 {
		return nil, driver.ErrInvalidValue
	}
	return o, nil
}

// UserObjectRelease is cuUserObjectRelease.
func (r *Room) UserObjectRelease(obj uintptr, count uint32) error {
	if err := r.enter(abi.CuUserObjectRelease); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	o, err := r.userObjectLocked(obj)
	if err != nil {
		return err
	}
	if count == 0 || count > o.refs {
		return driver.ErrInvalidValue
	}
	r.dropRefsLocked(o, count, 0)
	return nil
}

// GraphRetainUserObject is cuGraphRetainUserObject.
func (r *Room) GraphRetainUserObject(g, obj uintptr, count, flags uint32) error {
	if err := r.enter(abi.CuGraphRetainUserObject); err != nil {
		return err
	}
	if count == 0 || flags&^backend.GraphUserObjectMove != 0 {
		return driver.ErrInvalidValue
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	gr, err := r.graphLocked(g)
	if err != nil {
		return err
	}
	o, err := r.userObjectLocked(obj)
	if err != nil {
		return err
	}
	if flags&backend.GraphUserObjectMove != 0 {
		if count > o.refs {
			return driver.ErrInvalidValue
		}
		o.refs -= count // moved: retainAllLocked counts them again
	}
	r.retainAllLocked(&gr.uobjs, map[*userObject]uint32{o: count})
	return nil
}

// retainAllLocked adds the references of src to *dst, each one more
// reference to its object.
func (r *Room) retainAllLocked(dst *map[*userObject]uint32, src map[*userObject]uint32) {
	for o, n := range src {
		if *dst == nil {
			*dst = map[*userObject]uint32{}
		}
		(*dst)[o] += n
		o.refs += n
	}
}

// retainTreeLocked adds to *dst the references of g and of the graphs
// inside it (child graphs, conditional bodies), as an exec takes them.
func (r *Room) retainTreeLocked(dst *map[*userObject]uint32, g *fgraph) {
	r.retainAllLocked(dst, g.uobjs)
	for _, n := range g.nodes {
		if n.child != nil {
			r.retainTreeLocked(dst, n.child)
		}
		if n.cond != nil {
			r.retainTreeLocked(dst, n.cond.body)
		}
	}
}

// mirrorRefsLocked makes dst, a copy of src (a clone, a child node's
// copy), take references of its own on the user objects of src and of the
// graphs inside it, level by level.
func (r *Room) mirrorRefsLocked(dst, src *fgraph) {
	r.retainAllLocked(&dst.uobjs, src.uobjs)
	for i, n := range src.nodes {
		switch {
		case n.child != nil:
			r.mirrorRefsLocked(dst.nodes[i].child, n.child)
		case n.cond != nil:
			r.mirrorRefsLocked(dst.nodes[i].cond.body, n.cond.body)
		}
	}
}

// releaseTreeLocked lets go of the references of g and of the graphs
// inside it (a graph's destroy).
func (r *Room) releaseTreeLocked(g *fgraph) {
	r.releaseAllLocked(g.uobjs, 0)
	g.uobjs = nil
	for _, n := range g.nodes {
		switch {
		case n.child != nil:
			r.releaseTreeLocked(n.child)
		case n.cond != nil:
			r.releaseTreeLocked(n.cond.body)
		}
	}
}

// releaseAllLocked lets go of the references of m; ctx is the context of
// the exec that held them (0 for a graph).
func (r *Room) releaseAllLocked(m map[*userObject]uint32, ctx uintptr) {
	for o, n := range m {
		r.dropRefsLocked(o, n, ctx)
	}
}

// dropRefsLocked takes n references off o and, at none, runs its
// destructor on a goroutine of its own: after the work queued in ctx so
// far, when ctx is not 0. A destructor that panics is reported on stderr,
// as a stream callback's panic is, instead of ending the process.
func (r *Room) dropRefsLocked(o *userObject, n uint32, ctx uintptr) {
	o.refs -= n
	if o.refs != 0 {
		return
	}
	delete(r.uobjs, o.h)
	go func() {
		if ctx != 0 {
			r.core.Drain(ctx)
		}
		defer func() {
			if p := recover(); p != nil {
				fmt.Fprintf(os.Stderr, "nocgo/cuda/fake: user object destructor panicked: %v\n%s", p, debug.Stack())
			}
		}()
		o.destroy()
	}()
}
