package conformance

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/nccl"
	"github.com/nocgo/cuda/stream"
)

// RunNCCL runs the cases of NCCL's contract on drv: communicators of one
// rank, non-blocking inits (which return at once and can be aborted while
// their peers never come), Abort ending a collective that waits for a peer,
// waits with deadlines on streams, events and contexts holding such a
// collective, and a Split refused on one rank failing its Group instead of
// hanging it. Cases that need two devices skip where there is one; the
// others run on one GPU. Without NCCL (nccl.Version fails) it skips.
//
// It is not part of [Run]: on a GPU, NCCL's runtime holds the devices'
// primary contexts for the rest of the process, and Run's faults group
// poisons the process, so the two run in processes of their own (the fake
// runs both in one). Package nccl's tests run it on the fake and on the
// GPU.
func RunNCCL(t *testing.T, drv *driver.Driver) {
	if _, _, _, err := nccl.Version(ncclContext(t, drv, 0)); err != nil {
		t.Skipf("no NCCL: %v", err)
	}
	for _, c := range []struct {
		name string
		run  func(t *testing.T, drv *driver.Driver)
	}{
		{"one-rank", testNCCLOneRank},
		{"nonblocking-one-rank", testNCCLNonBlockingOneRank},
		{"nonblocking-split-one-rank", testNCCLNonBlockingSplitOneRank},
		{"nonblocking-init-abort", testNCCLNonBlockingInitAbort},
		{"split-refused-one-rank", testNCCLSplitRefusedOneRank},
		{"nonblocking-init-two", testNCCLNonBlockingInitTwo},
		{"abort-ends-collective", testNCCLAbortEndsCollective},
		{"split-refused-group", testNCCLSplitRefusedGroup},
		{"split-peer-aborted", testNCCLSplitPeerAborted},
	} {
		t.Run(c.name, func(t *testing.T) { c.run(t, drv) })
	}
}

// ncclPatience bounds every call the contract says returns: a call still
// running after it is reported as a hang.
const ncclPatience = time.Minute

// ncclContext retains device i's primary context (NCCL works in it) for the
// test.
func ncclContext(t *testing.T, drv *driver.Driver, i int) *driver.Context {
	t.Helper()
	return streamContext(t, drv, i)
}

// ncclDevices skips the test unless drv has n devices.
func ncclDevices(t *testing.T, drv *driver.Driver, n int) {
	t.Helper()
	count, err := drv.DeviceCount()
	must(t, err)
	if count < n {
		t.Skipf("needs %d devices, have %d", n, count)
	}
}

// within runs fn on a goroutine of its own and returns its error, failing
// the test at once if fn has not returned after d: the call hangs. A hung fn
// is left running (it must not use t: the test fails anyway, and may have
// ended by the time fn returns).
func within(t *testing.T, d time.Duration, what string, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("%s did not return within %v: it hangs", what, d)
		return nil
	}
}

// ncclUpload makes a buffer in ctx holding v, freed at the end of the test.
func ncclUpload[T any](t *testing.T, ctx *driver.Context, v []T) *memory.Buffer[T] {
	t.Helper()
	b, err := memory.Alloc[T](ctx, len(v))
	must(t, err)
	t.Cleanup(func() { must(t, b.Close()) })
	must(t, memory.CopyToDevice(b, v))
	return b
}

func ncclDownload[T any](t *testing.T, b *memory.Buffer[T]) []T {
	t.Helper()
	out := make([]T, b.Len())
	must(t, memory.CopyToHost(out, b))
	return out
}

// newNCCLComm is NewComm for a test: the communicator is aborted at the
// end unless the test closed it.
func newNCCLComm(t *testing.T, ctx *driver.Context, nranks int, id nccl.UniqueID, rank int, cfg *nccl.Config) *nccl.Comm {
	t.Helper()
	c, err := nccl.NewComm(ctx, nranks, id, rank, cfg)
	must(t, err, "NewComm rank %d of %d", rank, nranks)
	t.Cleanup(func() { must(t, c.Abort()) })
	return c
}

