package conformance

import (
	"testing"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// memRawAlloc allocates size bytes with raw driver calls, as another library
// would (cuMemAlloc with ctx current).
func memRawAlloc(t *testing.T, ctx *driver.Context, size uintptr) uintptr {
	t.Helper()
	b, err := bindCtx(ctx)
	must(t, err)
	defer b.Unbind()
	ptr, err := ctxAPI(ctx).MemAlloc(size)
	must(t, err)
	return ptr
}

// memRawFree frees raw memory the way the other library would.
func memRawFree(ctx *driver.Context, ptr uintptr) error {
	b, err := bindCtx(ctx)
	if err != nil {
		return err
	}
	defer b.Unbind()
	return ctxAPI(ctx).MemFree(ptr)
}

// memRawRead reads n float32 at ptr with a raw cuMemcpyDtoH.
func memRawRead(t *testing.T, ctx *driver.Context, ptr uintptr, n int) []float32 {
	t.Helper()
	b, err := bindCtx(ctx)
	must(t, err)
	defer b.Unbind()
	out := make([]float32, n)
	must(t, ctxAPI(ctx).MemcpyDtoH(unsafe.Pointer(unsafe.SliceData(out)), ptr, uintptr(4*n)))
	return out
}

func testMemBorrow(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	const n = 1 << 18
	ptr := memRawAlloc(t, ctx, 4*n)

	// "Another library" writes its tensor; we borrow it and see the data.
	other := memIota(n, 1)
	bd, err := bindCtx(ctx)
	must(t, err)
	err = ctxAPI(ctx).MemcpyHtoD(ptr, unsafe.Pointer(unsafe.SliceData(other)), 4*n)
	bd.Unbind()
	must(t, err)

	type tensor struct{ name string }
	owner := &tensor{"theirs"}
	b, err := memory.Borrow[float32](ctx, ptr, n, owner)
	must(t, err)
	isFalse(t, b.Owned())
	equal(t, b.Ptr(), ptr)
	equal(t, b.Len(), n)
	isSame(t, b.Context(), ctx)
	memSame(t, memIota(n, 1), memRead(t, b))

	// Written in place by our copies and fills, read back by the owner.
	must(t, memory.CopyToDevice(b, memIota(n, 100)))
	memSame(t, memIota(n, 100), memRawRead(t, ctx, ptr, n))
	mid, err := b.Slice(10, 20)
	must(t, err)
	must(t, memory.Fill(s, mid, float32(-1)))
	must(t, s.Synchronize())
	got := memRawRead(t, ctx, ptr, n)
	memSame(t, memFilled(10, float32(-1)), got[10:20])
	equal(t, got[9], float32(109))

	// A borrow of part of the allocation.
	part, err := memory.Borrow[float32](ctx, ptr+4096, 1024, nil)
	must(t, err)
	memSame(t, memIota(1024, 1124), memRead(t, part))
	must(t, part.Close())

	// Free never frees the foreign memory: the owner frees it afterwards.
	must(t, b.Close())
	isZero(t, b.Ptr())
	errorIs(t, memory.CopyToDevice(b, memIota(n, 0)), driver.ErrClosed)
	must(t, b.Close())
	equal(t, memRawRead(t, ctx, ptr, 1)[0], float32(100), "still valid for its owner")
	must(t, memRawFree(ctx, ptr), "the owner's cuMemFree succeeds after our Free")
}

func testMemBorrowChecks(t *testing.T, drv *driver.Driver) {
	ctx, _ := memSetup(t, drv)
	const size = 2 << 20
	ptr := memRawAlloc(t, ctx, size)
	defer func() { must(t, memRawFree(ctx, ptr)) }()

	_, err := memory.Borrow[float32](ctx, 0, 1, nil)
	errorIs(t, err, driver.ErrInvalidValue)
	errorContains(t, err, "NULL")
	_, err = memory.Borrow[float32](ctx, ptr+2, 1, nil)
	errorIs(t, err, driver.ErrInvalidValue)
	errorContains(t, err, "aligned")
	_, err = memory.Borrow[float32](ctx, ptr, -1, nil)
	errorIs(t, err, driver.ErrInvalidValue, "n=-1")
	_, err = memory.Borrow[string](ctx, ptr, 1, nil)
	errorIs(t, err, driver.ErrInvalidValue)
	_, err = memory.Borrow[float32](nil, ptr, 1, nil)
	errorIs(t, err, driver.ErrInvalidValue)

	// The range must lie inside one allocation.
	_, err = memory.Borrow[byte](ctx, ptr+size/2, size, nil)
	errorIs(t, err, driver.ErrInvalidValue)
	errorContains(t, err, "allocation")
	b, err := memory.Borrow[byte](ctx, ptr+size/2, size/2, nil)
	must(t, err, "up to the end exactly")
	must(t, b.Close())

	// An empty borrow is valid, and its pointer is checked all the same.
	e, err := memory.Borrow[float32](ctx, ptr+64, 0, nil)
	must(t, err, "an empty borrow")
	equal(t, e.Len(), 0)
	equal(t, e.Ptr(), ptr+64, "an empty borrow keeps its address")
	isFalse(t, e.Owned())
	must(t, memory.CopyToDevice(e, nil))
	must(t, memory.CopyToHost(nil, e))
	must(t, e.Close())
	errorIs(t, memory.CopyToHost(nil, e), driver.ErrClosed, "a closed empty borrow")
	_, err = memory.Borrow[float32](ctx, 0, 0, nil)
	errorContains(t, err, "NULL", "n=0")
	_, err = memory.Borrow[float32](ctx, ptr+2, 0, nil)
	errorContains(t, err, "aligned", "n=0")

	// Host memory is not device memory: pinned memory the driver knows,
	// and Go memory it does not.
	h, err := memory.AllocHost[float32](ctx, 16)
	must(t, err)
	_, err = memory.Borrow[float32](ctx, memHostAddr(h.Slice()), 16, nil)
	errorIs(t, err, driver.ErrInvalidValue)
	errorContains(t, err, "host memory")
	must(t, h.Close())
	goMem := make([]float32, 16)
	_, err = memory.Borrow[float32](ctx, memHostAddr(goMem), 16, nil)
	hasError(t, err)
	errorContains(t, err, "memory.Borrow[float32]")
	_, err = memory.Borrow[float32](ctx, memHostAddr(goMem), 0, nil)
	hasError(t, err, "Go memory, n=0")

	// Memory that was freed is unknown to the driver.
	gone := memRawAlloc(t, ctx, 4096)
	must(t, memRawFree(ctx, gone))
	_, err = memory.Borrow[float32](ctx, gone, 16, nil)
	hasError(t, err)
	_, err = memory.Borrow[float32](ctx, gone, 0, nil)
	hasError(t, err, "freed memory, n=0")

	// Memory of another context is ErrWrongContext.
	other, err := ctx.Device().NewContext(driver.ContextOptions{})
	must(t, err)
	defer func() { must(t, other.Close()) }()
	theirs := memRawAlloc(t, other, 4096)
	_, err = memory.Borrow[float32](ctx, theirs, 16, nil)
	errorIs(t, err, driver.ErrWrongContext)
	errorContains(t, err, "context")
	_, err = memory.Borrow[float32](ctx, theirs, 0, nil)
	errorIs(t, err, driver.ErrWrongContext, "n=0")
	ok, err := memory.Borrow[float32](other, theirs, 16, nil)
	must(t, err, "borrowed in its own context")
	must(t, ok.Close())
	must(t, memRawFree(other, theirs))

	// A released context.
	c2, err := ctx.Device().PrimaryContext()
	must(t, err)
	must(t, c2.Close())
	_, err = memory.Borrow[float32](c2, ptr, 16, nil)
	errorIs(t, err, driver.ErrClosed)
	_, err = memory.Borrow[float32](c2, ptr, 0, nil)
	errorIs(t, err, driver.ErrClosed, "n=0")
}

func testMemBorrowPool(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	const n = 1 << 16
	api := raw(t, drv)
	// Stream-ordered pool memory, allocated raw by "another library".
	ptr, err := api.MemAllocAsync(4*n, s.Handle())
	must(t, err)
	must(t, s.Synchronize())

	b, err := memory.Borrow[float32](ctx, ptr, n, nil)
	must(t, err, "pool memory may report no context: the device decides")
	must(t, memory.CopyToDeviceAsync(s, b, memIota(n, 2)))
	must(t, s.Synchronize())
	memSame(t, memIota(n, 2), memRawRead(t, ctx, ptr, n))
	must(t, b.Close())
	must(t, api.MemFreeAsync(ptr, s.Handle()), "still the owner's to free")
	must(t, s.Synchronize())

	// Our own stream-ordered buffer, borrowed through its pointer.
	own, err := memory.AllocAsync[float32](s, n)
	must(t, err)
	must(t, s.Synchronize())
	view, err := memory.Borrow[float32](ctx, own.Ptr(), n, own)
	must(t, err)
	must(t, view.Close())
	must(t, own.Close())
	must(t, s.Synchronize())
}

func testMemTwoDevices(t *testing.T, drv *driver.Driver) {
	count, err := drv.DeviceCount()
	must(t, err)
	if count < 2 {
		t.Skipf("needs two devices, have %d", count)
	}
	ctx0, s0 := memSetup(t, drv)
	dev1, err := drv.Device(1)
	must(t, err)
	ctx1, err := dev1.PrimaryContext()
	must(t, err)
	defer func() { must(t, ctx1.Close()) }()
	s1, err := stream.New(ctx1, stream.Options{})
	must(t, err)
	defer func() { must(t, s1.Close()) }()

	const n = 4096
	a := memAlloc[float32](t, ctx0, n)
	b, err := memory.Alloc[float32](ctx1, n)
	must(t, err)
	defer func() { must(t, b.Close()) }()

	must(t, memory.CopyToDevice(a, memIota(n, 1)))
	must(t, memory.CopyDtoD(b, a))
	memSame(t, memIota(n, 1), memRead(t, b))
	must(t, memory.Fill(s1, b, float32(5)))
	must(t, memory.CopyDtoDAsync(s1, a, b), "peer copy on the destination's device")
	must(t, s1.Synchronize())
	memSame(t, memFilled(n, float32(5)), memRead(t, a))
	must(t, memory.CopyDtoDAsync(s0, b, a), "peer copy on the source's device")
	must(t, s0.Synchronize())

	// A stream of another device reaches neither side of a host copy.
	err = memory.CopyToDeviceAsync(s0, b, memIota(n, 0))
	errorIs(t, err, driver.ErrWrongContext)
	errorIs(t, memory.Fill(s0, b, float32(1)), driver.ErrWrongContext)
	memSame(t, memFilled(n, float32(5)), memRead(t, b))

	// Device 1's memory is not device 0's to borrow.
	_, err = memory.Borrow[float32](ctx0, b.Ptr(), n, nil)
	errorIs(t, err, driver.ErrWrongContext)
	errorContains(t, err, "device 1")

	c, err := memory.AllocAsync[float32](s1, n)
	must(t, err)
	errorIs(t, c.FreeAsync(s0), driver.ErrWrongContext)
	must(t, c.FreeAsync(s1))
	must(t, s1.Synchronize())

	// Copies of zero elements check the stream's device all the same.
	e1, err := memory.AllocAsync[float32](s1, 0)
	must(t, err)
	end1, err := b.Slice(n, n)
	must(t, err)
	for _, e := range []*memory.Buffer[float32]{e1, end1} {
		errorIs(t, memory.CopyToDeviceAsync(s0, e, nil), driver.ErrWrongContext, "empty CopyToDeviceAsync")
		errorIs(t, memory.CopyToHostAsync(s0, nil, e), driver.ErrWrongContext, "empty CopyToHostAsync")
		errorIs(t, memory.CopyDtoDAsync(s0, e, e), driver.ErrWrongContext, "empty CopyDtoDAsync")
		errorIs(t, memory.Fill(s0, e, 0), driver.ErrWrongContext, "empty Fill")
		must(t, memory.CopyDtoDAsync(s0, a, e), "an empty peer copy on the destination's device")
		must(t, memory.CopyDtoD(a, e), "an empty synchronous peer copy")
	}
	errorIs(t, e1.FreeAsync(s0), driver.ErrWrongContext, "an empty buffer's FreeAsync checks the device")
	must(t, e1.FreeAsync(s1))
}
