package conformance

import (
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// Empty buffers and views are valid, as empty Go slices are: an empty view
// points into the memory it views, an empty Alloc, AllocAsync or AllocHost
// buffer has no memory at all, and copies and fills of zero elements check
// their arguments and do nothing.

// testMemEmptyViews: Slice(i, i) is a valid view of zero elements at i,
// from the first to the one past the last element, of buffers and of views;
// every copy and Fill of it succeeds and changes nothing, and it follows
// the lifetime of the memory it views.
func testMemEmptyViews(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	const n = 10
	b := memAlloc[float32](t, ctx, n)
	must(t, memory.CopyToDevice(b, memIota(n, 1)))
	other := memAlloc[float32](t, ctx, n)
	must(t, memory.CopyToDevice(other, memIota(n, 100)))

	for _, i := range []int{0, 3, n} {
		v, err := b.Slice(i, i)
		must(t, err, "Slice(%d, %d)", i, i)
		equal(t, v.Len(), 0)
		equal(t, v.Size(), 0)
		equal(t, v.Ptr(), b.Ptr()+uintptr(4*i), "an empty view points where it was sliced")
		isTrue(t, v.IsView())
		isFalse(t, v.Owned())
		isSame(t, v.Context(), ctx)
		checkEmptyUse(t, s, v, other)

		// Views of the empty view: empty too, and nothing beyond.
		vv, err := v.Slice(0, 0)
		must(t, err)
		equal(t, vv.Ptr(), v.Ptr())
		bad, err := v.Slice(0, 1)
		errorIs(t, err, driver.ErrInvalidValue, "one element past an empty view")
		errorContains(t, err, "len 0")
		isNil(t, bad)
		vb, err := v.Bytes()
		must(t, err)
		equal(t, vb.Len(), 0)
		equal(t, vb.Ptr(), v.Ptr())
	}
	must(t, s.Synchronize())
	memSame(t, memIota(n, 1), memRead(t, b), "empty copies and fills change nothing")
	memSame(t, memIota(n, 100), memRead(t, other))

	// An empty view of a view, at either end.
	mid, err := b.Slice(2, 6)
	must(t, err)
	for _, i := range []int{0, 4} {
		e, err := mid.Slice(i, i)
		must(t, err, "Slice(%d, %d) of a view of 4", i, i)
		equal(t, e.Ptr(), mid.Ptr()+uintptr(4*i))
		must(t, memory.CopyDtoD(e, e), "an empty copy onto itself is no overlap")
	}

	// Close detaches the empty view only; the buffer works on.
	v, err := b.Slice(5, 5)
	must(t, err)
	must(t, v.Close())
	isZero(t, v.Ptr())
	errorIs(t, memory.CopyToDevice(v, nil), driver.ErrClosed, "a closed empty view is closed")
	errorIs(t, memory.Fill(s, v, 0), driver.ErrClosed)
	memSame(t, memIota(n, 1), memRead(t, b))

	// An empty view stops working with the memory it views.
	c, err := memory.Alloc[float32](ctx, 4)
	must(t, err)
	end, err := c.Slice(4, 4)
	must(t, err)
	must(t, memory.CopyToHost(nil, end))
	must(t, c.Close())
	isZero(t, end.Ptr())
	errorIs(t, memory.CopyToHost(nil, end), driver.ErrClosed)
	errorIs(t, memory.CopyToDeviceAsync(s, end, nil), driver.ErrClosed)
	errorIs(t, memory.CopyDtoD(other, end), driver.ErrClosed)
	errorIs(t, memory.Fill(s, end, 0), driver.ErrClosed)
	_, err = end.Slice(0, 0)
	errorIs(t, err, driver.ErrClosed)
	must(t, end.Close(), "Close of a view of freed memory is a no-op")
}

// checkEmptyUse checks that every copy and Fill of the empty buffer e
// succeeds, that a source of more than zero elements does not fit in it, and
// that the non-empty buffer full, of the same context, is left as it was
// (the caller reads it back).
func checkEmptyUse(t *testing.T, s *stream.Stream, e, full *memory.Buffer[float32]) {
	t.Helper()
	must(t, memory.CopyToDevice(e, nil), "CopyToDevice of nothing")
	must(t, memory.CopyToDevice(e, []float32{}), "CopyToDevice of an empty slice")
	errorIs(t, memory.CopyToDevice(e, []float32{1}), driver.ErrInvalidValue, "one element does not fit")
	must(t, memory.CopyToHost(nil, e), "CopyToHost to nil")
	h := memFilled(3, float32(-7))
	must(t, memory.CopyToHost(h, e))
	equal(t, h, memFilled(3, float32(-7)), "an empty source writes nothing")
	must(t, memory.CopyToDeviceAsync(s, e, nil))
	errorIs(t, memory.CopyToDeviceAsync(s, e, []float32{1}), driver.ErrInvalidValue)
	must(t, memory.CopyToHostAsync(s, nil, e))
	must(t, memory.CopyToHostAsync(s, h, e))
	must(t, memory.CopyDtoD(e, e))
	must(t, memory.CopyDtoD(full, e), "an empty source fits anywhere")
	errorIs(t, memory.CopyDtoD(e, full), driver.ErrInvalidValue, "a full source does not fit")
	must(t, memory.CopyDtoDAsync(s, e, e))
	must(t, memory.CopyDtoDAsync(s, full, e))
	errorIs(t, memory.CopyDtoDAsync(s, e, full), driver.ErrInvalidValue)
	must(t, memory.Fill(s, e, float32(1)))
	must(t, s.Synchronize())
	equal(t, h, memFilled(3, float32(-7)), "an empty asynchronous copy writes nothing")
}

// testMemEmptyBuffers: Alloc, AllocAsync and AllocHost of zero elements
// make empty buffers with no memory (Ptr 0, an empty pinned slice) that work
// like any other and whose Close frees nothing and leaks nothing (memSetup
// checks, on the fake).
func testMemEmptyBuffers(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	full := memAlloc[float32](t, ctx, 8)
	must(t, memory.CopyToDevice(full, memIota(8, 1)))

	e, err := memory.Alloc[float32](ctx, 0)
	must(t, err, "Alloc of zero elements")
	equal(t, e.Len(), 0)
	equal(t, e.Size(), 0)
	isZero(t, e.Ptr(), "no memory")
	isTrue(t, e.Owned())
	isFalse(t, e.StreamOrdered())
	isFalse(t, e.IsView())
	isSame(t, e.Context(), ctx)
	contains(t, e.String(), "owned buffer")

	a, err := memory.AllocAsync[float32](s, 0)
	must(t, err, "AllocAsync of zero elements")
	equal(t, a.Len(), 0)
	isZero(t, a.Ptr())
	isTrue(t, a.Owned())
	isTrue(t, a.StreamOrdered())
	isSame(t, a.Context(), ctx)

	h, err := memory.AllocHost[float32](ctx, 0)
	must(t, err, "AllocHost of zero elements")
	equal(t, h.Len(), 0)
	equal(t, h.Size(), 0)
	isSame(t, h.Context(), ctx)
	hs := h.Slice()
	mustLen(t, hs, 0)
	isTrue(t, hs != nil, "the Slice of an empty HostBuffer is empty, not nil")

	for _, b := range []*memory.Buffer[float32]{e, a} {
		checkEmptyUse(t, s, b, full)
		must(t, memory.CopyToDeviceAsync(s, b, hs), "from an empty pinned slice")
		must(t, memory.CopyToHostAsync(s, hs, b), "to an empty pinned slice")
		v, err := b.Slice(0, 0)
		must(t, err)
		isZero(t, v.Ptr())
		isTrue(t, v.IsView())
		bad, err := b.Slice(0, 1)
		errorIs(t, err, driver.ErrInvalidValue)
		isNil(t, bad)
		bb, err := b.Bytes()
		must(t, err)
		equal(t, bb.Len(), 0)
		must(t, memory.Fill(s, bb, 0xff))
	}
	must(t, memory.CopyDtoD(e, a), "between two empty buffers")
	must(t, memory.CopyDtoDAsync(s, a, e))
	must(t, s.Synchronize())
	memSame(t, memIota(8, 1), memRead(t, full), "empty copies change nothing")

	// Close frees nothing, and works as for any buffer.
	must(t, e.Close())
	must(t, e.Close(), "a second Close is a no-op")
	isZero(t, e.Ptr())
	errorIs(t, memory.CopyToHost(nil, e), driver.ErrClosed)
	_, err = e.Slice(0, 0)
	errorIs(t, err, driver.ErrClosed)
	must(t, a.Close(), "an empty stream-ordered buffer")
	must(t, a.FreeAsync(s), "FreeAsync after Close is a no-op")
	errorIs(t, memory.Fill(s, a, 0), driver.ErrClosed)
	must(t, h.Close())
	must(t, h.Close(), "a second Close is a no-op")
	isNil(t, h.Slice(), "the Slice of a closed HostBuffer is nil")

	// FreeAsync of an empty stream-ordered buffer checks its stream.
	f, err := memory.AllocAsync[int32](s, 0)
	must(t, err)
	errorIs(t, f.FreeAsync(nil), driver.ErrInvalidValue)
	s2, err := stream.New(ctx, stream.Options{})
	must(t, err)
	must(t, s2.Close())
	errorIs(t, f.FreeAsync(s2), driver.ErrClosed, "a closed stream")
	must(t, memory.Fill(s, f, 0), "a refused FreeAsync changes nothing")
	must(t, f.FreeAsync(s))
	errorIs(t, memory.Fill(s, f, 0), driver.ErrClosed)
	must(t, f.FreeAsync(s), "a second FreeAsync is a no-op")

	// Empty buffers of every element type; a negative count stays an error
	// (testMemAllocErrors).
	type pair struct{ A, B int64 }
	p, err := memory.Alloc[pair](ctx, 0)
	must(t, err)
	must(t, memory.CopyToDevice(p, nil))
	must(t, p.Close())
}

// testMemEmptyChecks: copies and Fill of zero elements check their
// arguments as any copy does: nil and closed buffers, nil and closed
// streams, a stream of another context for Fill. They succeed on the
// special streams, and none of them changes anything.
func testMemEmptyChecks(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	e, err := memory.Alloc[float32](ctx, 0)
	must(t, err)
	defer func() { must(t, e.Close()) }()
	full := memAlloc[float32](t, ctx, 4)
	fullEnd, err := full.Slice(4, 4)
	must(t, err)

	var nilBuf *memory.Buffer[float32]
	freed, err := memory.Alloc[float32](ctx, 0)
	must(t, err)
	must(t, freed.Close())
	gone, err := memory.Alloc[float32](ctx, 4)
	must(t, err)
	goneView, err := gone.Slice(2, 2)
	must(t, err)
	must(t, gone.Close())
	for _, c := range []struct {
		name string
		b    *memory.Buffer[float32]
		want error
	}{
		{"nil buffer", nilBuf, driver.ErrInvalidValue},
		{"zero Buffer", &memory.Buffer[float32]{}, driver.ErrInvalidValue},
		{"closed empty buffer", freed, driver.ErrClosed},
		{"empty view of freed memory", goneView, driver.ErrClosed},
	} {
		errorIs(t, memory.CopyToDevice(c.b, nil), c.want, "CopyToDevice: %s", c.name)
		errorIs(t, memory.CopyToHost(nil, c.b), c.want, "CopyToHost: %s", c.name)
		errorIs(t, memory.CopyToDeviceAsync(s, c.b, nil), c.want, "CopyToDeviceAsync: %s", c.name)
		errorIs(t, memory.CopyToHostAsync(s, nil, c.b), c.want, "CopyToHostAsync: %s", c.name)
		errorIs(t, memory.CopyDtoD(e, c.b), c.want, "CopyDtoD src: %s", c.name)
		errorIs(t, memory.CopyDtoD(c.b, e), c.want, "CopyDtoD dst: %s", c.name)
		errorIs(t, memory.CopyDtoDAsync(s, e, c.b), c.want, "CopyDtoDAsync src: %s", c.name)
		errorIs(t, memory.CopyDtoDAsync(s, c.b, e), c.want, "CopyDtoDAsync dst: %s", c.name)
		errorIs(t, memory.Fill(s, c.b, 0), c.want, "Fill: %s", c.name)
	}

	// Nil and closed streams are refused, for empty buffers and empty views.
	closed, err := stream.New(ctx, stream.Options{})
	must(t, err)
	must(t, closed.Close())
	for _, c := range []struct {
		name string
		s    *stream.Stream
		want error
	}{
		{"nil stream", nil, driver.ErrInvalidValue},
		{"zero Stream", &stream.Stream{}, driver.ErrInvalidValue},
		{"closed stream", closed, driver.ErrClosed},
	} {
		for _, b := range []*memory.Buffer[float32]{e, fullEnd} {
			errorIs(t, memory.CopyToDeviceAsync(c.s, b, nil), c.want, "CopyToDeviceAsync: %s", c.name)
			errorIs(t, memory.CopyToHostAsync(c.s, nil, b), c.want, "CopyToHostAsync: %s", c.name)
			errorIs(t, memory.CopyDtoDAsync(c.s, b, b), c.want, "CopyDtoDAsync: %s", c.name)
			errorIs(t, memory.Fill(c.s, b, 0), c.want, "Fill: %s", c.name)
		}
	}

	// The special streams take empty work like any other, and refuse it
	// once closed.
	legacy, err := stream.Legacy(ctx)
	must(t, err)
	must(t, memory.CopyToDeviceAsync(legacy, e, nil))
	must(t, memory.CopyToHostAsync(legacy, nil, fullEnd))
	must(t, memory.CopyDtoDAsync(legacy, full, e))
	must(t, memory.Fill(legacy, e, 1))
	must(t, legacy.Close())
	errorIs(t, memory.Fill(legacy, e, 1), driver.ErrClosed, "a closed special stream")
	errorIs(t, memory.CopyToHostAsync(legacy, nil, e), driver.ErrClosed)

	// A memset runs in its stream's context, even one of zero elements; a
	// copy reaches any context of the stream's device.
	other, err := ctx.Device().NewContext(driver.ContextOptions{})
	must(t, err)
	defer func() { must(t, other.Close()) }()
	theirs, err := memory.Alloc[float32](other, 0)
	must(t, err)
	defer func() { must(t, theirs.Close()) }()
	errorIs(t, memory.Fill(s, theirs, 0), driver.ErrWrongContext)
	must(t, memory.CopyToDeviceAsync(s, theirs, nil))
	must(t, memory.CopyToHostAsync(s, nil, theirs))
	must(t, memory.CopyDtoDAsync(s, theirs, e))
	must(t, memory.CopyDtoD(e, theirs))
	s2, err := stream.New(other, stream.Options{})
	must(t, err)
	defer func() { must(t, s2.Close()) }()
	must(t, memory.Fill(s2, theirs, 0))
	errorIs(t, memory.Fill(s2, fullEnd, 0), driver.ErrWrongContext, "an empty view of another context's memory")

	// Fill's own checks of the value come first, as for any buffer.
	type wide struct{ A, B, C int32 }
	w, err := memory.Alloc[wide](ctx, 0)
	must(t, err)
	errorIs(t, memory.Fill(s, w, wide{}), driver.ErrInvalidValue, "a 12-byte element")
	must(t, w.Close())
	d, err := memory.Alloc[[2]uint32](ctx, 0)
	must(t, err)
	errorIs(t, memory.Fill(s, d, [2]uint32{1, 2}), driver.ErrInvalidValue, "unequal halves")
	must(t, memory.Fill(s, d, [2]uint32{3, 3}))
	must(t, d.Close())
	must(t, s.Synchronize())
}

// testMemEmptyHold: empty buffers hold their context like any other (see
// testMemHold): after the Context's Release they keep working, and the
// context ends with the last Close, not before.
func testMemEmptyHold(t *testing.T, drv *driver.Driver) {
	holdCases(t, drv, "Close", checkMemEmptyOutliveContext)
}

func checkMemEmptyOutliveContext(t *testing.T, ctx *driver.Context, ended func(t *testing.T)) {
	api := ctxAPI(ctx)
	h := ctx.Handle()
	alive := func(msg string) {
		t.Helper()
		_, err := api.CtxGetAPIVersion(h)
		must(t, err, "the context is alive %s", msg)
	}
	s, err := stream.New(ctx, stream.Options{})
	must(t, err)
	dev, err := memory.Alloc[float32](ctx, 0)
	must(t, err)
	async, err := memory.AllocAsync[float32](s, 0)
	must(t, err)
	host, err := memory.AllocHost[float32](ctx, 0)
	must(t, err)
	view, err := dev.Slice(0, 0)
	must(t, err)
	t.Cleanup(func() { // on failure; each Close is a no-op after the first
		s.Close()
		dev.Close()
		async.Close()
		host.Close()
	})
	must(t, s.Close(), "an empty stream-ordered buffer does not need its stream")

	must(t, ctx.Close())
	alive("after the Context's Release, while empty buffers hold it")
	_, err = memory.Alloc[float32](ctx, 0)
	errorIs(t, err, driver.ErrClosed, "nothing is made in a released Context, not even an empty buffer")
	_, err = memory.AllocHost[float32](ctx, 0)
	errorIs(t, err, driver.ErrClosed)

	must(t, memory.CopyToHost(nil, dev))
	must(t, memory.CopyDtoD(view, async))
	mustLen(t, host.Slice(), 0)

	must(t, dev.Close())
	alive("while empty buffers still hold it")
	errorIs(t, memory.CopyToHost(nil, view), driver.ErrClosed)
	must(t, async.Close())
	alive("while the empty pinned buffer still holds it")
	must(t, host.Close())
	ended(t)
}
