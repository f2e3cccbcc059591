package nccl

import (
	"encoding/binary"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// stubCore is a core as the room sees it: two devices, streams that hold the
// items queued on them, and device memory as byte slices. It has no lock
// the room's rendezvous could lean on.
type stubCore struct {
	mu       sync.Mutex // the stub's own state, as a real core's lock
	mem      map[uintptr][]byte
	devOf    map[uintptr]int
	streams  map[uintptr]*stream
	met      int      // Rendezvous calls
	accessed []string // what Accessed was told
}

type stream struct {
	dev int
	q   []*item
}

type item struct {
	s   *stream
	run func(Exec) error
}

func newCore() *stubCore {
	return &stubCore{mem: map[uintptr][]byte{}, devOf: map[uintptr]int{},
		streams: map[uintptr]*stream{0x10: {dev: 0}, 0x20: {dev: 1}}}
}

func (c *stubCore) Fault(string) error          { return nil }
func (c *stubCore) Ready() error                { return nil }
func (c *stubCore) CurrentDevice() (int, error) { return 0, nil }
func (c *stubCore) Devices() int                { return 2 }
func (c *stubCore) Stream(h uintptr) (Stream, int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.streams[h]; s != nil {
		return s, s.dev, nil
	}
	return nil, 0, driver.ErrInvalidHandle
}
func (c *stubCore) OnDevice(p, n uintptr, dev int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mem[p] != nil && c.devOf[p] == dev && n <= uintptr(len(c.mem[p]))
}
func (c *stubCore) Enqueue(ss []Stream, runs []func(Exec) error) ([]Item, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	its := make([]Item, len(ss))
	for i, s := range ss {
		it := &item{s: s.(*stream), run: runs[i]}
		it.s.q = append(it.s.q, it)
		its[i] = it
	}
	return its, nil
}
func (c *stubCore) Rendezvous([]Stream, []Item) { c.mu.Lock(); c.met++; c.mu.Unlock() }
func (c *stubCore) Backpressure(Stream)         {}
func (c *stubCore) Span(p, n uintptr) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mem[p][:n], nil
}
func (c *stubCore) Accessed(_ Item, what string, acc []Access) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for range acc {
		c.accessed = append(c.accessed, what)
	}
}

// alloc makes 4 float32 of device dev holding v.
func (c *stubCore) alloc(p uintptr, dev int, v float32) {
	c.mem[p], c.devOf[p] = make([]byte, 16), dev
	for i := range 4 {
		binary.LittleEndian.PutUint32(c.mem[p][4*i:], math.Float32bits(v))
	}
}

func (c *stubCore) at(p uintptr) float32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return math.Float32frombits(binary.LittleEndian.Uint32(c.mem[p]))
}

// head takes the first item queued on stream h.
func (c *stubCore) head(h uintptr) *item {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.streams[h]
	it := s.q[0]
	s.q = s.q[1:]
	return it
}

// exec runs items with no execution lock to let go and no peer stream
// behind.
type exec struct{}

func (exec) Unlocked(fn func())          { fn() }
func (exec) RunBefore(Stream, Item) bool { return false }

// The room on its own: an all-reduce is an item on each rank's stream; the
// race detector hears of the rendezvous once both are queued and of each
// rank's accesses; the first item to run computes for both, the other
// finds it done.
func TestRoomOverItsCore(t *testing.T) {
	c := newCore()
	c.alloc(0x1000, 0, 1)
	c.alloc(0x2000, 1, 2)
	r := New(c)
	hs, err := r.CommInitAll([]int{0, 1})
	require.NoError(t, err)
	require.NoError(t, r.AllReduce(0x1000, 0x1000, 4, backend.NCCLFloat32, backend.NCCLSum, hs[0], 0x10))
	assert.Zero(t, c.met, "one rank queued: no rendezvous yet")
	require.NoError(t, r.AllReduce(0x2000, 0x2000, 4, backend.NCCLFloat32, backend.NCCLSum, hs[1], 0x20))
	assert.Equal(t, 1, c.met, "both queued: they meet")
	assert.ErrorIs(t, r.AllReduce(0x2000, 0x2000, 4, backend.NCCLFloat32, backend.NCCLSum, hs[1], 0x10), backend.NCCLInvalidArgument,
		"a stream of another device")
	require.NoError(t, c.head(0x20).run(exec{}))
	assert.Equal(t, float32(3), c.at(0x1000))
	assert.Equal(t, float32(3), c.at(0x2000))
	assert.Equal(t, []string{"ncclAllReduce", "ncclAllReduce", "ncclAllReduce", "ncclAllReduce"}, c.accessed, "each rank's read and write")
	require.NoError(t, c.head(0x10).run(exec{}), "computed already")
	assert.Equal(t, float32(3), c.at(0x1000), "once")
	for _, h := range hs {
		require.NoError(t, r.CommDestroy(h))
	}
}

// A rank's item that runs before its peer queued its part waits on the
// room's own condition variable (the core's stub has no lock held while it
// waits), until the peer queues, or until its own communicator is
// aborted: then it ends with nothing computed.
func TestRoomRendezvous(t *testing.T) {
	c := newCore()
	c.alloc(0x1000, 0, 1)
	c.alloc(0x2000, 1, 2)
	r := New(c)
	hs, err := r.CommInitAll([]int{0, 1})
	require.NoError(t, err)

	waits := func(it *item) chan error {
		done := make(chan error, 1)
		go func() { done <- it.run(exec{}) }()
		select {
		case err := <-done:
			t.Fatalf("the item did not wait for its peer: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
		return done
	}

	require.NoError(t, r.AllReduce(0x1000, 0x1000, 4, backend.NCCLFloat32, backend.NCCLSum, hs[0], 0x10))
	done := waits(c.head(0x10))
	require.NoError(t, r.AllReduce(0x2000, 0x2000, 4, backend.NCCLFloat32, backend.NCCLSum, hs[1], 0x20))
	require.NoError(t, <-done, "its peer queued: it computes")
	assert.Equal(t, float32(3), c.at(0x2000))
	require.NoError(t, c.head(0x20).run(exec{}))

	require.NoError(t, r.AllReduce(0x1000, 0x1000, 4, backend.NCCLFloat32, backend.NCCLSum, hs[0], 0x10))
	done = waits(c.head(0x10))
	require.NoError(t, r.CommAbort(hs[0]))
	require.NoError(t, <-done, "its communicator aborted: it ends")
	assert.Equal(t, float32(3), c.at(0x1000), "nothing computed")
	require.NoError(t, r.CommDestroy(hs[1]))
}
