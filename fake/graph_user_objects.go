package fake

import (
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

var _ backend.UserObjects = (*fakeBackend)(nil)

type userObject struct {
	h       uintptr
	refs    uint32
	destroy func()
}

// UserObjectCreate is cuUserObjectCreate with one reference.
func (b *fakeBackend) UserObjectCreate(destroy func()) (uintptr, error) {
	if err := b.enter(abi.CuUserObjectCreate); err != nil {
		return 0, err
	}
	if destroy == nil {
		return 0, driver.ErrInvalidValue
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.graphs.init()
	o := &userObject{h: newHandle(), refs: 1, destroy: destroy}
	b.graphs.uobjs[o.h] = o
	return o.h, nil
}

func (b *fakeBackend) userObjectLocked(h uintptr) (*userObject, error) {
	o := b.graphs.uobjs[h]
	if o == nil || h == 0 {
		return nil, driver.ErrInvalidValue
	}
	return o, nil
}

// UserObjectRelease is cuUserObjectRelease.
func (b *fakeBackend) UserObjectRelease(obj uintptr, count uint32) error {
	if err := b.enter(abi.CuUserObjectRelease); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	o, err := b.userObjectLocked(obj)
	if err != nil {
		return err
	}
	if count == 0 || count > o.refs {
		return driver.ErrInvalidValue
	}
	b.dropRefsLocked(o, count, nil)
	return nil
}

// GraphRetainUserObject is cuGraphRetainUserObject.
func (b *fakeBackend) GraphRetainUserObject(g, obj uintptr, count, flags uint32) error {
	if err := b.enter(abi.CuGraphRetainUserObject); err != nil {
		return err
	}
	if count == 0 || flags&^backend.GraphUserObjectMove != 0 {
		return driver.ErrInvalidValue
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	gr, err := b.graphLocked(g)
	if err != nil {
		return err
	}
	o, err := b.userObjectLocked(obj)
	if err != nil {
		return err
	}
	if flags&backend.GraphUserObjectMove != 0 {
		if count > o.refs {
			return driver.ErrInvalidValue
		}
		o.refs -= count // moved: retainAllLocked counts them again
	}
	b.retainAllLocked(&gr.uobjs, map[*userObject]uint32{o: count})
	return nil
}

// retainAllLocked adds the references of src to *dst, each one more
// reference to its object.
func (b *fakeBackend) retainAllLocked(dst *map[*userObject]uint32, src map[*userObject]uint32) {
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
func (b *fakeBackend) retainTreeLocked(dst *map[*userObject]uint32, g *fgraph) {
	b.retainAllLocked(dst, g.uobjs)
	for _, n := range g.nodes {
		if n.child != nil {
			b.retainTreeLocked(dst, n.child)
		}
		if n.cond != nil {
			b.retainTreeLocked(dst, n.cond.body)
		}
	}
}

// mirrorRefsLocked makes dst, a copy of src (a clone, a child node's
// copy), take references of its own on the user objects of src and of the
// graphs inside it, level by level.
func (b *fakeBackend) mirrorRefsLocked(dst, src *fgraph) {
	b.retainAllLocked(&dst.uobjs, src.uobjs)
	for i, n := range src.nodes {
		switch {
		case n.child != nil:
			b.mirrorRefsLocked(dst.nodes[i].child, n.child)
		case n.cond != nil:
			b.mirrorRefsLocked(dst.nodes[i].cond.body, n.cond.body)
		}
	}
}

// releaseTreeLocked lets go of the references of g and of the graphs
// inside it (a graph's destroy).
func (b *fakeBackend) releaseTreeLocked(g *fgraph) {
	b.releaseAllLocked(g.uobjs, nil)
	g.uobjs = nil
	for _, n := range g.nodes {
		switch {
		case n.child != nil:
			b.releaseTreeLocked(n.child)
		case n.cond != nil:
			b.releaseTreeLocked(n.cond.body)
		}
	}
}

// releaseAllLocked lets go of the references of m; ctx is the context of
// the exec that held them (nil for a graph).
func (b *fakeBackend) releaseAllLocked(m map[*userObject]uint32, ctx *context) {
	for o, n := range m {
		b.dropRefsLocked(o, n, ctx)
	}
}

// dropRefsLocked takes n references off o and, at none, runs its
// destructor on a goroutine of its own: after the work queued in ctx so
// far, when ctx is not nil.
func (b *fakeBackend) dropRefsLocked(o *userObject, n uint32, ctx *context) {
	o.refs -= n
	if o.refs != 0 {
		return
	}
	delete(b.graphs.uobjs, o.h)
	go func() {
		if ctx != nil && b.lockExec() == nil {
			_ = b.drainContext(ctx)
			b.unlockExec()
		}
		o.destroy()
	}()
}
