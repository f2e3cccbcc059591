package conformance

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/stream"
)

// testStreams checks package stream on drv: owned, wrapped and special
// streams, their ordering, host callbacks, and errors on bad input.
func testStreams(t *testing.T, drv *driver.Driver) {
	t.Run("new", func(t *testing.T) { testStreamNew(t, drv) })
	t.Run("priority", func(t *testing.T) { testStreamPriority(t, drv) })
	t.Run("close", func(t *testing.T) { testStreamClose(t, drv) })
	t.Run("hold", func(t *testing.T) { testStreamHold(t, drv) })
	t.Run("wrap", func(t *testing.T) { testStreamWrap(t, drv) })
	t.Run("wrap-null", func(t *testing.T) { testStreamWrapNull(t, drv) })
	t.Run("wrap-special", func(t *testing.T) { testStreamWrapSpecial(t, drv) })
	t.Run("wrap-wrong-context", func(t *testing.T) { testStreamWrapWrongContext(t, drv) })
	t.Run("wrap-other-device", func(t *testing.T) { testStreamWrapOtherDevice(t, drv) })
	t.Run("wrapped-works", func(t *testing.T) { testStreamWrappedWorks(t, drv) })
	t.Run("special", func(t *testing.T) { testStreamSpecial(t, drv) })
	t.Run("special-equal", func(t *testing.T) { testStreamSpecialEqual(t, drv) })
	t.Run("special-other-current", func(t *testing.T) { testStreamSpecialOtherCurrent(t, drv) })
	t.Run("query", func(t *testing.T) { testStreamQuery(t, drv) })
	t.Run("wait-stream", func(t *testing.T) { testStreamWaitStream(t, drv) })
	t.Run("order", func(t *testing.T) { testStreamOrder(t, drv) })
	t.Run("kernel-order", func(t *testing.T) { testStreamKernelOrder(t, drv) })
	t.Run("cross-device-wait", func(t *testing.T) { testStreamCrossDevice(t, drv) })
	t.Run("goroutines", func(t *testing.T) { testStreamGoroutines(t, drv) })
	t.Run("callback", func(t *testing.T) { testStreamCallback(t, drv) })
	t.Run("callback-panic", func(t *testing.T) { testStreamCallbackPanic(t, drv) })
	t.Run("callback-goexit", func(t *testing.T) { testStreamCallbackGoexit(t, drv) })
	t.Run("nil", func(t *testing.T) { testStreamNil(t, drv) })
}

func testStreamNew(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)

	s := newStream(t, ctx)
	isTrue(t, s.Owned())
	notZero(t, s.Handle(), "an owned stream is never the NULL stream")
	isSame(t, s.Context(), ctx)
	f, err := s.Flags()
	must(t, err)
	equal(t, f, stream.Blocking)
	owner, err := ctxAPI(ctx).StreamGetCtx(s.Handle())
	must(t, err)
	equal(t, owner, ctx.Handle(), "the stream is created in its context")

	nb := newStream(t, ctx, stream.Options{Flags: stream.NonBlocking})
	f, err = nb.Flags()
	must(t, err)
	equal(t, f, stream.NonBlocking)
	notEqual(t, nb.Handle(), s.Handle())
	isFalse(t, s.Equal(nb))
	isTrue(t, s.Equal(s))
	contains(t, s.String(), fmt.Sprintf("%#x", s.Handle()))

	_, err = stream.New(ctx, stream.Options{Flags: stream.Flag(0x8)})
	mustIs(t, err, driver.ErrInvalidValue)
	contains(t, err.Error(), "0x8")

	_, err = stream.New(nil, stream.Options{})
	mustIs(t, err, driver.ErrInvalidValue)
}

