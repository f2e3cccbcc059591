package nccl_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/nccl"
	"github.com/nocgo/cuda/stream"
)

// slowCollectives is the fake with a NCCL whose collectives queue nothing
// (as countingAPI's) but take a while, and a record of the memory freed and
// streams destroyed: a collective given one of those is a use after free,
// which on a GPU has NCCL write freed memory or queue on a dead stream.
type slowCollectives struct {
	fake.Backend
	n *slowNCCL
}

type slowNCCL struct {
	backend.NCCL
	mu   sync.Mutex
	gone map[uintptr]bool // freed memory and destroyed streams
	uses []string         // use-after-free calls seen
}

func (a *slowCollectives) NCCL() (backend.NCCL, error) { return a.n, nil }

func (a *slowCollectives) MemFree(p uintptr) error {
	err := a.Backend.MemFree(p)
	if err == nil {
		a.n.forget(p)
	}
	return err
}

func (a *slowCollectives) MemAlloc(n uintptr) (uintptr, error) {
	p, err := a.Backend.MemAlloc(n)
	if err == nil {
		a.n.made(p) // the fake may hand out an address again
	}
	return p, err
}

func (a *slowCollectives) StreamCreateWithPriority(flags uint32, prio int) (uintptr, error) {
	s, err := a.Backend.StreamCreateWithPriority(flags, prio)
	if err == nil {
		a.n.made(s)
	}
	return s, err
}

func (a *slowCollectives) StreamDestroy(s uintptr) error {
	err := a.Backend.StreamDestroy(s)
	if err == nil {
		a.n.forget(s)
	}
	return err
}

func (n *slowNCCL) made(h uintptr) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.gone, h)
}

func (n *slowNCCL) forget(h uintptr) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.gone[h] = true
}

func (n *slowNCCL) AllReduce(send, recv, _ uintptr, _ backend.NCCLDataType, _ backend.NCCLRedOp, _, s uintptr) error {
	time.Sleep(200 * time.Microsecond) // a Close racing the call runs meanwhile
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, h := range []uintptr{send, recv, s} {
		if n.gone[h] {
			n.uses = append(n.uses, "ncclAllReduce")
		}
	}
	return nil
}

// A Close of the stream or of a buffer racing a collective waits for it:
// NCCL never gets a destroyed stream or freed memory, and the collective
// either works or fails with driver.ErrClosed.
func TestCloseRacingCollectives(t *testing.T) {
	be := fake.NewBackend(fake.Devices(1))
	real, err := be.NCCL()
	require.NoError(t, err)
	api := &slowCollectives{Backend: be, n: &slowNCCL{NCCL: real, gone: map[uintptr]bool{}}}
	drv, err := driver.New(api)
	require.NoError(t, err)
	ctx := primary(t, drv, 0)
	comms, err := nccl.NewComms([]*driver.Context{ctx})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, comms[0].Close()) })

	for range 10 {
		s, err := stream.New(ctx, stream.Options{})
		require.NoError(t, err)
		send, err := memory.Alloc[float32](ctx, 256)
		require.NoError(t, err)
		recv, err := memory.Alloc[float32](ctx, 256)
		require.NoError(t, err)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range 4 {
			wg.Go(func() {
				<-start
				if err := nccl.AllReduce(comms[0], s, send, recv, nccl.Sum); err != nil {
					assert.ErrorIs(t, err, driver.ErrClosed, "AllReduce racing Close")
				}
			})
		}
		wg.Go(func() {
			<-start
			time.Sleep(50 * time.Microsecond)
			assert.NoError(t, send.Close())
			assert.NoError(t, recv.Close())
			assert.NoError(t, s.Close())
		})
		close(start)
		wg.Wait()
	}
	api.n.mu.Lock()
	defer api.n.mu.Unlock()
	assert.Empty(t, api.n.uses, "collectives given freed memory or destroyed streams")
}
