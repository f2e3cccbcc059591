package fake

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
)

// The detector's lock is a leaf and it calls the core only with it
// released: goroutines racing on one buffer from their own streams, a
// report function that reads the hazards and declares orders, and a
// goroutine taking the hazards and naming streams, all at once, finish
// (and are clean under -race).
func TestRaceDetectorConcurrentUse(t *testing.T) {
	var b *fakeBackend
	var reports sync.WaitGroup
	var found atomic.Int64
	b = bound(t, DetectRaces(func(Hazard) {
		found.Add(1)
		_ = b.Fake().Hazards()
		_ = b.Fake().DeclareOrder(HostOrder, HostOrder)
	}))
	ctx, err := b.CtxGetCurrent()
	require.NoError(t, err)
	p := alloc4K(t, b)
	require.NoError(t, b.MemsetD8(p, 0, 4096))
	const workers, rounds = 4, 20
	var wg, enqueued sync.WaitGroup
	enqueued.Add(workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			arrive := sync.OnceFunc(enqueued.Done)
			defer arrive() // also on an early return: the others do not wait for good
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			if !assert.NoError(t, b.CtxPushCurrent(ctx)) {
				return
			}
			defer b.CtxPopCurrent()
			s, err := b.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
			if !assert.NoError(t, err) {
				return
			}
			defer b.StreamDestroy(s)
			assert.NoError(t, b.NameStream(s, "worker"))
			host := make([]byte, 64)
			// Before anyone synchronizes: worker w writes block w and reads
			// block w+1, which worker w+1 writes, unordered.
			assert.NoError(t, b.MemsetD8Async(p+uintptr(w*64), 1, 64, s))
			assert.NoError(t, b.MemcpyDtoHAsync(unsafe.Pointer(&host[0]), p+uintptr((w+1)%workers*64), 64, s))
			arrive()
			enqueued.Wait()
			for r := range rounds {
				off := uintptr((w*rounds + r) % 64 * 64)
				assert.NoError(t, b.MemsetD8Async(p+off, byte(r), 64, s))
				assert.NoError(t, b.MemcpyDtoHAsync(unsafe.Pointer(&host[0]), p, 64, s))
				if r%5 == 0 {
					assert.NoError(t, b.StreamSynchronize(s))
				}
			}
			assert.NoError(t, b.StreamSynchronize(s))
		}()
	}
	done := make(chan struct{})
	reports.Add(1)
	go func() {
		defer reports.Done()
		for {
			select {
			case <-done:
				return
			default:
				_ = b.Fake().TakeHazards()
				runtime.Gosched()
			}
		}
	}()
	wg.Wait()
	close(done)
	reports.Wait()
	require.NoError(t, b.CtxSynchronize())
	assert.NotZero(t, found.Load(), "the workers race on each other's blocks")
}