func testStreamPriority(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	least, greatest, err := stream.PriorityRange(ctx)
	must(t, err)
	if greatest > least {
		t.Fatalf("greater priorities are smaller numbers: got greatest %d, least %d", greatest, least)
	}

	for _, p := range []int{least, greatest} {
		s := newStream(t, ctx, stream.Options{Priority: p})
		got, err := s.Priority()
		must(t, err)
		equal(t, got, p)
	}
	def := newStream(t, ctx)
	got, err := def.Priority()
	must(t, err)
	equal(t, got, 0, "the default priority")

	for _, p := range []int{greatest - 1, least + 1} {
		s, err := stream.New(ctx, stream.Options{Priority: p})
		mustErr(t, err, "priority %d", p)
		isNil(t, s)
		errorIs(t, err, driver.ErrInvalidValue)
		contains(t, err.Error(), fmt.Sprintf("priority %d", p))
		contains(t, err.Error(), fmt.Sprintf("%d (greatest)", greatest))
		contains(t, err.Error(), fmt.Sprintf("%d (least)", least))
	}
}

func testStreamClose(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	s, err := stream.New(ctx, stream.Options{})
	must(t, err)
	ev := newEvent(t, ctx)
	must(t, s.Close())
	must(t, s.Close(), "a second Close is a no-op")

	_, err = s.Query()
	errorIs(t, err, driver.ErrClosed)
	errorIs(t, s.Synchronize(), driver.ErrClosed)
	errorIs(t, s.Wait(ev), driver.ErrClosed)
	errorIs(t, s.Callback(func() {}), driver.ErrClosed)
	errorIs(t, ev.Record(s), driver.ErrClosed)
	_, err = s.Flags()
	errorIs(t, err, driver.ErrClosed)
	_, err = s.Priority()
	errorIs(t, err, driver.ErrClosed)
	other := newStream(t, ctx)
	errorIs(t, other.WaitStream(s), driver.ErrClosed)
	errorIs(t, s.WaitStream(other), driver.ErrClosed)
	contains(t, s.String(), "closed")
}

func testStreamWrap(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	_, greatest, err := stream.PriorityRange(ctx)
	must(t, err)
	h := rawStream(t, ctx, backend.StreamNonBlocking, greatest)

	s, err := stream.Wrap(ctx, h)
	must(t, err)
	equal(t, s.Handle(), h, "the handle round-trips exactly")
	isFalse(t, s.Owned())
	isSame(t, s.Context(), ctx)
	contains(t, s.String(), "wrapped")

	s2, err := stream.Wrap(ctx, h)
	must(t, err)
	isTrue(t, s.Equal(s2), "two wraps of one handle are Equal")
	isTrue(t, s2.Equal(s))

	// Flags and Priority are the creator's, read from the driver.
	f, err := s.Flags()
	must(t, err)
	equal(t, f, stream.NonBlocking)
	p, err := s.Priority()
	must(t, err)
	equal(t, p, greatest)

	// Close only detaches: the stream stays alive for its owner.
	must(t, s.Close())
	must(t, s.Close())
	noError(t, ctxAPI(ctx).StreamQuery(h), "the foreign stream is still alive")
	noError(t, ctxAPI(ctx).StreamSynchronize(h))
	_, err = s.Query()
	errorIs(t, err, driver.ErrClosed)
	errorIs(t, s.Synchronize(), driver.ErrClosed)
	// The other wrap is unaffected.
	done, err := s2.Query()
	must(t, err)
	isTrue(t, done)
	must(t, s2.Close())

	// Wrapping the stream of a closed context is refused.
	ctx2 := streamContext(t, drv, 0)
	must(t, ctx2.Close())
	_, err = stream.Wrap(ctx2, h)
	errorIs(t, err, driver.ErrClosed)
	_, err = stream.Wrap(nil, h)
	errorIs(t, err, driver.ErrInvalidValue)
}

func testStreamWrapNull(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	s, err := stream.Wrap(ctx, 0)
	mustIs(t, err, stream.ErrNullHandle)
	isNil(t, s, "Wrap(0) never makes a stream")
	contains(t, err.Error(), "stream.Wrap: handle 0x0")
	contains(t, err.Error(), "stream.Default")
	contains(t, err.Error(), "stream.Legacy")
	contains(t, err.Error(), "stream.PerThread")
}

func testStreamWrapSpecial(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	for _, c := range []struct {
		h    uintptr
		want *stream.Stream
	}{{backend.StreamLegacy, special(t, stream.Legacy, ctx)}, {backend.StreamPerThread, special(t, stream.PerThread, ctx)}} {
		s, err := stream.Wrap(ctx, c.h)
		must(t, err, "handle %#x", c.h)
		equal(t, s.Handle(), c.h)
		isTrue(t, s.Equal(c.want), "Wrap(%#x) is %s", c.h, c.want)
		isFalse(t, s.Equal(special(t, stream.Default, ctx)))
		isFalse(t, s.Owned())
		must(t, s.Synchronize())
		must(t, s.Close())
		// Close never destroys a special stream.
		must(t, c.want.Synchronize())
	}
}

