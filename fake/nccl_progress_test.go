package fake

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
)

// ncclOnDevice runs fn on a locked OS thread with device dev's primary
// context current, as NCCL's callers do. It may run on a goroutine of its
// own: it reports failures with assert, and then does not run fn.
func ncclOnDevice(t *testing.T, b *fakeBackend, dev int, fn func()) {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ctx, err := b.DevicePrimaryCtxRetain(dev)
	if !assert.NoError(t, err) {
		return
	}
	defer func() { assert.NoError(t, b.DevicePrimaryCtxRelease(dev)) }()
	if !assert.NoError(t, b.CtxPushCurrent(ctx)) {
		return
	}
	defer func() { _, err := b.CtxPopCurrent(); assert.NoError(t, err) }()
	fn()
}

// A non-blocking init returns ncclInProgress with its communicator, which
// stays in progress until every rank joined; a blocking rank waiting for a
// peer that is aborted meanwhile fails with ncclRemoteError, as does a
// rank joining after that.
func TestNCCLInitInProgressAndBroken(t *testing.T) {
	b, nc := ncclOf(t, 3)
	id, err := nc.GetUniqueID()
	require.NoError(t, err)
	nonBlocking := &backend.NCCLConfig{Blocking: 0}
	var h0 uintptr
	ncclOnDevice(t, b, 0, func() {
		err = nc.CommInitRank(3, id, 0, nonBlocking, &h0)
	})
	assert.ErrorIs(t, err, backend.NCCLInProgress)
	require.NotZero(t, h0, "handed out at once")
	async, err := nc.CommGetAsyncError(h0)
	require.NoError(t, err)
	assert.ErrorIs(t, async, backend.NCCLInProgress)

	blocked := make(chan error, 1)
	h1 := new(uintptr)
	go ncclOnDevice(t, b, 1, func() { blocked <- nc.CommInitRank(3, id, 1, nil, h1) })
	select {
	case err := <-blocked:
		t.Fatalf("a blocking init returned (%v) before every rank joined", err)
	case <-time.After(20 * time.Millisecond):
	}
	require.NoError(t, nc.CommAbort(h0))
	select {
	case err := <-blocked:
		assert.ErrorIs(t, err, backend.NCCLRemoteError, "its peer was aborted")
	case <-time.After(time.Minute):
		t.Fatal("a blocking init whose peer was aborted still waits")
	}
	require.NotZero(t, *h1, "handed back for the caller to abort")
	require.NoError(t, nc.CommAbort(*h1))
	ncclOnDevice(t, b, 2, func() {
		err = nc.CommInitRank(3, id, 2, nil, new(uintptr))
	})
	assert.ErrorIs(t, err, backend.NCCLRemoteError, "a rank joining a broken init")
	_, err = nc.CommGetAsyncError(h0)
	assert.ErrorIs(t, err, backend.NCCLInvalidArgument, "an aborted communicator is gone")
}

// A non-blocking split returns ncclInProgress; the parent says so until
// every rank split, and ncclRemoteError once a peer was aborted first.
func TestNCCLSplitInProgressAndBroken(t *testing.T) {
	b, nc := ncclOf(t, 2)
	var hs []uintptr
	ncclOnDevice(t, b, 0, func() {
		var err error
		hs, err = nc.CommInitAll([]int{0, 1})
		require.NoError(t, err)
	})
	child := new(uintptr)
	err := nc.CommSplit(hs[0], 0, 0, &backend.NCCLConfig{Blocking: 0}, child)
	assert.ErrorIs(t, err, backend.NCCLInProgress)
	assert.Zero(t, *child, "NCCL_COMM_NULL until the split completes")
	async, err := nc.CommGetAsyncError(hs[0])
	require.NoError(t, err)
	assert.ErrorIs(t, async, backend.NCCLInProgress)
	require.NoError(t, nc.CommAbort(hs[1]))
	async, err = nc.CommGetAsyncError(hs[0])
	require.NoError(t, err)
	assert.ErrorIs(t, async, backend.NCCLRemoteError, "the peer was aborted before splitting")
	assert.Zero(t, *child)
	require.NoError(t, nc.CommAbort(hs[0]))
}