// waitNCCL is Comm.Wait with ncclPatience as its deadline.
func waitNCCL(t *testing.T, c *nccl.Comm) {
	t.Helper()
	must(t, c.Wait(timeout(t, ncclPatience)), "%s is made", c)
}

// testNCCLOneRank: a communicator of one rank is complete at once, and its
// collectives reduce to their own input.
func testNCCLOneRank(t *testing.T, drv *driver.Driver) {
	ctx := ncclContext(t, drv, 0)
	s := newStream(t, ctx)
	id, err := nccl.NewUniqueID(ctx)
	must(t, err)
	c := newNCCLComm(t, ctx, 1, id, 0, nil)
	equal(t, c.Rank(), 0)
	equal(t, c.Count(), 1)
	must(t, c.AsyncError(), "a blocking communicator is ready once made")
	must(t, c.Wait(timeout(t, time.Second)), "Wait on a ready communicator returns at once")
	b := ncclUpload(t, ctx, []float32{1, 2, -3})
	out := ncclUpload(t, ctx, make([]float32, 3))
	must(t, nccl.AllReduce(c, s, b, out, nccl.Sum))
	must(t, nccl.Broadcast(c, s, b, b, 0))
	must(t, s.Synchronize())
	equal(t, ncclDownload(t, out), []float32{1, 2, -3}, "one rank's sum is its input")
	equal(t, ncclDownload(t, b), []float32{1, 2, -3})
	must(t, c.Close())
	must(t, c.Close(), "Close twice")
	errorIs(t, c.Wait(timeout(t, time.Second)), driver.ErrClosed)

	comms, err := nccl.NewComms([]*driver.Context{ctx})
	must(t, err)
	mustLen(t, comms, 1)
	must(t, nccl.AllReduce(comms[0], s, b, out, nccl.Max))
	must(t, s.Synchronize())
	equal(t, ncclDownload(t, out), []float32{1, 2, -3})
	must(t, comms[0].Close())
}

// testNCCLNonBlockingOneRank: a non-blocking communicator of one rank is
// made meanwhile; Wait sees it done, and its collectives work.
func testNCCLNonBlockingOneRank(t *testing.T, drv *driver.Driver) {
	ctx := ncclContext(t, drv, 0)
	s := newStream(t, ctx)
	id, err := nccl.NewUniqueID(ctx)
	must(t, err)
	c := newNCCLComm(t, ctx, 1, id, 0, &nccl.Config{NonBlocking: true})
	waitNCCL(t, c)
	must(t, c.AsyncError(), "ready after Wait")
	b := ncclUpload(t, ctx, []int32{4, -5})
	must(t, nccl.AllReduce(c, s, b, b, nccl.Sum))
	must(t, s.Synchronize())
	equal(t, ncclDownload(t, b), []int32{4, -5})
	must(t, c.Close())
}

// testNCCLNonBlockingSplitOneRank: a communicator split from a non-blocking
// one inherits its configuration; Split returns it made.
func testNCCLNonBlockingSplitOneRank(t *testing.T, drv *driver.Driver) {
	ctx := ncclContext(t, drv, 0)
	s := newStream(t, ctx)
	id, err := nccl.NewUniqueID(ctx)
	must(t, err)
	c := newNCCLComm(t, ctx, 1, id, 0, &nccl.Config{NonBlocking: true})
	child, err := c.Split(3, 0, nil)
	must(t, err, "Split waits for its parent, then for the split")
	mustTrue(t, child != nil)
	t.Cleanup(func() { must(t, child.Abort()) })
	equal(t, child.Rank(), 0)
	equal(t, child.Count(), 1)
	waitNCCL(t, child)
	b := ncclUpload(t, ctx, []float64{0.5})
	must(t, nccl.AllReduce(child, s, b, b, nccl.Avg))
	must(t, s.Synchronize())
	equal(t, ncclDownload(t, b), []float64{0.5})
	must(t, child.Close())
	must(t, c.Close())
}

