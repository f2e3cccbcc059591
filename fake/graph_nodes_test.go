package fake

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// graphBackend returns an initialised fake with the primary context of
// device 0 current on the calling (locked) thread, and a stream of it.
func graphBackend(t *testing.T) (*fakeBackend, uintptr, uintptr) {
	t.Helper()
	lockThread(t)
	b := newBackend(Devices(1))
	require.NoError(t, b.Init(0))
	ctx, err := b.DevicePrimaryCtxRetain(0)
	require.NoError(t, err)
	require.NoError(t, b.CtxPushCurrent(ctx))
	s, err := b.StreamCreateWithPriority(0, 0)
	require.NoError(t, err)
	return b, ctx, s
}

// A while node whose condition nothing clears fails the launch after
// graphs.maxWhileRuns runs of its body instead of hanging.
func TestWhileNodeBounded(t *testing.T) {
	b, ctx, s := graphBackend(t)
	g, err := b.GraphCreate(0)
	require.NoError(t, err)
	h, err := b.GraphConditionalHandleCreate(g, ctx, 1, backend.GraphCondAssignDefault)
	require.NoError(t, err)
	_, body, err := b.GraphAddConditionalNode(g, nil, h, backend.GraphCondWhile, ctx)
	require.NoError(t, err)
	_, err = b.GraphAddEmptyNode(body, nil)
	require.NoError(t, err)
	require.ErrorIs(t, b.GraphDestroy(body), driver.ErrInvalidValue, "a body is its node's")
	x, err := b.GraphInstantiate(g, 0)
	require.NoError(t, err)
	require.NoError(t, b.GraphLaunch(x, s))
	require.ErrorIs(t, b.StreamSynchronize(s), driver.ErrLaunchFailed)
}

// The DOT dump names node types, has an edge per dependency and a cluster
// per conditional body; the leak report does not list bodies.
func TestGraphDebugDotAndBodies(t *testing.T) {
	b, ctx, _ := graphBackend(t)
	g, err := b.GraphCreate(0)
	require.NoError(t, err)
	e, err := b.GraphAddEmptyNode(g, nil)
	require.NoError(t, err)
	h, err := b.GraphConditionalHandleCreate(g, ctx, 0, 0)
	require.NoError(t, err)
	c, body, err := b.GraphAddConditionalNode(g, []uintptr{e}, h, backend.GraphCondIf, ctx)
	require.NoError(t, err)
	_, err = b.GraphAddEmptyNode(body, nil)
	require.NoError(t, err)
	_, err = b.GraphAddEmptyNode(g, []uintptr{e, c})
	require.NoError(t, err)
	dot, err := b.GraphDebugDot(g, backend.GraphDebugDotVerbose)
	require.NoError(t, err)
	s := string(dot)
	assert.True(t, strings.HasPrefix(s, "digraph"), s)
	assert.Equal(t, 3, strings.Count(s, "->"), s)
	assert.Contains(t, s, "CONDITIONAL")
	assert.Contains(t, s, "subgraph cluster_")
	assert.Contains(t, s, "IF, handle")
	graphs := 0
	for _, l := range b.Leaks() {
		if l.Kind == backend.LeakGraph {
			graphs++
		}
	}
	assert.Equal(t, 1, graphs, "the body is no leak of its own")
	require.NoError(t, b.GraphDestroy(g))
	_, err = b.GraphAddEmptyNode(body, nil)
	require.ErrorIs(t, err, driver.ErrInvalidValue, "the body went with its graph")
}

// A user object released by an exec's destroy runs its destructor after
// the work queued in the exec's context, once.
func TestUserObjectAfterExecWork(t *testing.T) {
	b, _, s := graphBackend(t)
	g, err := b.GraphCreate(0)
	require.NoError(t, err)
	ran := make(chan struct{}, 1)
	_, err = b.GraphAddHostNode(g, nil, func() { time.Sleep(20 * time.Millisecond); ran <- struct{}{} })
	require.NoError(t, err)
	destroyed := make(chan bool, 2)
	o, err := b.UserObjectCreate(func() {
		select {
		case <-ran:
			destroyed <- true
		default:
			destroyed <- false
		}
	})
	require.NoError(t, err)
	require.NoError(t, b.GraphRetainUserObject(g, o, 1, backend.GraphUserObjectMove))
	require.ErrorIs(t, b.UserObjectRelease(o, 2), driver.ErrInvalidValue, "more than it has")
	x, err := b.GraphInstantiate(g, 0)
	require.NoError(t, err)
	require.NoError(t, b.GraphDestroy(g))
	require.NoError(t, b.GraphLaunch(x, s))
	require.NoError(t, b.GraphExecDestroy(x))
	select {
	case ok := <-destroyed:
		assert.True(t, ok, "the destructor ran after the launch's host node")
	case <-time.After(10 * time.Second):
		t.Fatal("destructor never ran")
	}
	select {
	case <-destroyed:
		t.Fatal("destructor ran twice")
	case <-time.After(30 * time.Millisecond):
	}
	require.NoError(t, b.StreamSynchronize(s))
}

// A user object of a child graph is kept by the parent's copy of it and by
// a clone of the parent, until the last of them is destroyed.
func TestUserObjectKeptByChildCopiesAndClones(t *testing.T) {
	b, _, _ := graphBackend(t)
	child, err := b.GraphCreate(0)
	require.NoError(t, err)
	destroyed := make(chan struct{}, 1)
	o, err := b.UserObjectCreate(func() { destroyed <- struct{}{} })
	require.NoError(t, err)
	require.NoError(t, b.GraphRetainUserObject(child, o, 1, backend.GraphUserObjectMove))
	parent, err := b.GraphCreate(0)
	require.NoError(t, err)
	_, err = b.GraphAddChildGraphNode(parent, nil, child)
	require.NoError(t, err)
	clone, err := b.GraphClone(parent)
	require.NoError(t, err)
	for _, g := range []uintptr{child, parent} {
		require.NoError(t, b.GraphDestroy(g))
		select {
		case <-destroyed:
			t.Fatal("destroyed while a copy still keeps it")
		case <-time.After(20 * time.Millisecond):
		}
	}
	require.NoError(t, b.GraphDestroy(clone))
	select {
	case <-destroyed:
	case <-time.After(10 * time.Second):
		t.Fatal("never destroyed")
	}
}
