package fake

import (
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/vmm"
)

// TestRoomsConcurrently uses the fake's parts at once, each from its own
// goroutine and OS thread: a stream capture forked over two streams with
// its graph's launches, and the replays of an exec updated between them
// (the graphs room); NCCL (a room): an all-reduce over two devices issued
// from one thread, and three ranks on threads of their own meeting at
// all-reduces and a ring of transfers; virtual memory mapped and unmapped
// (a room), programs compiled by the pretend NVRTC (a room), pool memory
// allocated and freed in stream order (a room), and the race detector
// reporting the unordered writes of two streams. Under -race it
// checks the lock rule between the core and its rooms (fake's package doc):
// a lock taken up the ladder deadlocks here or is a data race Go reports.
func TestRoomsConcurrently(t *testing.T) {
	const rounds = 8
	const ranks = 3 // NCCL's ranks across threads, one per device
	var mu sync.Mutex
	var hazards []Hazard
	b := newBackend(Devices(ranks), PretendNVRTC(), Kernel("k", func(t Thread, p Ptr) {}),
		DetectRaces(func(h Hazard) { mu.Lock(); hazards = append(hazards, h); mu.Unlock() }))
	require.NoError(t, b.Init(0))
	nc, err := b.NCCL()
	require.NoError(t, err)
	comms, err := nc.CommInitAll([]int{0, 1})
	require.NoError(t, err)

	// goroutine runs f on a goroutine of its own and OS thread locked; a
	// failed must there ends f and fails the test (FailNow may not be
	// called off the test's goroutine).
	var wg sync.WaitGroup
	goroutine := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if e := recover(); e != nil {
					f, ok := e.(failed)
					if !ok {
						panic(e)
					}
					t.Errorf("%v", f.err)
				}
			}()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			f()
		}()
	}
	// on is goroutine, with dev's primary context current.
	on := func(dev int, f func(t *testing.T)) {
		goroutine(func() {
			ctx, err := b.DevicePrimaryCtxRetain(dev)
			must(err)
			defer b.DevicePrimaryCtxRelease(dev)
			must(b.CtxPushCurrent(ctx))
			defer b.CtxPopCurrent()
			f(t)
		})
	}

	on(0, func(t *testing.T) { // the graphs room: a capture forked over two streams
		var ss [2]uintptr
		var bufs [2]uintptr
		var evs [2]uintptr
		for i := range ss {
			var err error
			ss[i], err = b.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
			must(err)
			defer b.StreamDestroy(ss[i])
			bufs[i], err = b.MemAlloc(256)
			must(err)
			defer b.MemFree(bufs[i])
			evs[i], err = b.EventCreate(0)
			must(err)
			defer b.EventDestroy(evs[i])
		}
		for i := range rounds {
			hosts := 0
			must(b.StreamBeginCapture(ss[0], backend.CaptureModeThreadLocal))
			must(b.MemsetD8Async(bufs[0], byte(i), 256, ss[0]))
			must(b.EventRecord(evs[0], ss[0])) // fork
			must(b.StreamWaitEvent(ss[1], evs[0], 0))
			must(b.MemsetD8Async(bufs[1], byte(i+1), 256, ss[1]))
			must(b.EventRecord(evs[1], ss[1])) // join
			must(b.StreamWaitEvent(ss[0], evs[1], 0))
			must(b.LaunchHostFunc(ss[0], func() { hosts++ }))
			g, err := b.StreamEndCapture(ss[0])
			must(err)
			n, err := b.GraphNodeCount(g)
			must(err)
			assert.Equal(t, 3, n, "two memsets and the host function")
			e, err := b.GraphInstantiate(g, 0)
			must(err)
			must(b.GraphLaunch(e, ss[0]))
			must(b.GraphLaunch(e, ss[0]))
			must(b.StreamSynchronize(ss[0]))
			assert.Equal(t, 2, hosts, "the host node ran once per launch")
			var got [2]byte
			for k := range bufs {
				must(b.MemcpyDtoH(ptr(&got[k]), bufs[k]+255, 1))
			}
			assert.Equal(t, [2]byte{byte(i), byte(i + 1)}, got, "both branches of the fork ran")
			must(b.GraphExecDestroy(e))
			must(b.GraphDestroy(g))
		}
	})

	on(0, func(t *testing.T) { // the graphs room: replays of one exec, updated between them
		s, err := b.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
		must(err)
		defer b.StreamDestroy(s)
		ctx, err := b.CtxGetCurrent()
		must(err)
		src, err := b.MemAlloc(64)
		must(err)
		defer b.MemFree(src)
		dst, err := b.MemAlloc(64)
		must(err)
		defer b.MemFree(dst)
		g, err := b.GraphCreate(0)
		must(err)
		set := backend.MemsetNodeParams{Dst: src, ElementSize: 1, Width: 64, Height: 1}
		ms, err := b.GraphAddMemsetNode(g, nil, &set, ctx)
		must(err)
		cp, err := b.GraphAddMemcpyNode(g, []uintptr{ms}, &backend.MemcpyNodeParams{Dst: dst, Src: src, Size: 64}, ctx)
		must(err)
		var runs int
		_, err = b.GraphAddHostNode(g, []uintptr{cp}, func() { runs++ })
		must(err)
		gone := make(chan struct{})
		o, err := b.UserObjectCreate(func() { close(gone) })
		must(err)
		must(b.GraphRetainUserObject(g, o, 1, backend.GraphUserObjectMove))
		x, err := b.GraphInstantiate(g, 0)
		must(err)
		must(b.GraphDestroy(g)) // the exec keeps the user object
		for i := range rounds {
			set.Value = uint32(10 + i)
			must(b.GraphExecMemsetNodeSetParams(x, ms, &set, ctx))
			must(b.GraphLaunch(x, s))
			must(b.StreamSynchronize(s))
			var got byte
			must(b.MemcpyDtoH(ptr(&got), dst+63, 1))
			assert.Equal(t, byte(10+i), got, "the replay copied the updated memset's bytes")
			assert.Equal(t, i+1, runs)
		}
		must(b.GraphExecDestroy(x))
		select {
		case <-gone:
		case <-time.After(10 * time.Second):
			t.Errorf("the user object's destructor never ran")
		}
	})

	// NCCL: both ranks' all-reduces issued from one thread in a group.
	goroutine(func() {
		type rank struct{ ctx, s, send, recv uintptr }
		var rs [2]rank
		for i := range rs {
			ctx, err := b.DevicePrimaryCtxRetain(i)
			must(err)
			must(b.CtxPushCurrent(ctx))
			r := &rs[i]
			r.ctx = ctx
			r.s, err = b.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
			must(err)
			r.send, err = b.MemAlloc(64)
			must(err)
			r.recv, err = b.MemAlloc(64)
			must(err)
			must(b.MemsetD32(r.send, math.Float32bits(1), 16))
			_, err = b.CtxPopCurrent()
			must(err)
		}
		for range rounds {
			must(nc.GroupStart())
			for i, r := range rs {
				must(nc.AllReduce(r.send, r.recv, 16, backend.NCCLFloat32, backend.NCCLSum, comms[i], r.s))
			}
			must(nc.GroupEnd())
		}
		for i, r := range rs {
			must(b.CtxPushCurrent(r.ctx))
			must(b.StreamSynchronize(r.s))
			got := make([]float32, 16)
			must(b.MemcpyDtoH(ptr(&got[0]), r.recv, 64))
			assert.Equal(t, float32(2), got[0], "rank %d: the sum over both ranks", i)
			must(b.MemFree(r.send))
			must(b.MemFree(r.recv))
			must(b.StreamDestroy(r.s))
			_, err := b.CtxPopCurrent()
			must(err)
			must(b.DevicePrimaryCtxRelease(i))
		}
	})

	// NCCL across threads: three ranks, each on an OS thread of its own,
	// meet by unique id and, each round, all-reduce in place and pass a
	// buffer around the ring in a group, each synchronizing only its own
	// stream: a rank's item waits for its peers on the NCCL room's
	// condition variable, the execution lock let go, while the others run.
	id, err := nc.GetUniqueID()
	require.NoError(t, err)
	for rank := range ranks {
		on(rank, func(t *testing.T) {
			var h uintptr
			must(nc.CommInitRank(ranks, id, rank, nil, &h))
			s, err := b.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
			must(err)
			p, err := b.MemAlloc(64)
			must(err)
			q, err := b.MemAlloc(64)
			must(err)
			got := make([]float32, 16)
			for i := range rounds {
				must(b.MemsetD32(p, math.Float32bits(float32(rank+i)), 16))
				must(nc.AllReduce(p, p, 16, backend.NCCLFloat32, backend.NCCLSum, h, s))
				must(nc.GroupStart())
				must(nc.Send(p, 16, backend.NCCLFloat32, (rank+1)%ranks, h, s))
				must(nc.Recv(q, 16, backend.NCCLFloat32, (rank+ranks-1)%ranks, h, s))
				must(nc.GroupEnd())
				must(b.StreamSynchronize(s))
				must(b.MemcpyDtoH(ptr(&got[0]), q, 64))
				assert.Equal(t, float32(ranks*i+ranks*(ranks-1)/2), got[15], "rank %d, round %d: the sum, from the previous rank", rank, i)
			}
			must(b.MemFree(p))
			must(b.MemFree(q))
			must(b.StreamDestroy(s))
			must(nc.CommDestroy(h))
		})
	}

	on(1, func(t *testing.T) { // virtual memory
		prop := backend.MemAllocationProp{Type: backend.MemAllocationTypePinned,
			Location: backend.MemLocation{Type: backend.MemLocationDevice, ID: 1}}
		access := []backend.MemAccessDesc{{Location: prop.Location, Flags: backend.MemAccessReadWrite}}
		const size = vmm.Granularity
		for range rounds {
			va, err := b.MemAddressReserve(size, 0, 0, 0)
			must(err)
			h, err := b.MemCreate(size, prop, 0)
			must(err)
			must(b.MemMap(va, size, 0, h, 0))
			must(b.MemSetAccess(va, size, access))
			must(b.MemsetD8(va, 7, size))
			must(b.MemUnmap(va, size))
			must(b.MemRelease(h))
			must(b.MemAddressFree(va, size))
		}
	})

	on(0, func(t *testing.T) { // the NVRTC room
		nv, err := b.NVRTC()
		must(err)
		for range rounds {
			h, err := nv.CreateProgram(`extern "C" __global__ void k(int *p) {}`, "k.cu", nil, nil)
			must(err)
			must(nv.Compile(h, nil))
			ptx, err := nv.PTX(h)
			must(err)
			assert.Contains(t, string(ptx), ".entry k(")
			must(nv.DestroyProgram(h))
		}
	})

	on(1, func(t *testing.T) { // the pools room: stream-ordered reuse of a pool of device 1
		pool, err := b.MemPoolCreate(backend.MemPoolProps{AllocType: backend.MemAllocationTypePinned,
			Location: backend.MemLocation{Type: backend.MemLocationDevice, ID: 1}})
		must(err)
		s, err := b.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
		must(err)
		for range rounds {
			p, err := b.MemAllocFromPoolAsync(1<<20, pool, s)
			must(err)
			must(b.MemsetD8Async(p, 1, 1<<20, s))
			must(b.MemFreeAsync(p, s))
		}
		must(b.StreamSynchronize(s))
		used, err := b.MemPoolGetAttribute(pool, backend.MemPoolUsedMemHigh)
		must(err)
		assert.Equal(t, uint64(1<<20), used, "each allocation reused the bytes the one before it freed")
		must(b.StreamDestroy(s))
		must(b.MemPoolDestroy(pool))
	})

	on(1, func(t *testing.T) { // the race detector: two streams, one buffer
		p, err := b.MemAlloc(64)
		must(err)
		defer b.MemFree(p)
		var ss [2]uintptr
		for i := range ss {
			ss[i], err = b.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
			must(err)
			defer b.StreamDestroy(ss[i])
		}
		for i := range rounds {
			must(b.MemsetD8Async(p, byte(i), 64, ss[0]))
			must(b.MemsetD8Async(p, byte(i), 64, ss[1]))
			must(b.CtxSynchronize())
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

// failed is what must panics with: an error that ends a goroutine of
// TestRoomsConcurrently.
type failed struct{ err error }

// must ends the calling goroutine of TestRoomsConcurrently when err is
// not nil; its goroutine reports it.
func must(err error) {
	if err != nil {
		panic(failed{fmt.Errorf("%w (at %s)", err, caller())})
	}
}

// caller names the test line that called must.
func caller() string {
	_, file, line, _ := runtime.Caller(2)
	return fmt.Sprintf("%s:%d", filepath.Base(file), line)
}