func testStreamWrapWrongContext(t *testing.T, drv *driver.Driver) {
	primary := streamContext(t, drv, 0)
	own := streamOwnContext(t, drv, 0)
	h := rawStream(t, own, backend.StreamDefault, 0)

	s, err := stream.Wrap(primary, h)
	mustIs(t, err, driver.ErrWrongContext)
	isNil(t, s)
	contains(t, err.Error(), fmt.Sprintf("%#x", h))
	contains(t, err.Error(), fmt.Sprintf("%#x", primary.Handle()), "names the context asked for")
	contains(t, err.Error(), fmt.Sprintf("%#x", own.Handle()), "names the stream's own context")

	// In its own context it wraps.
	s, err = stream.Wrap(own, h)
	must(t, err)
	must(t, s.Synchronize())
	must(t, s.Close())
}

func testStreamWrapOtherDevice(t *testing.T, drv *driver.Driver) {
	n, err := drv.DeviceCount()
	must(t, err)
	if n < 2 {
		t.Skip("needs two devices")
	}
	ctx0 := streamContext(t, drv, 0)
	ctx1 := streamContext(t, drv, 1)
	h := rawStream(t, ctx1, backend.StreamDefault, 0)
	_, err = stream.Wrap(ctx0, h)
	mustIs(t, err, driver.ErrWrongContext, "a stream of another device is caught at Wrap")
	contains(t, err.Error(), "device 1")
	contains(t, err.Error(), "device 0")
}

// testStreamWrappedWorks runs every operation on a wrapped stream.
func testStreamWrappedWorks(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	h := rawStream(t, ctx, backend.StreamNonBlocking, 0)
	s, err := stream.Wrap(ctx, h)
	must(t, err)
	t.Cleanup(func() { must(t, s.Close()) })
	ours := newStream(t, ctx)
	p := rawAlloc(t, ctx, 4096)

	memsetU32(t, s, p, 7, 1024)
	ev := newEvent(t, ctx)
	must(t, ev.Record(s), "event Record on a wrapped stream")
	must(t, ours.Wait(ev))
	equal(t, readU32(t, ours, p+4092), uint32(7), "copies on a wrapped stream, then ordered by Wait")

	memsetU32(t, s, p, 8, 1024)
	must(t, ours.WaitStream(s))
	equal(t, readU32(t, ours, p), uint32(8))

	memsetU32(t, ours, p, 9, 1024)
	must(t, s.WaitStream(ours))
	equal(t, readU32(t, s, p+8), uint32(9), "a wrapped stream waits on ours")

	ran := make(chan struct{}, 1)
	must(t, s.Callback(func() { ran <- struct{}{} }))
	must(t, s.Synchronize())
	select {
	case <-ran:
	default:
		t.Fatal("the callback on the wrapped stream did not run before Synchronize returned")
	}
	done, err := s.Query()
	must(t, err)
	isTrue(t, done)
	must(t, ev.Synchronize())
}

func testStreamSpecial(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	p := rawAlloc(t, ctx, 64)
	for i, s := range []*stream.Stream{special(t, stream.Default, ctx), special(t, stream.Legacy, ctx), special(t, stream.PerThread, ctx)} {
		equal(t, s.Handle(), uintptr(i))
		isFalse(t, s.Owned())
		isSame(t, s.Context(), ctx)

		// Every operation binds the context itself: run each on a fresh
		// goroutine, where no context is current unless the call makes it so.
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // one per-thread stream for the whole sequence
			defer runtime.UnlockOSThread()
			ev, err := stream.NewEvent(ctx, stream.EventOptions{})
			if err != nil {
				errs <- err
				return
			}
			defer ev.Close()
			errs <- ev.Record(s)
			errs <- s.Wait(ev)
			errs <- s.Callback(func() {})
			errs <- s.Synchronize()
			done, err := s.Query()
			if err == nil && !done {
				err = errors.New("query after Synchronize: not done")
			}
			errs <- err
			_, err = s.Flags()
			errs <- err
			_, err = s.Priority()
			errs <- err
		}()
		wg.Wait()
		close(errs)
		for err := range errs {
			must(t, err, "%s", s)
		}
		// The per-thread stream is per OS thread: keep the memset, the copy
		// and the Synchronize on one.
		runtime.LockOSThread()
		memsetU32(t, s, p, uint32(100+i), 16)
		got := readU32(t, s, p+60)
		runtime.UnlockOSThread()
		equal(t, got, uint32(100+i), "%s", s)

		// Close only detaches: the special stream lives on.
		must(t, s.Close())
		must(t, s.Close())
		errorIs(t, s.Synchronize(), driver.ErrClosed)
		again := specialOf(t, ctx, uintptr(i))
		must(t, again.Synchronize(), "%s after another value's Close", again)
	}
}

