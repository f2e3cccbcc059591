package fake

import (
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
)

// TestHostileNCCL gives the NCCL room bad handles and counts, and aborts a
// communicator whose collective waits for a rank that never comes: each
// bad call is refused, the waiting stream is released (with an error)
// instead of hanging, the teardowns can be retried, and nothing leaks.
func TestHostileNCCL(t *testing.T) {
	b, nc := ncclOf(t, 2)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var ctxs [2]uintptr
	var ss, ps [2]uintptr
	for i := range ctxs {
		ctx, err := b.DevicePrimaryCtxRetain(i)
		require.NoError(t, err)
		ctxs[i] = ctx
		require.NoError(t, b.CtxPushCurrent(ctx))
		ss[i], err = b.StreamCreateWithPriority(0, 0)
		require.NoError(t, err)
		ps[i], err = b.MemAlloc(8)
		require.NoError(t, err)
		_, err = b.CtxPopCurrent()
		require.NoError(t, err)
	}
	hs, err := nc.CommInitAll([]int{0, 1})
	require.NoError(t, err)
	require.NoError(t, b.CtxPushCurrent(ctxs[0]))

	for _, c := range []struct {
		name string
		call func() error
	}{
		{"CommDestroy(0)", func() error { return nc.CommDestroy(0) }},
		{"CommAbort(0)", func() error { return nc.CommAbort(0) }},
		{"CommFinalize(stream)", func() error { return nc.CommFinalize(ss[0]) }},
		{"CommCount(stream)", func() error { _, err := nc.CommCount(ss[0]); return err }},
		{"AllReduce(comm = stream)", func() error {
			return nc.AllReduce(ps[0], ps[0], 2, backend.NCCLFloat32, backend.NCCLSum, ss[0], ss[0])
		}},
		{"AllReduce(stream = comm)", func() error {
			return nc.AllReduce(ps[0], ps[0], 2, backend.NCCLFloat32, backend.NCCLSum, hs[0], hs[0])
		}},
		{"AllReduce(overflowing count)", func() error {
			return nc.AllReduce(ps[0], ps[0], math.MaxUint64/2, backend.NCCLFloat32, backend.NCCLSum, hs[0], ss[0])
		}},
		{"AllReduce(past the allocation)", func() error {
			return nc.AllReduce(ps[0], ps[0], 3, backend.NCCLFloat32, backend.NCCLSum, hs[0], ss[0])
		}},
		{"AllReduce(nil buffers)", func() error {
			return nc.AllReduce(0, 0, 2, backend.NCCLFloat32, backend.NCCLSum, hs[0], ss[0])
		}},
		{"AllReduce(bad type)", func() error {
			return nc.AllReduce(ps[0], ps[0], 2, backend.NCCLDataType(99), backend.NCCLSum, hs[0], ss[0])
		}},
		{"Send(peer out of range)", func() error { return nc.Send(ps[0], 2, backend.NCCLFloat32, 7, hs[0], ss[0]) }},
		{"Send(to itself... rank -1)", func() error { return nc.Send(ps[0], 2, backend.NCCLFloat32, -1, hs[0], ss[0]) }},
		{"GroupEnd(no group)", func() error { return nc.GroupEnd() }},
	} {
		assert.Error(t, noPanic(t, c.name, c.call), c.name)
	}

	// Rank 0 alone in a collective; rank 1 never comes; aborting rank 0
	// releases its stream.
	require.NoError(t, nc.AllReduce(ps[0], ps[0], 2, backend.NCCLFloat32, backend.NCCLSum, hs[0], ss[0]))
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		done <- b.StreamSynchronize(ss[0])
	}()
	select {
	case err := <-done:
		t.Fatalf("the stream finished before its collective's peer came: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	require.NoError(t, noPanic(t, "CommAbort", func() error { return nc.CommAbort(hs[0]) }))
	select {
	case <-done: // released: an error or not, it must not hang
	case <-time.After(10 * time.Second):
		t.Fatal("aborting the communicator did not release the stream waiting on its collective")
	}
	assert.Error(t, nc.CommAbort(hs[0]), "aborted twice")
	assert.Error(t, nc.CommDestroy(hs[0]), "destroyed after its abort")
	_, err = nc.CommCount(hs[0])
	assert.Error(t, err, "used after its abort")
	require.NoError(t, nc.CommDestroy(hs[1]))
	assert.Error(t, nc.CommDestroy(hs[1]), "destroyed twice")

	for i := range ctxs {
		_, _ = b.CtxPopCurrent()
		require.NoError(t, b.CtxPushCurrent(ctxs[i]))
		_ = b.StreamSynchronize(ss[i])
		require.NoError(t, b.MemFree(ps[i]))
		require.NoError(t, b.StreamDestroy(ss[i]))
		require.NoError(t, b.DevicePrimaryCtxRelease(i))
	}
	_, _ = b.CtxPopCurrent()
	assert.Empty(t, b.Leaks())
}

// TestHostileIPC closes IPC mappings twice, opens handles in the process
// that made them, frees exported memory while another process maps it, and
// opens handles of the wrong kind: each misuse is refused, the mapping's
// close is retried until it succeeds, and nothing leaks in either process.
func TestHostileIPC(t *testing.T) {
	a := bound(t)
	b := bound(t) // current on this thread now: b's context
	bctx, err := b.CtxGetCurrent()
	require.NoError(t, err)
	actx, err := a.DevicePrimaryCtxRetain(0)
	require.NoError(t, err)
	inA := func(f func()) {
		require.NoError(t, a.CtxPushCurrent(actx))
		defer a.CtxPopCurrent()
		f()
	}
	var p, ev uintptr
	var mh, eh backend.IPCHandle
	inA(func() {
		p, err = a.MemAlloc(64)
		require.NoError(t, err)
		mh, err = a.IPCGetMemHandle(p)
		require.NoError(t, err)
		ev, err = a.EventCreate(backend.EventInterprocess | backend.EventDisableTiming)
		require.NoError(t, err)
		eh, err = a.IPCGetEventHandle(ev)
		require.NoError(t, err)
		_, err = a.IPCOpenMemHandle(mh, 0)
		assert.Error(t, err, "opened in the process that made it")
		_, err = a.IPCOpenEventHandle(eh)
		assert.Error(t, err, "opened in the process that made it")
		_, err = a.IPCGetMemHandle(p + 64)
		assert.Error(t, err, "past the allocation")
	})
	_ = bctx
	_, err = b.IPCOpenMemHandle(eh, 0)
	assert.Error(t, err, "an event's handle opened as memory")
	_, err = b.IPCOpenEventHandle(mh)
	assert.Error(t, err, "a memory handle opened as an event")
	_, err = b.IPCOpenMemHandle(mh, 0xff)
	assert.Error(t, err, "bad flags")
	q, err := b.IPCOpenMemHandle(mh, 0)
	require.NoError(t, err)
	bev, err := b.IPCOpenEventHandle(eh)
	require.NoError(t, err)
	assert.Error(t, b.MemFree(q), "a mapping freed, not closed")
	assert.Error(t, b.IPCCloseMemHandle(q+8), "inside the mapping, not its start")
	assert.Error(t, a.IPCCloseMemHandle(q), "closed in the other process")

	// The exporter frees its memory while b maps it: b's mapping stays
	// usable until b closes it.
	inA(func() {
		require.NoError(t, a.MemFree(p))
		assert.Error(t, a.MemFree(p), "freed twice")
		require.NoError(t, a.EventDestroy(ev))
	})
	require.NoError(t, b.MemsetD8(q, 7, 64))
	require.NoError(t, b.CtxSynchronize())
	require.NoError(t, b.IPCCloseMemHandle(q))
	assert.Error(t, b.IPCCloseMemHandle(q), "closed twice")
	_, err = b.IPCOpenMemHandle(mh, 0)
	assert.Error(t, err, "opened after its memory was freed")
	require.NoError(t, b.EventDestroy(bev))
	assert.Error(t, b.EventDestroy(bev), "destroyed twice")
	require.NoError(t, a.DevicePrimaryCtxRelease(0))
	for _, l := range append(a.Leaks(), b.Leaks()...) {
		assert.Equal(t, backend.LeakPrimaryContext, l.Kind, "leak: %v", l)
	}
}

// TestHostileNCCLDestroyWhileWaiting destroys a communicator whose
// collective waits for a rank that has not come: the destroy returns (it
// does not wait for a peer that may never come), the stream is released,
// and the other rank's destroy succeeds.
func TestHostileNCCLDestroyWhileWaiting(t *testing.T) {
	b, nc := ncclOf(t, 2)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ctx, err := b.DevicePrimaryCtxRetain(0)
	require.NoError(t, err)
	require.NoError(t, b.CtxPushCurrent(ctx))
	s, err := b.StreamCreateWithPriority(0, 0)
	require.NoError(t, err)
	p, err := b.MemAlloc(8)
	require.NoError(t, err)
	hs, err := nc.CommInitAll([]int{0, 1})
	require.NoError(t, err)
	require.NoError(t, nc.AllReduce(p, p, 2, backend.NCCLFloat32, backend.NCCLSum, hs[0], s))
	var derr error
	within(t, 10*time.Second, "CommDestroy while its collective waits", func() {
		derr = noPanic(t, "CommDestroy", func() error { return nc.CommDestroy(hs[0]) })
	})
	within(t, 10*time.Second, "the stream after the destroy", func() {
		require.NoError(t, b.CtxSetCurrent(ctx))
		_ = b.StreamSynchronize(s)
	})
	if derr != nil {
		t.Logf("CommDestroy: %v; retried", derr)
		require.NoError(t, nc.CommDestroy(hs[0]), "the destroy retried")
	}
	assert.Error(t, nc.CommDestroy(hs[0]), "destroyed twice")
	require.NoError(t, nc.CommDestroy(hs[1]))
	_ = b.StreamSynchronize(s)
	require.NoError(t, b.MemFree(p))
	require.NoError(t, b.StreamDestroy(s))
	_, _ = b.CtxPopCurrent()
	require.NoError(t, b.DevicePrimaryCtxRelease(0))
	assert.Empty(t, b.Leaks())
}
