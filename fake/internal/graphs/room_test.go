package graphs

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// leafCore is a Core of one context and one stream that fails the test
// when the room calls it holding the room's lock (NewHandle aside), and
// calls the room's functions as the core does, "its lock" held.
type leafCore struct {
	t       *testing.T
	r       *Room
	next    uintptr
	slot    Slot
	queued  []*Launch
	drained atomic.Int32
}

const leafCtx = 0x100

func (c *leafCore) free(what string) {
	c.t.Helper()
	if !c.r.mu.TryLock() {
		c.t.Errorf("Core.%s called with the room's lock held", what)
		return
	}
	c.r.mu.Unlock()
}

func (c *leafCore) Enter(string) error                 { c.free("Enter"); return nil }
func (c *leafCore) EnterTeardown(string) (error, bool) { c.free("EnterTeardown"); return nil, true }
func (c *leafCore) NewHandle() uintptr                 { c.next += 0x40; return c.next }
func (c *leafCore) Event(uintptr) (Event, error)       { c.free("Event"); return "event", nil }
func (c *leafCore) GraphMem(int32, uintptr) (Mem, error) {
	c.free("GraphMem")
	return nil, driver.ErrNotSupported
}

// Drain is called on the goroutine a user object's destructor runs on,
// which the room starts holding its lock: a TryLock there would see the
// lock of the goroutine that started it, so Drain only counts its calls.
func (c *leafCore) Drain(uintptr) { c.drained.Add(1) }

func (c *leafCore) Context(h uintptr) (uintptr, error) {
	c.free("Context")
	if h != 0 && h != leafCtx {
		return 0, driver.ErrInvalidContext
	}
	return leafCtx, nil
}

func (c *leafCore) work(what string) func() error {
	c.free(what)
	return func() error { return nil }
}

func (c *leafCore) KernelWork(*backend.KernelNodeParams, uintptr) (func() error, error) {
	return c.work("KernelWork"), nil
}
func (c *leafCore) MemcpyWork(*backend.MemcpyNodeParams, uintptr) (func() error, error) {
	return c.work("MemcpyWork"), nil
}
func (c *leafCore) MemsetWork(*backend.MemsetNodeParams, uintptr) (func() error, error) {
	return c.work("MemsetWork"), nil
}

func (c *leafCore) stream() Stream { return Stream{Slot: &c.slot, Ctx: leafCtx} }

func (c *leafCore) WithStream(_ uintptr, f func(Stream) error) error {
	c.free("WithStream")
	return f(c.stream())
}

func (c *leafCore) Launch(_ uintptr, plan func(Stream) (*Launch, error)) error {
	c.free("Launch")
	l, err := plan(c.stream())
	if l != nil {
		c.queued = append(c.queued, l)
	}
	return err
}

func (c *leafCore) Upload(_ uintptr, check func(Stream) error) error {
	c.free("Upload")
	if err := check(c.stream()); err != nil {
		return err
	}
	_, err := c.r.CaptureRecord(&c.slot, func() error { return nil }, nil)
	return err
}

// The room calls its Core holding no lock of its own, through every kind
// of entry point: a node made with the core's work, an event node, an
// instantiation, an update, a capture with a launch into it, a replay and
// a user object's release.
func TestRoomCallsCoreUnlocked(t *testing.T) {
	c := &leafCore{t: t}
	r := New(c)
	c.r = r
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	g, err := r.GraphCreate(0)
	must(err)
	k, err := r.GraphAddKernelNode(g, nil, &backend.KernelNodeParams{})
	must(err)
	ms, err := r.GraphAddMemsetNode(g, []uintptr{k}, &backend.MemsetNodeParams{}, leafCtx)
	must(err)
	_, err = r.GraphAddEventRecordNode(g, []uintptr{ms}, 1)
	must(err)
	_, err = r.GraphAddEventWaitNode(g, []uintptr{ms}, 1)
	must(err)
	ran := 0
	_, err = r.GraphAddHostNode(g, []uintptr{ms}, func() { ran++ })
	must(err)
	_, err = r.GraphConditionalHandleCreate(g, 0, 1, 0)
	must(err)
	destroyed := make(chan struct{})
	o, err := r.UserObjectCreate(func() { close(destroyed) })
	must(err)
	must(r.GraphRetainUserObject(g, o, 1, backend.GraphUserObjectMove))
	x, err := r.GraphInstantiate(g, 0)
	must(err)
	must(r.GraphExecMemsetNodeSetParams(x, ms, &backend.MemsetNodeParams{}, leafCtx))
	must(r.GraphExecKernelNodeSetParams(x, k, &backend.KernelNodeParams{}))
	must(r.GraphUpload(x, 7))
	must(r.GraphLaunch(x, 7))
	if len(c.queued) != 1 {
		t.Fatalf("%d launches queued, want 1", len(c.queued))
	}
	l := c.queued[0]
	if len(l.Waits) != 1 || len(l.Records) != 1 {
		t.Errorf("launch with %d waits and %d records, want 1 and 1", len(l.Waits), len(l.Records))
	}
	if l.Order() == nil {
		t.Error("no order for the race detector")
	}
	must(l.Run(nil, nil))
	if ran != 1 {
		t.Errorf("host node ran %d times, want 1", ran)
	}

	must(r.StreamBeginCapture(7, backend.CaptureModeRelaxed))
	must(r.GraphLaunch(x, 7)) // captured as one node
	if len(c.queued) != 1 {
		t.Error("a launch into a capturing stream was queued")
	}
	if _, _, err := r.GraphAddMemAllocNode(g, nil, backend.MemPoolProps{AllocType: backend.MemAllocationTypePinned,
		Location: backend.MemLocation{Type: backend.MemLocationDevice}}, 64); !errors.Is(err, driver.ErrNotSupported) {
		t.Errorf("alloc node: %v, want the core's error", err)
	}
	cg, err := r.StreamEndCapture(7)
	must(err)
	if n, _ := r.GraphNodeCount(cg); n != 1 {
		t.Errorf("captured graph of %d nodes, want 1", n)
	}
	must(r.GraphDestroy(cg))
	must(r.GraphDestroy(g))
	must(r.GraphExecDestroy(x)) // the last reference: Drain, then the destructor
	select {
	case <-destroyed:
	case <-time.After(10 * time.Second):
		t.Fatal("the user object's destructor did not run")
	}
	if n := c.drained.Load(); n != 1 {
		t.Errorf("Drain called %d times before the destructor, want 1", n)
	}
	if gs, xs := r.GraphLeaks(); len(gs)+len(xs) != 0 {
		t.Errorf("leaks %v %v", gs, xs)
	}
}
