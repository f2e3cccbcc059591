package fake

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// noPanic runs f and fails the test if it panics.
func noPanic(t *testing.T, name string, f func() error) error {
	t.Helper()
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("%s panicked: %v", name, r)
			}
		}()
		err = f()
	}()
	return err
}

// TestHostileRoomHandles calls each room's entry points with handles that
// are zero, of another room's kind, or already destroyed: each is refused
// with an error, nothing panics, and nothing leaks.
func TestHostileRoomHandles(t *testing.T) {
	b := bound(t)
	g, err := b.GraphCreate(0)
	require.NoError(t, err)
	_, err = b.GraphAddEmptyNode(g, nil)
	require.NoError(t, err)
	x, err := b.GraphInstantiate(g, 0)
	require.NoError(t, err)
	s, err := b.StreamCreateWithPriority(0, 0)
	require.NoError(t, err)
	pool, err := b.MemPoolCreate(backend.MemPoolProps{AllocType: backend.MemAllocationTypePinned,
		Location: backend.MemLocation{Type: backend.MemLocationDevice, ID: 0}})
	require.NoError(t, err)
	p, err := b.MemAlloc(64)
	require.NoError(t, err)

	for _, c := range []struct {
		name string
		call func() error
	}{
		{"GraphDestroy(0)", func() error { return b.GraphDestroy(0) }},
		{"GraphDestroy(exec)", func() error { return b.GraphDestroy(x) }},
		{"GraphDestroy(stream)", func() error { return b.GraphDestroy(s) }},
		{"GraphDestroy(pool)", func() error { return b.GraphDestroy(pool) }},
		{"GraphExecDestroy(0)", func() error { return b.GraphExecDestroy(0) }},
		{"GraphExecDestroy(graph)", func() error { return b.GraphExecDestroy(g) }},
		{"GraphLaunch(graph)", func() error { return b.GraphLaunch(g, s) }},
		{"GraphLaunch(exec, graph)", func() error { return b.GraphLaunch(x, g) }},
		{"GraphInstantiate(0)", func() error { _, err := b.GraphInstantiate(0, 0); return err }},
		{"GraphInstantiate(exec)", func() error { _, err := b.GraphInstantiate(x, 0); return err }},
		{"GraphClone(stream)", func() error { _, err := b.GraphClone(s); return err }},
		{"GraphAddHostNode(nil fn)", func() error { _, err := b.GraphAddHostNode(g, nil, nil); return err }},
		{"GraphAddEmptyNode(bad dep)", func() error { _, err := b.GraphAddEmptyNode(g, []uintptr{g}); return err }},
		{"GraphExecUpdate(exec, exec)", func() error { _, err := b.GraphExecUpdate(x, x); return err }},
		{"StreamEndCapture(not capturing)", func() error { _, err := b.StreamEndCapture(s); return err }},
		{"StreamBeginCapture(graph)", func() error { return b.StreamBeginCapture(g, backend.CaptureModeGlobal) }},
		{"UserObjectRelease(0)", func() error { return b.UserObjectRelease(0, 1) }},
		{"UserObjectRelease(graph)", func() error { return b.UserObjectRelease(g, 1) }},
		{"GraphRetainUserObject(graph, 0)", func() error { return b.GraphRetainUserObject(g, 0, 1, 0) }},
		{"MemPoolDestroy(0)", func() error { return b.MemPoolDestroy(0) }},
		{"MemPoolDestroy(graph)", func() error { return b.MemPoolDestroy(g) }},
		{"MemPoolTrimTo(stream)", func() error { return b.MemPoolTrimTo(s, 0) }},
		{"LibraryUnload(0)", func() error { return b.LibraryUnload(0) }},
		{"LibraryUnload(graph)", func() error { return b.LibraryUnload(g) }},
		{"LibraryGetKernel(0)", func() error { _, err := b.LibraryGetKernel(0, "k"); return err }},
		{"LibraryLoadData(nil)", func() error { _, err := b.LibraryLoadData(nil); return err }},
		{"IPCCloseMemHandle(0)", func() error { return b.IPCCloseMemHandle(0) }},
		{"IPCCloseMemHandle(alloc)", func() error { return b.IPCCloseMemHandle(p) }},
		{"IPCOpenMemHandle(zero)", func() error { _, err := b.IPCOpenMemHandle(backend.IPCHandle{}, 0); return err }},
		{"IPCOpenEventHandle(zero)", func() error { _, err := b.IPCOpenEventHandle(backend.IPCHandle{}); return err }},
		{"IPCGetEventHandle(0)", func() error { _, err := b.IPCGetEventHandle(0); return err }},
		{"IPCGetEventHandle(graph)", func() error { _, err := b.IPCGetEventHandle(g); return err }},
		{"IPCGetMemHandle(0)", func() error { _, err := b.IPCGetMemHandle(0); return err }},
		{"Memcpy2D(nil)", func() error { return b.Memcpy2D(nil) }},
		{"Memcpy3D(nil)", func() error { return b.Memcpy3D(nil) }},
		{"Memcpy2DAsync(graph stream)", func() error {
			return b.Memcpy2DAsync(&backend.Memcpy2D{SrcMemoryType: backend.MemoryTypeDevice, SrcDevice: p, SrcPitch: 8,
				DstMemoryType: backend.MemoryTypeDevice, DstDevice: p, DstPitch: 8, WidthInBytes: 8, Height: 1}, g)
		}},
	} {
		assert.Error(t, noPanic(t, c.name, c.call), c.name)
	}
	// The real objects still work after all that.
	require.NoError(t, b.GraphLaunch(x, s))
	require.NoError(t, b.StreamSynchronize(s))

	// Each teardown twice: the second is refused.
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"GraphExecDestroy", func() error { return b.GraphExecDestroy(x) }},
		{"GraphDestroy", func() error { return b.GraphDestroy(g) }},
		{"MemPoolDestroy", func() error { return b.MemPoolDestroy(pool) }},
		{"MemFree", func() error { return b.MemFree(p) }},
		{"StreamDestroy", func() error { return b.StreamDestroy(s) }},
	} {
		require.NoError(t, noPanic(t, c.name, c.call), c.name)
		assert.Error(t, noPanic(t, c.name+" again", c.call), c.name+" again")
	}
	for _, l := range b.Leaks() {
		assert.Equal(t, backend.LeakPrimaryContext, l.Kind, "leak: %v", l)
	}
}

