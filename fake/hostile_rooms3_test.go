package fake

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// TestHostileLibraryUnloadedUnderGraph unloads a library while a graph
// holds kernel nodes of it (by its function and by its CUkernel):
// instantiating and launching afterwards neither panics nor hangs, and
// the teardowns succeed.
func TestHostileLibraryUnloadedUnderGraph(t *testing.T) {
	b := bound(t)
	s, err := b.StreamCreateWithPriority(0, 0)
	require.NoError(t, err)
	lib, err := b.LibraryLoadData([]byte(libraryPTX))
	require.NoError(t, err)
	k, err := b.LibraryGetKernel(lib, "bump")
	require.NoError(t, err)
	f, err := b.KernelGetFunction(k)
	require.NoError(t, err)
	g, err := b.GraphCreate(0)
	require.NoError(t, err)
	one := [3]uint32{1, 1, 1}
	_, err = b.GraphAddKernelNode(g, nil, &backend.KernelNodeParams{Func: f, Grid: one, Block: one})
	require.NoError(t, err)
	_, err = b.GraphAddKernelNode(g, nil, &backend.KernelNodeParams{Kernel: k, Grid: one, Block: one})
	require.NoError(t, err, "a node by its CUkernel, as the driver takes it")
	x, err := b.GraphInstantiate(g, 0)
	require.NoError(t, err)
	require.NoError(t, b.LibraryUnload(lib))
	noPanic(t, "GraphInstantiate", func() error {
		x2, err := b.GraphInstantiate(g, 0)
		if err == nil {
			return b.GraphExecDestroy(x2)
		}
		return err
	})
	noPanic(t, "GraphLaunch", func() error { return b.GraphLaunch(x, s) })
	noPanic(t, "StreamSynchronize", func() error { return b.StreamSynchronize(s) })
	noPanic(t, "GraphDebugDot", func() error { _, err := b.GraphDebugDot(g, 0); return err })
	noPanic(t, "GraphClone", func() error {
		c, err := b.GraphClone(g)
		if err == nil {
			return b.GraphDestroy(c)
		}
		return err
	})
	require.NoError(t, noPanic(t, "GraphExecDestroy", func() error { return b.GraphExecDestroy(x) }))
	require.NoError(t, noPanic(t, "GraphDestroy", func() error { return b.GraphDestroy(g) }))
	require.NoError(t, b.StreamDestroy(s))
	for _, l := range b.Leaks() {
		assert.Equal(t, backend.LeakPrimaryContext, l.Kind, "leak: %v", l)
	}
}

// mustCurrent is the calling thread's current context.
func mustCurrent(t *testing.T, b *fakeBackend) uintptr {
	ctx, err := b.CtxGetCurrent()
	if err != nil {
		t.Error(err)
	}
	return ctx
}

// TestHostilePoolDestroyOutstanding destroys a pool with an allocation
// outstanding, then frees it: nothing panics, the free succeeds (or the
// destroy is refused and retried), and nothing leaks.
func TestHostilePoolDestroyOutstanding(t *testing.T) {
	b := bound(t)
	pool, err := b.MemPoolCreate(backend.MemPoolProps{AllocType: backend.MemAllocationTypePinned,
		Location: backend.MemLocation{Type: backend.MemLocationDevice, ID: 0}})
	require.NoError(t, err)
	p, err := b.MemAllocFromPoolAsync(64, pool, 0)
	require.NoError(t, err)
	require.NoError(t, b.StreamSynchronize(0))
	_, err = b.MemAllocFromPoolAsync(64, 0, 0)
	assert.Error(t, err, "pool 0")
	_, err = b.MemAllocFromPoolAsync(1<<62, pool, 0)
	assert.Error(t, err, "more than the device has")
	derr := noPanic(t, "MemPoolDestroy", func() error { return b.MemPoolDestroy(pool) })
	require.NoError(t, noPanic(t, "MemFreeAsync", func() error { return b.MemFreeAsync(p, 0) }))
	require.NoError(t, b.StreamSynchronize(0))
	assert.Error(t, b.MemFreeAsync(p, 0), "freed twice")
	if derr != nil {
		require.NoError(t, b.MemPoolDestroy(pool), "the destroy retried once the memory is back")
	}
	assert.Error(t, b.MemPoolDestroy(pool), "destroyed twice")
	for _, l := range b.Leaks() {
		assert.Equal(t, backend.LeakPrimaryContext, l.Kind, "leak: %v", l)
	}
}