// testStreamSpecialOtherCurrent: with another context current on the
// thread (as another library may leave it), work on a special stream goes to
// the stream's own context, and the other context is current again after.
func testStreamSpecialOtherCurrent(t *testing.T, drv *driver.Driver) {
	primary := streamContext(t, drv, 0)
	own := streamOwnContext(t, drv, 0)
	p := rawAlloc(t, primary, 4)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b, err := bindCtx(own)
	must(t, err)
	defer b.Unbind()
	for i := uintptr(0); i < 3; i++ {
		s := specialOf(t, primary, i)
		memsetU32(t, s, p, uint32(7+i), 1)
		equal(t, readU32(t, s, p), uint32(7+i), "%s", s)
		cur, err := ctxAPI(own).CtxGetCurrent()
		must(t, err)
		equal(t, cur, own.Handle(), "after work on %s, the thread's context is as it was", s)
	}
}

func specialOf(t testing.TB, ctx *driver.Context, h uintptr) *stream.Stream {
	switch h {
	case backend.StreamNull:
		return special(t, stream.Default, ctx)
	case backend.StreamLegacy:
		return special(t, stream.Legacy, ctx)
	}
	return special(t, stream.PerThread, ctx)
}

func testStreamSpecialEqual(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	same := streamContext(t, drv, 0) // another reference to the same primary context
	own := streamOwnContext(t, drv, 0)
	owned := newStream(t, ctx)
	for i := uintptr(0); i < 3; i++ {
		s := specialOf(t, ctx, i)
		isTrue(t, s.Equal(s))
		isTrue(t, s.Equal(specialOf(t, ctx, i)), "%s is Equal to itself", s)
		isTrue(t, s.Equal(specialOf(t, same, i)), "same handle, same context")
		isFalse(t, s.Equal(specialOf(t, own, i)), "%s of another context", s)
		isFalse(t, s.Equal(owned))
		isFalse(t, s.Equal(nil))
		for j := uintptr(0); j < 3; j++ {
			if j != i {
				isFalse(t, s.Equal(specialOf(t, ctx, j)), "%s vs %s", s, specialOf(t, ctx, j))
			}
		}
	}
	contains(t, special(t, stream.Default, ctx).String(), "NULL")
	contains(t, special(t, stream.Legacy, ctx).String(), "legacy")
	contains(t, special(t, stream.PerThread, ctx).String(), "per-thread")
}

func testStreamQuery(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	s := newStream(t, ctx)
	done, err := s.Query()
	must(t, err)
	isTrue(t, done, "an idle stream is done")

	release := gate(t, s)
	p := rawAlloc(t, ctx, 4096)
	memsetU32(t, s, p, 1, 1024)
	done, err = s.Query()
	must(t, err, "pending work is not an error")
	isFalse(t, done, "work is pending behind the gate")
	release()
	must(t, s.Synchronize())
	done, err = s.Query()
	must(t, err)
	isTrue(t, done)
}