// TestHostilePitchedOverflow gives the 2D and 3D copies widths, heights,
// pitches and offsets whose products or sums overflow: each is refused and
// the memory is unchanged.
func TestHostilePitchedOverflow(t *testing.T) {
	b := bound(t)
	p, pitch, err := b.MemAllocPitch(64, 4, 4)
	require.NoError(t, err)
	defer b.MemFree(p)
	host := make([]byte, 4096)
	before := readDevice(t, b, p, int(pitch*4))
	max := uintptr(math.MaxUint64)
	for _, c := range []backend.Memcpy2D{
		{WidthInBytes: max, Height: 1, SrcPitch: max, DstPitch: max},
		{WidthInBytes: 64, Height: max, SrcPitch: pitch, DstPitch: pitch},
		{WidthInBytes: 64, Height: 2, SrcPitch: max / 2, DstPitch: pitch},
		{WidthInBytes: 64, Height: 2, SrcPitch: pitch, DstPitch: pitch, DstXInBytes: max - 10},
		{WidthInBytes: 64, Height: 2, SrcPitch: pitch, DstPitch: pitch, DstY: max},
		{WidthInBytes: 64, Height: 2, SrcPitch: pitch, DstPitch: 32},
		{WidthInBytes: 64, Height: 5, SrcPitch: pitch, DstPitch: pitch},
	} {
		c.SrcMemoryType, c.SrcHost = backend.MemoryTypeHost, unsafe.Pointer(&host[0])
		c.DstMemoryType, c.DstDevice = backend.MemoryTypeDevice, p
		c := c
		assert.Error(t, noPanic(t, "Memcpy2D", func() error { return b.Memcpy2D(&c) }), "%+v", c)
		assert.Error(t, noPanic(t, "Memcpy2DAsync", func() error { return b.Memcpy2DAsync(&c, 0) }), "%+v", c)
	}
	for _, c := range []backend.Memcpy3D{
		{WidthInBytes: 64, Height: 4, Depth: max, SrcPitch: pitch, DstPitch: pitch, SrcHeight: 4, DstHeight: 4},
		{WidthInBytes: 64, Height: 4, Depth: 2, SrcPitch: pitch, DstPitch: pitch, SrcHeight: 4, DstHeight: max},
		{WidthInBytes: 64, Height: 4, Depth: 1, SrcPitch: pitch, DstPitch: pitch, SrcHeight: 4, DstHeight: 4, DstZ: max},
		{WidthInBytes: max, Height: 1, Depth: 1, SrcPitch: max, DstPitch: max, SrcHeight: 1, DstHeight: 1},
	} {
		c.SrcMemoryType, c.SrcHost = backend.MemoryTypeHost, unsafe.Pointer(&host[0])
		c.DstMemoryType, c.DstDevice = backend.MemoryTypeDevice, p
		c := c
		assert.Error(t, noPanic(t, "Memcpy3D", func() error { return b.Memcpy3D(&c) }), "%+v", c)
	}
	require.NoError(t, b.CtxSynchronize())
	assert.Equal(t, before, readDevice(t, b, p, int(pitch*4)))
}