// testNCCLNonBlockingInitAbort: rank 0 of 2 whose peer never comes. The
// non-blocking NewComm returns at once, the communicator stays in progress
// (a Wait with a deadline returns at it), and Abort ends it, together with
// the Wait and the collective waiting for it on other goroutines. It needs
// one device: rank 1 never joins.
func testNCCLNonBlockingInitAbort(t *testing.T, drv *driver.Driver) {
	ctx := ncclContext(t, drv, 0)
	s := newStream(t, ctx)
	b := ncclUpload(t, ctx, []float32{1})
	id, err := nccl.NewUniqueID(ctx)
	must(t, err)
	var c *nccl.Comm
	must(t, within(t, ncclPatience, "a non-blocking NewComm whose peer never comes", func() error {
		var err error
		c, err = nccl.NewComm(ctx, 2, id, 0, &nccl.Config{NonBlocking: true})
		return err
	}))
	t.Cleanup(func() { must(t, c.Abort()) })
	equal(t, c.Rank(), 0)
	equal(t, c.Count(), 2)
	errorIs(t, c.AsyncError(), nccl.InProgress, "in progress while rank 1 has not joined")

	start := time.Now()
	errorIs(t, c.Wait(timeout(t, 50*time.Millisecond)), context.DeadlineExceeded)
	compare(t, time.Since(start), "<", 10*time.Second, "Wait returns at its deadline")
	errorIs(t, c.AsyncError(), nccl.InProgress, "a Wait that ran out changes nothing")

	// A Wait and a collective waiting for the communicator on other
	// goroutines end with the Abort.
	waited, called := make(chan error, 1), make(chan error, 1)
	go func() { waited <- c.Wait(context.Background()) }()
	go func() { called <- nccl.AllReduce(c, s, b, b, nccl.Sum) }()
	time.Sleep(20 * time.Millisecond)
	must(t, within(t, ncclPatience, "Abort of a communicator still being made", func() error { return c.Abort() }))
	for what, ch := range map[string]chan error{"Wait": waited, "AllReduce": called} {
		select {
		case err := <-ch:
			errorIs(t, err, driver.ErrClosed, "%s after Abort", what)
		case <-time.After(ncclPatience):
			t.Fatalf("%s waiting for the communicator did not end with Abort", what)
		}
	}
	isZero(t, c.Handle())
	errorIs(t, c.AsyncError(), driver.ErrClosed)
	must(t, c.Close(), "Close after Abort")
	must(t, s.Synchronize(), "the stream was given nothing")
}

// testNCCLSplitRefusedOneRank: a Split refused inside a Group fails the
// Group (the split made before it in the group is aborted with it) rather
// than issuing the group without it.
func testNCCLSplitRefusedOneRank(t *testing.T, drv *driver.Driver) {
	ctx := ncclContext(t, drv, 0)
	id, err := nccl.NewUniqueID(ctx)
	must(t, err)
	c := newNCCLComm(t, ctx, 1, id, 0, nil)
	var made *nccl.Comm
	gerr := within(t, ncclPatience, "a Group with a refused Split", func() error {
		return nccl.Group(func() error {
			var err error
			if made, err = c.Split(0, 0, nil); err != nil {
				return err
			}
			_, err = c.Split(0, 0, &nccl.Config{MinCTAs: -1})
			return err
		})
	})
	errorIs(t, gerr, driver.ErrInvalidValue, "the refusal is the Group's error")
	contains(t, gerr.Error(), "aborted", "and says the communicators were aborted")
	isZero(t, c.Handle(), "the parent was aborted with the group")
	if made != nil {
		isZero(t, made.Handle(), "so was the split made in the group")
		must(t, made.Close())
	}
	must(t, c.Close())
}

// ncclPair is two ranks on devices 0 and 1 with a stream each, made by
// non-blocking NewComm calls from one goroutine (which only non-blocking
// inits allow).
type ncclPair struct {
	ctxs    [2]*driver.Context
	streams [2]*stream.Stream
	comms   [2]*nccl.Comm
}