func testStreamWaitStream(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	a := newStream(t, ctx, stream.Options{Flags: stream.NonBlocking})
	b := newStream(t, ctx, stream.Options{Flags: stream.NonBlocking})
	p := rawAlloc(t, ctx, 4)
	memsetU32(t, b, p, 0, 1)
	must(t, b.Synchronize())

	release := gate(t, a)
	memsetU32(t, a, p, 42, 1)
	must(t, b.WaitStream(a))
	// A device-to-device copy: a copy to pageable host memory would block
	// the host until it is done, here until the gate opens.
	q := rawAlloc(t, ctx, 4)
	bind, err := use(b)
	must(t, err)
	must(t, ctxAPI(ctx).MemcpyDtoDAsync(q, p, 4, b.Handle()))
	bind.Unbind()
	done, err := b.Query()
	must(t, err)
	isFalse(t, done, "b waits for a, which is held up")
	release()
	must(t, b.Synchronize())
	equal(t, readU32(t, b, q), uint32(42), "b's copy ran after a's memset")

	// Many WaitStream calls leave nothing behind that the stream's Close or
	// the context would trip on.
	for i := 0; i < 1000; i++ {
		must(t, b.WaitStream(a))
	}
	must(t, b.Synchronize())
}

// testStreamOrder: A does a slow copy then sets a flag to the round number;
// B waits on an event recorded after it and copies the flag back. Without
// the wait B would read an earlier round's flag.
func testStreamOrder(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	a := newStream(t, ctx, stream.Options{Flags: stream.NonBlocking})
	b := newStream(t, ctx, stream.Options{Flags: stream.NonBlocking})
	CheckStreamOrder(t, a, b, 8<<20, 10)

	// A foreign stream, made by raw driver calls as another library would.
	h := rawStream(t, ctx, backend.StreamNonBlocking, 0)
	fa, err := stream.Wrap(ctx, h)
	must(t, err)
	t.Cleanup(func() { must(t, fa.Close()) })
	CheckStreamOrder(t, fa, b, 8<<20, 10)
}

// CheckStreamOrder proves that an event orders two streams of one context:
// for each round r, a does a device-to-device copy of size bytes and then
// sets a flag to r, and records an event; b waits on the event, copies the
// flag to the host, and the flag must be r. Were the wait missing, b would
// read the previous round's flag while a is still copying. The memory is
// allocated with raw driver calls and freed at the end, so the streams'
// Driver must be one the suite opened (Open).
func CheckStreamOrder(t testing.TB, a, b *stream.Stream, size uintptr, rounds int) {
	t.Helper()
	ctx := a.Context()
	api := raw(t, ctx.Driver())
	src := rawAlloc(t, ctx, size)
	dst := rawAlloc(t, ctx, size)
	flag := rawAlloc(t, ctx, 4)
	ev, err := stream.NewEvent(ctx, stream.EventOptions{Flags: stream.DisableTiming})
	must(t, err)
	defer func() { must(t, ev.Close()) }()

	ba, err := use(a)
	must(t, err)
	must(t, api.MemsetD32Async(src, 0x5a5a5a5a, size/4, a.Handle()))
	must(t, api.MemsetD32Async(flag, 0xffffffff, 1, a.Handle()))
	ba.Unbind()
	must(t, a.Synchronize())

	var host uint32
	for r := 1; r <= rounds; r++ {
		ba, err := use(a)
		must(t, err)
		must(t, api.MemcpyDtoDAsync(dst, src, size, a.Handle()))
		must(t, api.MemsetD32Async(flag, uint32(r), 1, a.Handle()))
		ba.Unbind()
		must(t, ev.Record(a))
		must(t, b.Wait(ev))
		bb, err := use(b)
		must(t, err)
		must(t, api.MemcpyDtoHAsync(ptrU32(&host), flag, 4, b.Handle()))
		bb.Unbind()
		must(t, b.Synchronize())
		mustEqual(t, host, uint32(r), "round %d: b read the flag before a set it", r)
	}
	must(t, a.Synchronize())
}

func testStreamCrossDevice(t *testing.T, drv *driver.Driver) {
	n, err := drv.DeviceCount()
	must(t, err)
	if n < 2 {
		t.Skip("needs two devices")
	}
	ctx0 := streamContext(t, drv, 0)
	ctx1 := streamContext(t, drv, 1)
	s0 := newStream(t, ctx0)
	s1 := newStream(t, ctx1)
	ev1 := newEvent(t, ctx1)

	release := gate(t, s1)
	must(t, ev1.Record(s1))
	must(t, s0.Wait(ev1), "waits across devices are allowed")
	must(t, s0.WaitStream(s1))
	done, err := s0.Query()
	must(t, err)
	isFalse(t, done, "s0 waits for device 1's held-up stream")
	release()
	must(t, s0.Synchronize())
	done, err = ev1.Query()
	must(t, err)
	isTrue(t, done)

	// Recording device 1's event on device 0's stream is refused before the driver.
	err = ev1.Record(s0)
	mustIs(t, err, driver.ErrWrongContext)
}