// TestHostileHostNodes runs graphs whose host nodes panic or call back
// into the driver: nothing panics out of the driver nor deadlocks, and the
// stream and the driver are usable afterwards.
func TestHostileHostNodes(t *testing.T) {
	for _, c := range []struct {
		name string
		fn   func(b *fakeBackend, s uintptr)
		sync error // what the stream's synchronize returns
	}{
		// A host node may not wait for its own stream or context
		// (CUDA_ERROR_NOT_PERMITTED, as on the driver) rather than
		// deadlocking.
		{"synchronizes its stream", func(b *fakeBackend, s uintptr) {
			if err := b.StreamSynchronize(s); !errors.Is(err, driver.ErrNotPermitted) {
				panic(fmt.Sprintf("StreamSynchronize in a host node: %v", err))
			}
		}, nil},
		{"synchronizes the context", func(b *fakeBackend, s uintptr) {
			if err := b.CtxSynchronize(); !errors.Is(err, driver.ErrNotPermitted) {
				panic(fmt.Sprintf("CtxSynchronize in a host node: %v", err))
			}
		}, nil},
		{"launches another graph", func(b *fakeBackend, s uintptr) {
			g, err := b.GraphCreate(0)
			if err != nil {
				return
			}
			defer b.GraphDestroy(g)
			_, _ = b.GraphAddEmptyNode(g, nil)
			if x, err := b.GraphInstantiate(g, 0); err == nil {
				_ = b.GraphLaunch(x, s)
				_ = b.GraphExecDestroy(x)
			}
		}, nil},
		{"destroys a pool", func(b *fakeBackend, s uintptr) { _ = b.MemPoolDestroy(0) }, nil},
		// As before the move (dce1e0a): a panicking host node fails its
		// launch, a sticky fault.
		{"panics", func(b *fakeBackend, s uintptr) { panic("user host node") }, driver.ErrLaunchFailed},
	} {
		// Not t.Run: the context is current on this test's thread only.
		b := bound(t)
		ctx, err := b.CtxGetCurrent()
		require.NoError(t, err)
		s, err := b.StreamCreateWithPriority(0, 0)
		require.NoError(t, err)
		g, err := b.GraphCreate(0)
		require.NoError(t, err)
		_, err = b.GraphAddHostNode(g, nil, func() { c.fn(b, s) })
		require.NoError(t, err)
		x, err := b.GraphInstantiate(g, 0)
		require.NoError(t, err)
		within(t, 10*time.Second, c.name, func() {
			require.NoError(t, b.CtxSetCurrent(ctx))
			noPanic(t, "GraphLaunch", func() error { return b.GraphLaunch(x, s) })
			err := noPanic(t, "StreamSynchronize", func() error { return b.StreamSynchronize(s) })
			assert.ErrorIs(t, err, c.sync, c.name)
			if c.sync == nil {
				assert.NoError(t, err, c.name)
			}
		})
		if c.sync != nil {
			continue
		}
		require.NoError(t, noPanic(t, "GraphExecDestroy", func() error { return b.GraphExecDestroy(x) }), c.name)
		require.NoError(t, noPanic(t, "GraphDestroy", func() error { return b.GraphDestroy(g) }), c.name)
		require.NoError(t, b.StreamDestroy(s), c.name)
	}
}