// TestHostileCaptureOtherThread ends a stream's capture from another
// thread (global mode: allowed, as on the driver, since the capture is the
// stream's), and captures into a stream while a capture on another thread
// in global mode is under way: nothing panics or hangs, and no graph
// leaks.
func TestHostileCaptureOtherThread(t *testing.T) {
	b := bound(t)
	ctx := mustCurrent(t, b)
	s, err := b.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
	require.NoError(t, err)
	require.NoError(t, b.StreamBeginCapture(s, backend.CaptureModeGlobal))
	assert.Error(t, b.StreamBeginCapture(s, backend.CaptureModeGlobal), "begun twice")
	require.NoError(t, b.MemsetD8Async(0, 0, 0, s) /* zero bytes: a node or nothing */)
	var g uintptr
	var endErr error
	within(t, 10*time.Second, "StreamEndCapture on another thread", func() {
		if err := b.CtxSetCurrent(ctx); err != nil {
			t.Error(err)
			return
		}
		g, endErr = b.StreamEndCapture(s)
	})
	if endErr == nil {
		require.NoError(t, b.GraphDestroy(g))
	} else {
		// Refused: the capture is still the stream's, ended here.
		g, err = b.StreamEndCapture(s)
		require.NoError(t, err)
		require.NoError(t, b.GraphDestroy(g))
	}
	_, err = b.StreamEndCapture(s)
	assert.Error(t, err, "ended twice")
	require.NoError(t, b.StreamDestroy(s))
	for _, l := range b.Leaks() {
		assert.Equal(t, backend.LeakPrimaryContext, l.Kind, "leak: %v", l)
	}
}

// TestHostileUserFunctions runs user functions that panic or call back
// into the driver from a stream callback and a user object's destructor:
// nothing panics out of the driver, nothing deadlocks, and the driver is
// usable afterwards.
func TestHostileUserFunctions(t *testing.T) {
	b := bound(t)
	ctx := mustCurrent(t, b)
	s, err := b.StreamCreateWithPriority(0, 0)
	require.NoError(t, err)
	var cbErr error
	for _, fn := range []func(){
		func() { panic("user callback") },
		func() { cbErr = b.StreamSynchronize(s) },
		func() { _, _ = b.MemAlloc(8) },
	} {
		require.NoError(t, b.LaunchHostFunc(s, fn))
	}
	within(t, 10*time.Second, "callbacks", func() {
		require.NoError(t, b.CtxSetCurrent(ctx))
		assert.NoError(t, b.StreamSynchronize(s))
	})
	assert.Error(t, cbErr, "a callback may not call CUDA")

	// A destructor that panics, one that releases another user object,
	// and one that destroys a graph.
	g, err := b.GraphCreate(0)
	require.NoError(t, err)
	inner, err := b.UserObjectCreate(func() {})
	require.NoError(t, err)
	for _, fn := range []func(){
		func() { panic("user destructor") },
		func() { _ = b.UserObjectRelease(inner, 1) },
		func() { _ = b.GraphDestroy(g) },
	} {
		o, err := b.UserObjectCreate(fn)
		require.NoError(t, err)
		require.NoError(t, b.GraphRetainUserObject(g, o, 1, backend.GraphUserObjectMove))
	}
	x, err := b.GraphInstantiate(g, 0)
	require.NoError(t, err)
	within(t, 10*time.Second, "destructors", func() {
		require.NoError(t, b.CtxSetCurrent(ctx))
		require.NoError(t, noPanic(t, "GraphDestroy", func() error { return b.GraphDestroy(g) }))
		require.NoError(t, noPanic(t, "GraphLaunch", func() error { return b.GraphLaunch(x, s) }))
		require.NoError(t, noPanic(t, "GraphExecDestroy", func() error { return b.GraphExecDestroy(x) }))
		require.NoError(t, b.StreamSynchronize(s))
		require.NoError(t, b.CtxSynchronize())
	})
	_ = noPanic(t, "UserObjectRelease", func() error { return b.UserObjectRelease(inner, 1) })
	require.NoError(t, b.StreamDestroy(s))
	runtime.GC()
	for _, l := range b.Leaks() {
		assert.Equal(t, backend.LeakPrimaryContext, l.Kind, "leak: %v", l)
	}
}

// TestHostileGlobalCaptureOtherThread makes unsafe calls on another
// thread while a stream captures in global mode: each is refused and
// invalidates the capture, whose end then returns no graph; the stream is
// usable and destroyed after. (Result 900 is
// CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, 901 ..._INVALIDATED.)
func TestHostileGlobalCaptureOtherThread(t *testing.T) {
	b := bound(t)
	ctx := mustCurrent(t, b)
	s, err := b.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
	require.NoError(t, err)
	require.NoError(t, b.StreamBeginCapture(s, backend.CaptureModeGlobal))
	within(t, 10*time.Second, "unsafe calls on another thread", func() {
		require.NoError(t, b.CtxSetCurrent(ctx))
		_, err := b.MemAlloc(8)
		assert.ErrorIs(t, err, backend.Result(900))
		assert.ErrorIs(t, b.StreamSynchronize(0), backend.Result(900))
		assert.ErrorIs(t, b.StreamBeginCapture(s, backend.CaptureModeGlobal), driver.ErrIllegalState)
	})
	g, err := b.StreamEndCapture(s)
	assert.ErrorIs(t, err, backend.Result(901))
	assert.Zero(t, g)
	require.NoError(t, b.MemsetD8Async(0, 0, 0, s))
	require.NoError(t, b.StreamSynchronize(s))
	require.NoError(t, b.StreamDestroy(s))
	for _, l := range b.Leaks() {
		assert.Equal(t, backend.LeakPrimaryContext, l.Kind, "leak: %v", l)
	}
}
