package conformance

import (
	"fmt"
	"math"
	"testing"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

func testMemAlloc(t *testing.T, drv *driver.Driver) {
	ctx, _ := memSetup(t, drv)
	b, err := memory.Alloc[float32](ctx, 1000)
	must(t, err)
	notZero(t, b.Ptr())
	equal(t, b.Len(), 1000)
	equal(t, b.Size(), 4000)
	isTrue(t, b.Owned())
	isFalse(t, b.StreamOrdered())
	isFalse(t, b.IsView())
	isSame(t, b.Context(), ctx)

	// The driver sees device memory of this context and device, at least
	// as large as asked.
	api := raw(t, drv)
	mt, err := api.PointerGetAttribute(backend.PointerAttrMemoryType, b.Ptr())
	must(t, err)
	equal(t, mt, uint64(backend.MemoryTypeDevice))
	owner, err := api.PointerGetAttribute(backend.PointerAttrContext, b.Ptr())
	must(t, err)
	equal(t, owner, uint64(ctx.Handle()))
	bd, err := bindCtx(ctx)
	must(t, err)
	base, size, err := api.MemGetAddressRange(b.Ptr())
	bd.Unbind()
	must(t, err)
	equal(t, base, b.Ptr())
	compare(t, size, ">=", uintptr(4000))

	// A struct element type of fixed size works like any other.
	type pair struct {
		A int32
		B float32
	}
	p := memAlloc[pair](t, ctx, 3)
	equal(t, p.Size(), 24)
	want := []pair{{1, 1.5}, {2, 2.5}, {3, 3.5}}
	must(t, memory.CopyToDevice(p, want))
	equal(t, memRead(t, p), want)

	must(t, b.Close())
	isZero(t, b.Ptr())
}

func testMemAllocErrors(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	// A negative count is refused (zero is an empty buffer: see
	// testMemEmptyBuffers).
	for _, n := range []int{-1, math.MinInt} {
		_, err := memory.Alloc[float32](ctx, n)
		errorIs(t, err, driver.ErrInvalidValue, "n=%d", n)
		errorContains(t, err, "memory.Alloc[float32]")
		_, err = memory.AllocAsync[float32](s, n)
		errorIs(t, err, driver.ErrInvalidValue, "async n=%d", n)
		_, err = memory.AllocHost[float32](ctx, n)
		errorIs(t, err, driver.ErrInvalidValue, "host n=%d", n)
	}
	_, err := memory.Alloc[float64](ctx, math.MaxInt/4)
	errorIs(t, err, driver.ErrInvalidValue)
	errorContains(t, err, "overflow")

	// Types that cannot live in device memory are refused before any call.
	type withPtr struct {
		A int
		P *int
	}
	type nested struct{ X [2]withPtr }
	assertRefused := func(err error, what string) {
		t.Helper()
		errorIs(t, err, driver.ErrInvalidValue, what)
		errorContains(t, err, "element type", what)
	}
	_, err = memory.Alloc[*int](ctx, 1)
	assertRefused(err, "pointer")
	_, err = memory.Alloc[[]int](ctx, 1)
	assertRefused(err, "slice")
	_, err = memory.Alloc[string](ctx, 1)
	assertRefused(err, "string")
	_, err = memory.Alloc[map[int]int](ctx, 1)
	assertRefused(err, "map")
	_, err = memory.Alloc[any](ctx, 1)
	assertRefused(err, "interface")
	_, err = memory.Alloc[withPtr](ctx, 1)
	assertRefused(err, "struct with a pointer")
	_, err = memory.Alloc[nested](ctx, 1)
	assertRefused(err, "array of structs with a pointer")
	errorContains(t, err, "field P")
	_, err = memory.Alloc[struct{}](ctx, 1)
	assertRefused(err, "zero size")
	_, err = memory.Alloc[[0]float32](ctx, 1)
	assertRefused(err, "zero-length array")
	_, err = memory.AllocAsync[*int](s, 1)
	assertRefused(err, "async pointer")
	_, err = memory.AllocHost[string](ctx, 1)
	assertRefused(err, "host string")

	_, err = memory.Alloc[float32](nil, 1)
	errorIs(t, err, driver.ErrInvalidValue)
	_, err = memory.AllocAsync[float32](nil, 1)
	errorIs(t, err, driver.ErrInvalidValue)

	// More memory than any device has: the driver's out-of-memory error,
	// wrapped.
	_, err = memory.Alloc[byte](ctx, 1<<52)
	errorIs(t, err, driver.ErrOutOfMemory)
	errorContains(t, err, "cuMemAlloc")

	// A released context, a closed stream.
	dev := ctx.Device()
	c2, err := dev.PrimaryContext()
	must(t, err)
	must(t, c2.Close())
	_, err = memory.Alloc[float32](c2, 1)
	errorIs(t, err, driver.ErrClosed)
	s2, err := stream.New(ctx, stream.Options{})
	must(t, err)
	must(t, s2.Close())
	_, err = memory.AllocAsync[float32](s2, 1)
	errorIs(t, err, driver.ErrClosed)
}

func testMemFree(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	b, err := memory.Alloc[int32](ctx, 16)
	must(t, err)
	v, err := b.Slice(0, 8)
	must(t, err)
	must(t, b.Close())
	must(t, b.Close(), "a second Free is a no-op")
	isZero(t, b.Ptr())
	isZero(t, v.Ptr(), "a view of freed memory has no pointer")
	equal(t, b.Len(), 16)

	host := make([]int32, 16)
	errorIs(t, memory.CopyToDevice(b, host), driver.ErrClosed)
	errorIs(t, memory.CopyToHost(host, b), driver.ErrClosed)
	errorIs(t, memory.CopyToDeviceAsync(s, b, host), driver.ErrClosed)
	errorIs(t, memory.CopyToHostAsync(s, host, b), driver.ErrClosed)
	errorIs(t, memory.Fill(s, b, 1), driver.ErrClosed)
	errorIs(t, memory.CopyToDevice(v, host[:8]), driver.ErrClosed)
	// No view is made of freed memory, empty or not.
	for _, r := range [][2]int{{0, 1}, {0, 0}, {16, 16}, {-1, 2}} {
		fv, err := b.Slice(r[0], r[1])
		errorIs(t, err, driver.ErrClosed, "Slice(%d, %d) of a freed buffer", r[0], r[1])
		isNil(t, fv, "no view of a freed buffer")
	}
	fb, err := b.Bytes()
	errorIs(t, err, driver.ErrClosed)
	isNil(t, fb, "no Bytes view of a freed buffer")
	_, err = v.Slice(0, 1)
	errorIs(t, err, driver.ErrClosed, "a view of a view of freed memory")
	_, err = b.IPCHandle()
	errorIs(t, err, driver.ErrClosed)
	must(t, v.Close(), "Free of a view of freed memory is a no-op")

	other := memAlloc[int32](t, ctx, 16)
	errorIs(t, memory.CopyDtoD(other, b), driver.ErrClosed)
	errorIs(t, memory.CopyDtoDAsync(s, b, other), driver.ErrClosed)

	// FreeAsync is for stream-ordered memory only, and changes nothing
	// when refused.
	c := memAlloc[int32](t, ctx, 4)
	errorIs(t, c.FreeAsync(s), driver.ErrInvalidValue)
	must(t, memory.CopyToDevice(c, []int32{1, 2, 3, 4}))
	equal(t, memRead(t, c), []int32{1, 2, 3, 4})

	// Nil and zero buffers are errors, never panics.
	var nilBuf *memory.Buffer[int32]
	errorIs(t, nilBuf.Close(), driver.ErrInvalidValue) // refused, as every nil or zero value is
	isZero(t, nilBuf.Ptr())
	errorIs(t, memory.CopyToDevice(nilBuf, host), driver.ErrInvalidValue)
	errorIs(t, memory.CopyToDevice(&memory.Buffer[int32]{}, host), driver.ErrInvalidValue)
	errorIs(t, memory.Fill(s, nilBuf, 0), driver.ErrInvalidValue)
}

func testMemViews(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	b := memAlloc[float32](t, ctx, 10)
	must(t, memory.CopyToDevice(b, make([]float32, 10)))

	v, err := b.Slice(2, 5)
	must(t, err)
	equal(t, v.Len(), 3)
	equal(t, v.Size(), 12)
	equal(t, v.Ptr(), b.Ptr()+8)
	isFalse(t, v.Owned())
	isTrue(t, v.IsView())
	isSame(t, v.Context(), ctx)
	must(t, memory.CopyToDevice(v, []float32{7, 8, 9}))
	equal(t, memRead(t, b), []float32{0, 0, 7, 8, 9, 0, 0, 0, 0, 0})

	vv, err := v.Slice(1, 3)
	must(t, err)
	equal(t, memRead(t, vv), []float32{8, 9})
	must(t, memory.Fill(s, vv, float32(1)))
	must(t, s.Synchronize())
	equal(t, memRead(t, b), []float32{0, 0, 7, 1, 1, 0, 0, 0, 0, 0})

	// Bounds are Go's: 0 <= i <= j <= Len. Anything else is an error that
	// says the bounds and the length, and makes no view.
	for _, r := range [][2]int{{-1, 2}, {-1, -1}, {0, 11}, {11, 11}, {5, 2}, {1, 0}} {
		bad, err := b.Slice(r[0], r[1])
		errorIs(t, err, driver.ErrInvalidValue, "Slice(%d, %d)", r[0], r[1])
		errorContains(t, err, fmt.Sprintf("[%d:%d]", r[0], r[1]), "the error says the bounds")
		errorContains(t, err, "len 10", "the error says the length")
		isNil(t, bad, "Slice(%d, %d) makes no view", r[0], r[1])
	}
	bad, err := v.Slice(0, 4)
	errorIs(t, err, driver.ErrInvalidValue, "a view's bounds are its own")
	errorContains(t, err, "len 3")
	isNil(t, bad)

	// Freeing a view detaches it only.
	must(t, v.Close())
	isZero(t, v.Ptr())
	errorIs(t, memory.CopyToDevice(v, []float32{1, 2, 3}), driver.ErrClosed)
	notZero(t, b.Ptr())
	notZero(t, vv.Ptr(), "views of the memory stay usable")
	equal(t, memRead(t, b), []float32{0, 0, 7, 1, 1, 0, 0, 0, 0, 0})

	// Bytes views copy between element types explicitly.
	u := memAlloc[uint32](t, ctx, 10)
	bb, err := b.Bytes()
	must(t, err)
	equal(t, bb.Len(), 40)
	isTrue(t, bb.IsView())
	equal(t, bb.Ptr(), b.Ptr())
	ub, err := u.Bytes()
	must(t, err)
	must(t, memory.CopyDtoD(ub, bb))
	got := memRead(t, u)
	equal(t, got[2], uint32(0x40e00000), "7.0f as bits")
	equal(t, got[3], uint32(0x3f800000), "1.0f as bits")
}

func testMemAllocAsync(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	b, err := memory.AllocAsync[float32](s, 256)
	must(t, err)
	isTrue(t, b.Owned())
	isTrue(t, b.StreamOrdered())
	isSame(t, b.Context(), ctx)
	notZero(t, b.Ptr())
	must(t, memory.Fill(s, b, float32(2.5)))
	out := make([]float32, 256)
	must(t, memory.CopyToHostAsync(s, out, b))
	must(t, b.FreeAsync(s))
	must(t, s.Synchronize())
	memSame(t, memFilled(256, float32(2.5)), out)
	isZero(t, b.Ptr())
	must(t, b.FreeAsync(s), "second FreeAsync is a no-op")
	must(t, b.Close(), "Free after FreeAsync is a no-op")

	// Free frees in stream order on the allocation stream.
	c, err := memory.AllocAsync[int32](s, 64)
	must(t, err)
	must(t, memory.Fill(s, c, int32(-1)))
	must(t, c.Close())
	must(t, s.Synchronize())
	errorIs(t, memory.Fill(s, c, int32(0)), driver.ErrClosed)

	// Freed on another stream, after it waits for the allocation stream.
	s2, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	must(t, err)
	d, err := memory.AllocAsync[int32](s, 64)
	must(t, err)
	must(t, memory.Fill(s, d, int32(3)))
	must(t, s2.WaitStream(s))
	must(t, d.FreeAsync(s2))
	must(t, s2.Synchronize())

	// When the allocation stream is closed, Free synchronizes the context
	// and frees the memory all the same.
	e, err := memory.AllocAsync[int32](s2, 64)
	must(t, err)
	must(t, memory.Fill(s2, e, int32(4)))
	must(t, s2.Synchronize())
	must(t, s2.Close())
	errorIs(t, e.FreeAsync(s2), driver.ErrClosed, "a closed stream cannot free")
	notZero(t, e.Ptr(), "a refused FreeAsync changes nothing")
	memSame(t, memFilled(64, int32(4)), memRead(t, e))
	must(t, e.Close())
	isZero(t, e.Ptr())

	// Views and foreign buffers cannot be freed in stream order.
	f, err := memory.AllocAsync[int32](s, 8)
	must(t, err)
	fv, err := f.Slice(0, 4)
	must(t, err)
	errorIs(t, fv.FreeAsync(s), driver.ErrInvalidValue)
	must(t, s.Synchronize())
	br, err := memory.Borrow[int32](ctx, f.Ptr(), 8, nil)
	must(t, err)
	errorIs(t, br.FreeAsync(s), driver.ErrInvalidValue)
	must(t, br.Close())
	must(t, f.FreeAsync(s))
	must(t, s.Synchronize())
}

func testMemHost(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	h, err := memory.AllocHost[float32](ctx, 100)
	must(t, err)
	equal(t, h.Len(), 100)
	equal(t, h.Size(), 400)
	isSame(t, h.Context(), ctx)
	hs := h.Slice()
	mustLen(t, hs, 100)
	copy(hs, memIota(100, 1))

	// The driver knows it as host memory.
	mt, err := raw(t, drv).PointerGetAttribute(backend.PointerAttrMemoryType, memHostAddr(hs))
	must(t, err)
	equal(t, mt, uint64(backend.MemoryTypeHost))

	d := memAlloc[float32](t, ctx, 100)
	must(t, memory.CopyToDeviceAsync(s, d, hs))
	must(t, s.Synchronize())
	back, err := memory.AllocHost[float32](ctx, 100)
	must(t, err)
	must(t, memory.CopyToHostAsync(s, back.Slice(), d))
	must(t, s.Synchronize())
	memSame(t, memIota(100, 1), back.Slice())

	must(t, h.Close())
	isNil(t, h.Slice())
	must(t, h.Close(), "a second Free is a no-op")
	must(t, back.Close())
}

func testMemIPCExport(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	b := memAlloc[float32](t, ctx, 1024)
	h, err := b.IPCHandle()
	must(t, err)
	notEqual(t, h, driver.IPCHandle{})

	v, err := b.Slice(0, 512)
	must(t, err)
	_, err = v.IPCHandle()
	errorIs(t, err, driver.ErrInvalidValue, "views cannot be exported")

	a, err := memory.AllocAsync[float32](s, 1024)
	must(t, err)
	_, err = a.IPCHandle()
	errorIs(t, err, driver.ErrInvalidValue, "stream-ordered memory cannot be exported")
	must(t, a.FreeAsync(s))
	must(t, s.Synchronize())

	br, err := memory.Borrow[float32](ctx, b.Ptr(), 1024, nil)
	must(t, err)
	_, err = br.IPCHandle()
	errorIs(t, err, driver.ErrInvalidValue, "borrowed memory cannot be exported")
	must(t, br.Close())

	_, err = memory.OpenIPC[float32](ctx, driver.IPCHandle{}, 1)
	errorIs(t, err, driver.ErrInvalidValue, "the zero handle")
	_, err = memory.OpenIPC[float32](ctx, h, -1)
	errorIs(t, err, driver.ErrInvalidValue, "n=-1")
	_, err = memory.OpenIPC[float32](ctx, driver.IPCHandle{}, 0)
	errorIs(t, err, driver.ErrInvalidValue, "the zero handle, even for n=0")

	// An empty buffer has no memory to export.
	e, err := memory.Alloc[float32](ctx, 0)
	must(t, err)
	_, err = e.IPCHandle()
	errorIs(t, err, driver.ErrInvalidValue, "an empty buffer cannot be exported")
	must(t, e.Close())
	_, err = memory.OpenIPC[string](ctx, h, 1)
	errorIs(t, err, driver.ErrInvalidValue, "bad element type")
}

// memHostAddr is the address of a host slice's first element, as the driver
// sees it.
func memHostAddr[T any](s []T) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(s))) }