// TestHostileGraphDestroyedWhileLaunching destroys a graph, and then its
// exec, while other goroutines launch the exec: launches before the exec's
// destruction run, later ones are refused, nothing panics or races.
func TestHostileGraphDestroyedWhileLaunching(t *testing.T) {
	b := newBackend()
	require.NoError(t, b.Init(0))
	ctx, err := b.DevicePrimaryCtxRetain(0)
	require.NoError(t, err)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	require.NoError(t, b.CtxSetCurrent(ctx))
	g, err := b.GraphCreate(0)
	require.NoError(t, err)
	var mu sync.Mutex
	runs := 0
	_, err = b.GraphAddHostNode(g, nil, func() { mu.Lock(); runs++; mu.Unlock() })
	require.NoError(t, err)
	x, err := b.GraphInstantiate(g, 0)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			if b.CtxSetCurrent(ctx) != nil {
				t.Error("CtxSetCurrent")
				return
			}
			for j := 0; j < 50; j++ {
				if noPanic(t, "GraphLaunch", func() error { return b.GraphLaunch(x, 0) }) != nil {
					return
				}
			}
			noPanic(t, "StreamSynchronize", func() error { return b.StreamSynchronize(0) })
		}()
	}
	require.NoError(t, b.GraphDestroy(g))
	within(t, 10*time.Second, "launches", func() {
		require.NoError(t, b.CtxSetCurrent(ctx))
		time.Sleep(time.Millisecond)
		require.NoError(t, b.GraphExecDestroy(x))
		wg.Wait()
	})
	require.NoError(t, b.CtxSynchronize())
	assert.Error(t, b.GraphLaunch(x, 0))
	require.NoError(t, b.DevicePrimaryCtxRelease(0))
	assert.Empty(t, b.Leaks())
}

// TestHostileExecDestroyedWhileQueued destroys an exec, and its graph,
// while a launch of it waits in a stream behind a blocked callback: the
// destroy returns at once, and the queued launch still runs its host node
// once the stream moves on.
func TestHostileExecDestroyedWhileQueued(t *testing.T) {
	b := bound(t)
	s, err := b.StreamCreateWithPriority(0, 0)
	require.NoError(t, err)
	g, err := b.GraphCreate(0)
	require.NoError(t, err)
	ran := make(chan struct{}, 1)
	_, err = b.GraphAddHostNode(g, nil, func() { ran <- struct{}{} })
	require.NoError(t, err)
	x, err := b.GraphInstantiate(g, 0)
	require.NoError(t, err)
	release := make(chan struct{})
	require.NoError(t, b.LaunchHostFunc(s, func() { <-release }))
	require.NoError(t, b.GraphLaunch(x, s))
	within(t, 10*time.Second, "destroys while a launch is queued", func() {
		require.NoError(t, b.GraphExecDestroy(x))
		require.NoError(t, b.GraphDestroy(g))
	})
	assert.Error(t, b.GraphLaunch(x, s), "launched after its destroy")
	close(release)
	require.NoError(t, b.StreamSynchronize(s))
	select {
	case <-ran:
	default:
		t.Fatal("the launch queued before the destroy did not run")
	}
	require.NoError(t, b.StreamDestroy(s))
	for _, l := range b.Leaks() {
		assert.Equal(t, backend.LeakPrimaryContext, l.Kind, "leak: %v", l)
	}
}