func newNCCLPair(t *testing.T, drv *driver.Driver) *ncclPair {
	t.Helper()
	ncclDevices(t, drv, 2)
	p := &ncclPair{}
	for i := range 2 {
		p.ctxs[i] = ncclContext(t, drv, i)
		p.streams[i] = newStream(t, p.ctxs[i])
	}
	id, err := nccl.NewUniqueID(p.ctxs[0])
	must(t, err)
	for i := range 2 {
		p.comms[i] = newNCCLComm(t, p.ctxs[i], 2, id, i, &nccl.Config{NonBlocking: true})
	}
	for _, c := range p.comms {
		waitNCCL(t, c)
	}
	return p
}

// allReduce runs a sum across both ranks of bufs, in one Group, and waits.
func (p *ncclPair) allReduce(t *testing.T, bufs [2]*memory.Buffer[float32]) {
	t.Helper()
	must(t, nccl.Group(func() error {
		for i, c := range p.comms {
			if err := nccl.AllReduce(c, p.streams[i], bufs[i], bufs[i], nccl.Sum); err != nil {
				return err
			}
		}
		return nil
	}))
	for _, s := range p.streams {
		must(t, s.Synchronize())
	}
}

// testNCCLNonBlockingInitTwo: two non-blocking inits from one goroutine
// meet, and the communicator works.
func testNCCLNonBlockingInitTwo(t *testing.T, drv *driver.Driver) {
	p := newNCCLPair(t, drv)
	bufs := [2]*memory.Buffer[float32]{ncclUpload(t, p.ctxs[0], []float32{1, 2}), ncclUpload(t, p.ctxs[1], []float32{10, 20})}
	p.allReduce(t, bufs)
	equal(t, ncclDownload(t, bufs[0]), []float32{11, 22})
	equal(t, ncclDownload(t, bufs[1]), []float32{11, 22})
	for _, c := range p.comms {
		equal(t, c.Count(), 2)
		must(t, c.AsyncError())
		must(t, c.Close())
	}
}

// testNCCLAbortEndsCollective: rank 1 queues an all-reduce that rank 0
// never joins. Its stream waits: queries say not done, and waits with a
// deadline on the stream, an event after it, a stream waiting for that
// event, and the context return at their deadlines. Rank 0's Abort does
// not end it (on the GPU, rank 1's kernel waits for rank 0's data until
// its own communicator is aborted); rank 1's Abort does, and the work
// queued after it on the stream runs.
func testNCCLAbortEndsCollective(t *testing.T, drv *driver.Driver) {
	p := newNCCLPair(t, drv)
	// One all-reduce across both first: NCCL connects the ranks on a
	// communicator's first collectives, with both taking part.
	warm := [2]*memory.Buffer[float32]{ncclUpload(t, p.ctxs[0], []float32{1}), ncclUpload(t, p.ctxs[1], []float32{2})}
	p.allReduce(t, warm)
	equal(t, ncclDownload(t, warm[1]), []float32{3})

	ctx, s, c := p.ctxs[1], p.streams[1], p.comms[1]
	b := ncclUpload(t, ctx, []float32{5})
	after := ncclUpload(t, ctx, []int32{0})
	must(t, nccl.AllReduce(c, s, warm[1], warm[1], nccl.Sum), "queued: the call does not wait for the peer")
	must(t, memory.Fill(s, after, int32(7)), "work after the collective")
	ev := newEvent(t, ctx, stream.DisableTiming)
	must(t, ev.Record(s))
	other := newStream(t, ctx)
	must(t, other.Wait(ev))
	must(t, memory.Fill(other, b, float32(9)))

	const deadline = 50 * time.Millisecond
	expired := func(what string, wait func(context.Context) error) {
		t.Helper()
		start := time.Now()
		until := timeout(t, deadline)
		err := within(t, ncclPatience, what+" with a deadline", func() error { return wait(until) })
		errorIs(t, err, context.DeadlineExceeded, what)
		compare(t, time.Since(start), "<", 10*time.Second, "%s returns at its deadline", what)
	}
	expired("Stream.SynchronizeContext", s.SynchronizeContext)
	expired("Event.SynchronizeContext", ev.SynchronizeContext)
	expired("Stream.SynchronizeContext of a stream waiting for the event", other.SynchronizeContext)
	expired("Context.SynchronizeContext", ctx.SynchronizeContext)
	expired("memory.CopyToHostContext", func(c context.Context) error {
		return memory.CopyToHostContext(c, make([]int32, 1), after)
	})
	done, err := s.Query()
	must(t, err)
	isFalse(t, done, "the collective waits for rank 0")
	done, err = ev.Query()
	must(t, err)
	isFalse(t, done)

	must(t, within(t, ncclPatience, "Abort of rank 0, whose part never came", func() error { return p.comms[0].Abort() }))
	expired("Stream.SynchronizeContext after the peer's Abort", s.SynchronizeContext)

	must(t, within(t, ncclPatience, "Abort of rank 1, whose collective waits", func() error { return c.Abort() }))
	must(t, within(t, ncclPatience, "Stream.Synchronize after Abort", func() error { return s.Synchronize() }))
	must(t, within(t, ncclPatience, "Event.Synchronize after Abort", func() error { return ev.Synchronize() }))
	must(t, within(t, ncclPatience, "Stream.Synchronize of the stream waiting for the event", func() error { return other.Synchronize() }))
	must(t, within(t, ncclPatience, "Context.Synchronize after Abort", func() error { return ctx.Synchronize() }))
	equal(t, ncclDownload(t, after), []int32{7}, "the work after the aborted collective ran")
	equal(t, ncclDownload(t, b), []float32{9}, "and the work waiting for it on another stream")
	for _, c := range p.comms {
		errorIs(t, c.AsyncError(), driver.ErrClosed)
	}
}

