package fake

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/ondevice"
)

// TestRaceCollective: an all-reduce on each rank's stream reads its send
// buffer and writes its receive buffer, ordered on that rank's stream
// only: a memset of rank 1's send buffer on another stream of rank 1 with
// nothing between races; in stream order it does not.
func TestRaceCollective(t *testing.T) {
	for _, ordered := range []bool{true, false} {
		var got []Hazard
		b := newBackend(Devices(2), DetectRaces(func(h Hazard) { got = append(got, h) }))
		require.NoError(t, b.Init(0))
		nc, err := b.NCCL()
		require.NoError(t, err)
		runtime.LockOSThread()
		type rank struct{ ctx, s, other, send, recv uintptr }
		var rs [2]rank
		for i := range rs {
			ctx, err := b.DevicePrimaryCtxRetain(i)
			require.NoError(t, err)
			require.NoError(t, b.CtxPushCurrent(ctx))
			r := &rs[i]
			r.ctx = ctx
			r.s, err = b.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
			require.NoError(t, err)
			r.other, err = b.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
			require.NoError(t, err)
			r.send, err = b.MemAlloc(64)
			require.NoError(t, err)
			r.recv, err = b.MemAlloc(64)
			require.NoError(t, err)
			require.NoError(t, b.MemsetD32(r.send, 1, 16))
			_, err = b.CtxPopCurrent()
			require.NoError(t, err)
		}
		hs, err := nc.CommInitAll([]int{0, 1})
		require.NoError(t, err)
		fill := rs[1].other
		if ordered {
			fill = rs[1].s
		}
		require.NoError(t, b.CtxPushCurrent(rs[1].ctx))
		require.NoError(t, b.MemsetD32Async(rs[1].send, 2, 16, fill))
		_, err = b.CtxPopCurrent()
		require.NoError(t, err)
		require.NoError(t, nc.GroupStart())
		for i, r := range rs {
			require.NoError(t, nc.AllReduce(r.send, r.recv, 16, backend.NCCLFloat32, backend.NCCLSum, hs[i], r.s))
		}
		require.NoError(t, nc.GroupEnd())
		for i, r := range rs {
			require.NoError(t, b.CtxPushCurrent(r.ctx))
			require.NoError(t, b.CtxSynchronize())
			for _, p := range []uintptr{r.send, r.recv} {
				require.NoError(t, b.MemFree(p))
			}
			require.NoError(t, b.StreamDestroy(r.s))
			require.NoError(t, b.StreamDestroy(r.other))
			_, err := b.CtxPopCurrent()
			require.NoError(t, err)
			require.NoError(t, nc.CommDestroy(hs[i]))
			require.NoError(t, b.DevicePrimaryCtxRelease(i))
		}
		runtime.UnlockOSThread()
		if ordered {
			assert.Empty(t, got)
			continue
		}
		require.Len(t, got, 1)
		ops := []string{got[0].Current.Op, got[0].Previous.Op}
		assert.ElementsMatch(t, []string{"ncclAllReduce", "memset"}, ops)
		assert.Equal(t, rs[1].send, got[0].Addr)
	}
}

// TestRaceMathLibraryWork: the fake math libraries' work reads and writes
// by range, as the library's kernel would.
func TestRaceMathLibraryWork(t *testing.T) {
	b, got := raceBackend(t)
	ss := newStreams(t, b, backend.StreamNonBlocking, 2)
	p := alloc4K(t, b)
	q := libQueue{b}
	require.NoError(t, b.MemsetD8(p, 0, 4096))
	require.NoError(t, q.Enqueue("cublasSgemm_v2", ss[0], func(m ondevice.Memory) error {
		_, err := m.Write(p, 128)
		return err
	}))
	require.NoError(t, q.Enqueue("cublasSgemm_v2", ss[1], func(m ondevice.Memory) error {
		_, err := m.Read(p+64, 128)
		return err
	}))
	require.NoError(t, b.CtxSynchronize())
	require.Len(t, *got, 1)
	h := (*got)[0]
	assert.Equal(t, p+64, h.Addr)
	assert.Equal(t, uintptr(64), h.Size)
	assert.Equal(t, "cublasSgemm_v2", h.Current.Op)
}

// TestRaceCollectiveOrdersRanks: rank 1 writes a buffer on its stream
// before an all-reduce; rank 0 reads it on its own stream after the
// all-reduce: the collective orders the two.
func TestRaceCollectiveOrdersRanks(t *testing.T) {
	var got []Hazard
	b := newBackend(Devices(2), DetectRaces(func(h Hazard) { got = append(got, h) }))
	require.NoError(t, b.Init(0))
	nc, err := b.NCCL()
	require.NoError(t, err)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var ctxs, ss, bufs [2]uintptr
	for i := range 2 {
		ctxs[i], err = b.DevicePrimaryCtxRetain(i)
		require.NoError(t, err)
		require.NoError(t, b.CtxPushCurrent(ctxs[i]))
		ss[i], err = b.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
		require.NoError(t, err)
		bufs[i], err = b.MemAlloc(64)
		require.NoError(t, err)
		require.NoError(t, b.MemsetD32(bufs[i], 1, 16))
		_, err = b.CtxPopCurrent()
		require.NoError(t, err)
	}
	hs, err := nc.CommInitAll([]int{0, 1})
	require.NoError(t, err)
	require.NoError(t, b.CtxPushCurrent(ctxs[1]))
	shared, err := b.MemAlloc(64) // on device 1
	require.NoError(t, err)
	require.NoError(t, b.MemsetD32Async(shared, 5, 16, ss[1]))
	require.NoError(t, nc.GroupStart())
	for i := range 2 {
		require.NoError(t, nc.AllReduce(bufs[i], bufs[i], 16, backend.NCCLFloat32, backend.NCCLSum, hs[i], ss[i]))
	}
	require.NoError(t, nc.GroupEnd())
	var out [16]uint32
	require.NoError(t, b.MemcpyDtoHAsync(unsafe.Pointer(&out), shared, 64, ss[0]))
	require.NoError(t, b.StreamSynchronize(ss[0]))
	require.NoError(t, b.StreamSynchronize(ss[1]))
	assert.Empty(t, got)
	assert.Equal(t, uint32(5), out[15])
	require.NoError(t, b.MemFree(shared))
	_, err = b.CtxPopCurrent()
	require.NoError(t, err)
	for i := range 2 {
		require.NoError(t, b.MemFree(bufs[i]))
		require.NoError(t, b.StreamDestroy(ss[i]))
		require.NoError(t, nc.CommDestroy(hs[i]))
		require.NoError(t, b.DevicePrimaryCtxRelease(i))
	}
}