func testStreamGoroutines(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	s := newStream(t, ctx)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ev, err := stream.NewEvent(ctx, stream.EventOptions{Flags: stream.DisableTiming})
			if err != nil {
				errs <- err
				return
			}
			defer ev.Close()
			for i := 0; i < 50; i++ {
				if err := ev.Record(s); err != nil {
					errs <- err
					return
				}
				if err := s.Wait(ev); err != nil {
					errs <- err
					return
				}
				if _, err := s.Query(); err != nil {
					errs <- err
					return
				}
			}
			errs <- s.Synchronize()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, err)
	}
}

func testStreamCallback(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	s := newStream(t, ctx)
	const n = 1000
	var mu sync.Mutex
	var order []int
	for i := 0; i < n; i++ {
		must(t, s.Callback(func() {
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
		}))
	}
	must(t, s.Synchronize())
	mu.Lock()
	defer mu.Unlock()
	mustLen(t, order, n, "every callback ran before Synchronize returned")
	for i, v := range order {
		mustEqual(t, v, i, "callbacks run in stream order")
	}

	// A callback runs after the work queued before it.
	p := rawAlloc(t, ctx, 4)
	memsetU32(t, s, p, 0, 1)
	release := gate(t, s)
	memsetU32(t, s, p, 5, 1)
	ran := make(chan struct{})
	must(t, s.Callback(func() { close(ran) }))
	select {
	case <-ran:
		t.Fatal("the callback ran before the work queued before it")
	default:
	}
	release()
	must(t, s.Synchronize())
	<-ran
	equal(t, readU32(t, s, p), uint32(5))

	err := s.Callback(nil)
	errorIs(t, err, driver.ErrInvalidValue)
}

func testStreamCallbackPanic(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	s := newStream(t, ctx)
	after := make(chan struct{})
	sentinel := errors.New("sentinel")
	must(t, s.Callback(func() { panic("boom") }))
	must(t, s.Callback(func() { panic(sentinel) }))
	must(t, s.Callback(func() { close(after) }))

	err := s.Synchronize()
	var pe *stream.CallbackPanicError
	mustAs(t, err, &pe)
	equal(t, pe.Value, "boom", "the first panic is kept")
	equal(t, pe.More, 1, "the later one is counted")
	equal(t, pe.Stream, s.Handle())
	contains(t, string(pe.Stack), "panic", "the stack of the callback")
	contains(t, err.Error(), "boom")
	<-after // the stream went on after the panics

	must(t, s.Synchronize(), "reported once")

	must(t, s.Callback(func() { panic(sentinel) }))
	err = s.Synchronize()
	errorIs(t, err, sentinel, "a panic with an error unwraps to it")
	done, err := s.Query()
	must(t, err)
	isTrue(t, done)
}

func testStreamNil(t *testing.T, drv *driver.Driver) {
	var s *stream.Stream
	_, err := s.Query()
	errorIs(t, err, driver.ErrInvalidValue)
	errorIs(t, s.Synchronize(), driver.ErrInvalidValue)
	errorIs(t, s.Close(), driver.ErrInvalidValue)
	zero := &stream.Stream{}
	_, err = zero.Query()
	errorIs(t, err, driver.ErrInvalidValue)
	errorIs(t, zero.Callback(func() {}), driver.ErrInvalidValue)
	_, err = stream.Default(nil)
	errorIs(t, err, driver.ErrInvalidValue)
	ctx := streamContext(t, drv, 0)
	ok := newStream(t, ctx)
	errorIs(t, ok.Wait(nil), driver.ErrInvalidValue)
	errorIs(t, ok.WaitStream(nil), driver.ErrInvalidValue)
	isFalse(t, ok.Equal(nil))
	equal(t, s.String(), "nil stream")
}