// testNCCLSplitRefusedGroup: one goroutine splits both ranks in a Group,
// and rank 1's Split is refused: the Group returns the refusal instead of
// waiting for rank 1's part at its end, and every communicator it used is
// aborted.
func testNCCLSplitRefusedGroup(t *testing.T, drv *driver.Driver) {
	p := newNCCLPair(t, drv)
	var made *nccl.Comm
	gerr := within(t, ncclPatience, "a Group in which rank 1's Split is refused", func() error {
		return nccl.Group(func() error {
			var err error
			if made, err = p.comms[0].Split(1, 0, nil); err != nil {
				return err
			}
			_, err = p.comms[1].Split(1, 1, &nccl.Config{MinCTAs: 8, MaxCTAs: 2})
			return err
		})
	})
	errorIs(t, gerr, driver.ErrInvalidValue)
	for i, c := range p.comms {
		isZero(t, c.Handle(), "rank %d's communicator was aborted", i)
	}
	if made != nil {
		isZero(t, made.Handle())
	}
}

// testNCCLSplitPeerAborted: rank 0 splits (non-blocking, waiting for rank
// 1), rank 1 never does and is aborted: rank 0's Split ends with an error
// instead of waiting for good.
func testNCCLSplitPeerAborted(t *testing.T, drv *driver.Driver) {
	p := newNCCLPair(t, drv)
	split := make(chan error, 1)
	go func() {
		child, err := p.comms[0].Split(0, 0, nil)
		if child != nil {
			_ = child.Abort()
		}
		split <- err
	}()
	select {
	case err := <-split:
		t.Fatalf("Split returned (%v) before its peer took part", err)
	case <-time.After(50 * time.Millisecond):
	}
	must(t, within(t, ncclPatience, "Abort of the rank that never splits", func() error { return p.comms[1].Abort() }))
	select {
	case err := <-split:
		hasError(t, err, "a split whose peer was aborted fails")
		isFalse(t, errors.Is(err, nccl.InProgress), "and is not left in progress: %v", err)
	case <-time.After(ncclPatience):
		t.Fatalf("Split did not end after its peer was aborted")
	}
	must(t, p.comms[0].Abort())
}
