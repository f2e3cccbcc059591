package fake

import (
	"math"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/vmm"
)

// TestRoomsConcurrently uses the fake's parts at once, each from its own
// goroutine and OS thread: a stream capture with its graph's launches, an
// NCCL all-reduce over two devices, virtual memory mapped and unmapped
// (a room), programs compiled by the pretend NVRTC (a room), pool memory
// allocated and freed in stream order (a room), and the race detector
// reporting the unordered writes of two streams. Under -race it
// checks the lock rule between the core and its rooms (fake's package doc):
// a lock taken up the ladder deadlocks here or is a data race Go reports.
func TestRoomsConcurrently(t *testing.T) {
	const rounds = 8
	var mu sync.Mutex
	var hazards []Hazard
	b := newBackend(Devices(2), PretendNVRTC(), Kernel("k", func(t Thread, p Ptr) {}),
		DetectRaces(func(h Hazard) { mu.Lock(); hazards = append(hazards, h); mu.Unlock() }))
	require.NoError(t, b.Init(0))
	nc, err := b.NCCL()
	require.NoError(t, err)
	comms, err := nc.CommInitAll([]int{0, 1})
	require.NoError(t, err)

	// on runs f on a goroutine of its own, with dev's primary context
	// current on its locked OS thread.
	var wg sync.WaitGroup
	on := func(dev int, f func(t *testing.T)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ctx, err := b.DevicePrimaryCtxRetain(dev)
			if !assert.NoError(t, err) {
				return
			}
			defer b.DevicePrimaryCtxRelease(dev)
			if !assert.NoError(t, b.CtxPushCurrent(ctx)) {
				return
			}
			defer b.CtxPopCurrent()
			f(t)
		}()
	}

	on(0, func(t *testing.T) { // graphs and capture
		s, err := b.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
		require.NoError(t, err)
		defer b.StreamDestroy(s)
		p, err := b.MemAlloc(256)
		require.NoError(t, err)
		defer b.MemFree(p)
		for i := range rounds {
			require.NoError(t, b.StreamBeginCapture(s, backend.CaptureModeThreadLocal))
			require.NoError(t, b.MemsetD8Async(p, byte(i), 256, s))
			g, err := b.StreamEndCapture(s)
			require.NoError(t, err)
			e, err := b.GraphInstantiate(g, 0)
			require.NoError(t, err)
			require.NoError(t, b.GraphLaunch(e, s))
			require.NoError(t, b.StreamSynchronize(s))
			require.NoError(t, b.GraphExecDestroy(e))
			require.NoError(t, b.GraphDestroy(g))
		}
	})

	// NCCL: both ranks' all-reduces issued from one thread in a group.
	wg.Add(1)
	go func() {
		defer wg.Done()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		type rank struct{ ctx, s, send, recv uintptr }
		var rs [2]rank
		for i := range rs {
			ctx, err := b.DevicePrimaryCtxRetain(i)
			require.NoError(t, err)
			require.NoError(t, b.CtxPushCurrent(ctx))
			r := &rs[i]
			r.ctx = ctx
			r.s, err = b.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
			require.NoError(t, err)
			r.send, err = b.MemAlloc(64)
			require.NoError(t, err)
			r.recv, err = b.MemAlloc(64)
			require.NoError(t, err)
			require.NoError(t, b.MemsetD32(r.send, math.Float32bits(1), 16))
			_, err = b.CtxPopCurrent()
			require.NoError(t, err)
		}
		for range rounds {
			require.NoError(t, nc.GroupStart())
			for i, r := range rs {
				require.NoError(t, nc.AllReduce(r.send, r.recv, 16, backend.NCCLFloat32, backend.NCCLSum, comms[i], r.s))
			}
			require.NoError(t, nc.GroupEnd())
		}
		for i, r := range rs {
			require.NoError(t, b.CtxPushCurrent(r.ctx))
			require.NoError(t, b.StreamSynchronize(r.s))
			got := make([]float32, 16)
			require.NoError(t, b.MemcpyDtoH(ptr(&got[0]), r.recv, 64))
			assert.Equal(t, float32(2), got[0], "rank %d: the sum over both ranks", i)
			require.NoError(t, b.MemFree(r.send))
			require.NoError(t, b.MemFree(r.recv))
			require.NoError(t, b.StreamDestroy(r.s))
			_, err := b.CtxPopCurrent()
			require.NoError(t, err)
			require.NoError(t, b.DevicePrimaryCtxRelease(i))
		}
	}()

	on(1, func(t *testing.T) { // virtual memory
		prop := backend.MemAllocationProp{Type: backend.MemAllocationTypePinned,
			Location: backend.MemLocation{Type: backend.MemLocationDevice, ID: 1}}
		access := []backend.MemAccessDesc{{Location: prop.Location, Flags: backend.MemAccessReadWrite}}
		const size = vmm.Granularity
		for range rounds {
			va, err := b.MemAddressReserve(size, 0, 0, 0)
			require.NoError(t, err)
			h, err := b.MemCreate(size, prop, 0)
			require.NoError(t, err)
			require.NoError(t, b.MemMap(va, size, 0, h, 0))
			require.NoError(t, b.MemSetAccess(va, size, access))
			require.NoError(t, b.MemsetD8(va, 7, size))
			require.NoError(t, b.MemUnmap(va, size))
			require.NoError(t, b.MemRelease(h))
			require.NoError(t, b.MemAddressFree(va, size))
		}
	})

	on(0, func(t *testing.T) { // the NVRTC room
		nv, err := b.NVRTC()
		require.NoError(t, err)
		for range rounds {
			h, err := nv.CreateProgram(`extern "C" __global__ void k(int *p) {}`, "k.cu", nil, nil)
			require.NoError(t, err)
			require.NoError(t, nv.Compile(h, nil))
			ptx, err := nv.PTX(h)
			require.NoError(t, err)
			assert.Contains(t, string(ptx), ".entry k(")
			require.NoError(t, nv.DestroyProgram(h))
		}
	})

	on(1, func(t *testing.T) { // the pools room: stream-ordered reuse of a pool of device 1
		pool, err := b.MemPoolCreate(backend.MemPoolProps{AllocType: backend.MemAllocationTypePinned,
			Location: backend.MemLocation{Type: backend.MemLocationDevice, ID: 1}})
		require.NoError(t, err)
		s, err := b.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
		require.NoError(t, err)
		for range rounds {
			p, err := b.MemAllocFromPoolAsync(1<<20, pool, s)
			require.NoError(t, err)
			require.NoError(t, b.MemsetD8Async(p, 1, 1<<20, s))
			require.NoError(t, b.MemFreeAsync(p, s))
		}
		require.NoError(t, b.StreamSynchronize(s))
		used, err := b.MemPoolGetAttribute(pool, backend.MemPoolUsedMemHigh)
		require.NoError(t, err)
		assert.Equal(t, uint64(1<<20), used, "each allocation reused the bytes the one before it freed")
		require.NoError(t, b.StreamDestroy(s))
		require.NoError(t, b.MemPoolDestroy(pool))
	})

	on(1, func(t *testing.T) { // the race detector: two streams, one buffer
		p, err := b.MemAlloc(64)
		require.NoError(t, err)
		defer b.MemFree(p)
		var ss [2]uintptr
		for i := range ss {
			ss[i], err = b.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
			require.NoError(t, err)
			defer b.StreamDestroy(ss[i])
		}
		for i := range rounds {
			require.NoError(t, b.MemsetD8Async(p, byte(i), 64, ss[0]))
			require.NoError(t, b.MemsetD8Async(p, byte(i), 64, ss[1]))
			require.NoError(t, b.CtxSynchronize())
		}
	})

	wg.Wait()
	for _, c := range comms {
		require.NoError(t, nc.CommDestroy(c))
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Len(t, hazards, rounds, "one hazard per round of the unordered writes, and no other")
	for _, h := range hazards {
		assert.Equal(t, []string{"memset", "memset"}, []string{h.Current.Op, h.Previous.Op})
	}
	assert.Empty(t, b.Leaks())
}
