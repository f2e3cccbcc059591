package fake

import (
	"math"
	"runtime"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
)

// ncclOf returns the fake's NCCL and a backend with n devices, cuInit done.
func ncclOf(t *testing.T, n int) (*fakeBackend, backend.NCCL) {
	t.Helper()
	b := newBackend(Devices(n))
	require.NoError(t, b.Init(0))
	nc, err := b.NCCL()
	require.NoError(t, err)
	return b, nc
}

func TestNCCLSeamErrors(t *testing.T) {
	b, nc := ncclOf(t, 2)
	v, err := nc.Version()
	require.NoError(t, err)
	assert.Equal(t, 22809, v)

	err = nc.GroupEnd()
	assert.ErrorIs(t, err, backend.NCCLInvalidUsage, "GroupEnd without GroupStart")
	assert.ErrorIs(t, nc.CommDestroy(0x1234), backend.NCCLInvalidArgument)
	assert.NotEmpty(t, nc.LastError(0), "ncclGetLastError says why")
	_, err = nc.CommCount(0)
	assert.ErrorIs(t, err, backend.NCCLInvalidArgument)

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ctx, err := b.DevicePrimaryCtxRetain(0)
	require.NoError(t, err)
	defer func() { require.NoError(t, b.DevicePrimaryCtxRelease(0)) }()
	require.NoError(t, b.CtxPushCurrent(ctx))
	defer func() { _, err := b.CtxPopCurrent(); require.NoError(t, err) }()

	var h uintptr
	err = nc.CommInitRank(1, backend.NCCLUniqueID{}, 0, nil, &h)
	assert.ErrorIs(t, err, backend.NCCLSystemError, "an id no ncclGetUniqueId made")
	assert.Zero(t, h)
	id, err := nc.GetUniqueID()
	require.NoError(t, err)
	require.NoError(t, nc.CommInitRank(1, id, 0, nil, &h), "one rank: no one to wait for")
	require.NotZero(t, h)
	err = nc.CommInitRank(1, id, 0, nil, new(uintptr))
	assert.ErrorIs(t, err, backend.NCCLSystemError, "an id makes one communicator")

	p, err := b.MemAlloc(64)
	require.NoError(t, err)
	defer func() { require.NoError(t, b.MemFree(p)) }()
	assert.ErrorIs(t, nc.AllReduce(p, p, 4, backend.NCCLDataType(42), backend.NCCLSum, h, 0), backend.NCCLInvalidArgument, "no such type")
	assert.ErrorIs(t, nc.AllReduce(p, p, 4, backend.NCCLFloat32, backend.NCCLRedOp(17), h, 0), backend.NCCLInvalidArgument, "no such reduction")
	assert.ErrorIs(t, nc.AllReduce(p, p, 32, backend.NCCLFloat32, backend.NCCLSum, h, 0), backend.NCCLInvalidArgument, "past the allocation")
	assert.ErrorIs(t, nc.AllReduce(p, p, 4, backend.NCCLFloat32, backend.NCCLSum, h+1, 0), backend.NCCLInvalidArgument, "no such communicator")
	assert.ErrorIs(t, nc.Send(p, 4, backend.NCCLFloat32, 1, h, 0), backend.NCCLInvalidArgument, "peer out of range")
	require.NoError(t, nc.AllReduce(p, p, 4, backend.NCCLFloat32, backend.NCCLSum, h, 0), "a clique of one")
	require.NoError(t, b.CtxSynchronize())
	require.NoError(t, nc.CommDestroy(h))
	assert.ErrorIs(t, nc.CommDestroy(h), backend.NCCLInvalidArgument, "destroyed")
	var ncErr *backend.NCCLError
	require.ErrorAs(t, nc.CommDestroy(h), &ncErr)
	assert.Equal(t, "ncclCommDestroy", ncErr.Op)
	assert.Contains(t, ncErr.Error(), "ncclCommDestroy: ncclInvalidArgument: invalid argument")
}

// TestNCCLLastErrorConcurrent: ncclGroupEnd outside a group records its
// last error under the room's lock, so that another thread reading
// ncclGetLastError meanwhile is no data race (under -race).
func TestNCCLLastErrorConcurrent(t *testing.T) {
	_, nc := ncclOf(t, 1)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				assert.ErrorIs(t, nc.GroupEnd(), backend.NCCLInvalidUsage)
				assert.Equal(t, "ncclGroupEnd: not in a group", nc.LastError(0))
			}
		}()
	}
	wg.Wait()
}

// TestNCCLWaitsForHostCallback: rank 1's stream is held up by a host
// callback before its part; rank 0's stream waits for it there without
// holding up anything else, and both finish once the callback returns.
func TestNCCLWaitsForHostCallback(t *testing.T) {
	b, nc := ncclOf(t, 2)
	type rank struct {
		ctx, s, p uintptr
	}
	var rs [2]rank
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for i := range rs {
		ctx, err := b.DevicePrimaryCtxRetain(i)
		require.NoError(t, err)
		require.NoError(t, b.CtxPushCurrent(ctx))
		rs[i].ctx = ctx
		rs[i].s, err = b.StreamCreateWithPriority(0, 0)
		require.NoError(t, err)
		rs[i].p, err = b.MemAlloc(8)
		require.NoError(t, err)
		require.NoError(t, b.MemsetD32(rs[i].p, math.Float32bits(float32(i+1)), 2))
		_, err = b.CtxPopCurrent()
		require.NoError(t, err)
	}
	hs, err := nc.CommInitAll([]int{0, 1})
	require.NoError(t, err)
	release := make(chan struct{})
	require.NoError(t, b.LaunchHostFunc(rs[1].s, func() { <-release }))
	require.NoError(t, nc.GroupStart())
	for i, r := range rs {
		require.NoError(t, nc.AllReduce(r.p, r.p, 2, backend.NCCLFloat32, backend.NCCLSum, hs[i], r.s))
	}
	require.NoError(t, nc.GroupEnd())

	done := make(chan error, 1)
	go func() { done <- b.StreamSynchronize(rs[0].s) }()
	select {
	case err := <-done:
		t.Fatalf("rank 0 finished before rank 1 reached the collective: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	require.NoError(t, <-done)
	require.NoError(t, b.StreamSynchronize(rs[1].s))
	for i, r := range rs {
		var out [2]float32
		require.NoError(t, b.CtxPushCurrent(r.ctx))
		require.NoError(t, b.MemcpyDtoH(unsafe.Pointer(&out), r.p, 8))
		assert.Equal(t, [2]float32{3, 3}, out, "rank %d", i)
		require.NoError(t, b.MemFree(r.p))
		require.NoError(t, b.StreamDestroy(r.s))
		_, err := b.CtxPopCurrent()
		require.NoError(t, err)
		require.NoError(t, nc.CommDestroy(hs[i]))
		require.NoError(t, b.DevicePrimaryCtxRelease(i))
	}
	assert.Empty(t, b.Leaks())
}
