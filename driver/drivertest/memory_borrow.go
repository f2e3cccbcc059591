package drivertest

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// memRawAlloc allocates size bytes with raw driver calls, as another library
// would (cuMemAlloc with ctx current).
func memRawAlloc(t *testing.T, ctx *driver.Context, size uintptr) uintptr {
	t.Helper()
	b, err := ctx.Bind()
	require.NoError(t, err)
	defer b.Unbind()
	ptr, err := ctx.API().MemAlloc(size)
	require.NoError(t, err)
	return ptr
}

// memRawFree frees raw memory the way the other library would.
func memRawFree(ctx *driver.Context, ptr uintptr) error {
	b, err := ctx.Bind()
	if err != nil {
		return err
	}
	defer b.Unbind()
	return ctx.API().MemFree(ptr)
}

// memRawRead reads n float32 at ptr with a raw cuMemcpyDtoH.
func memRawRead(t *testing.T, ctx *driver.Context, ptr uintptr, n int) []float32 {
	t.Helper()
	b, err := ctx.Bind()
	require.NoError(t, err)
	defer b.Unbind()
	out := make([]float32, n)
	require.NoError(t, ctx.API().MemcpyDtoH(unsafe.Pointer(unsafe.SliceData(out)), ptr, uintptr(4*n)))
	return out
}

func testMemBorrow(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	const n = 1 << 18
	ptr := memRawAlloc(t, ctx, 4*n)

	// "Another library" writes its tensor; we borrow it and see the data.
	other := memIota(n, 1)
	bd, err := ctx.Bind()
	require.NoError(t, err)
	err = ctx.API().MemcpyHtoD(ptr, unsafe.Pointer(unsafe.SliceData(other)), 4*n)
	bd.Unbind()
	require.NoError(t, err)

	type tensor struct{ name string }
	owner := &tensor{"theirs"}
	b, err := memory.Borrow[float32](ctx, ptr, n, owner)
	require.NoError(t, err)
	assert.False(t, b.Owned())
	assert.Equal(t, ptr, b.Ptr())
	assert.Equal(t, n, b.Len())
	assert.Same(t, ctx, b.Context())
	memSame(t, memIota(n, 1), memRead(t, b))

	// Written in place by our copies and fills, read back by the owner.
	require.NoError(t, memory.CopyToDevice(b, memIota(n, 100)))
	memSame(t, memIota(n, 100), memRawRead(t, ctx, ptr, n))
	mid := b.Slice(10, 20)
	err = mid.Err()
	require.NoError(t, err)
	require.NoError(t, memory.Fill(s, mid, float32(-1)))
	require.NoError(t, s.Synchronize())
	got := memRawRead(t, ctx, ptr, n)
	memSame(t, memFilled(10, float32(-1)), got[10:20])
	assert.Equal(t, float32(109), got[9])

	// A borrow of part of the allocation.
	part, err := memory.Borrow[float32](ctx, ptr+4096, 1024, nil)
	require.NoError(t, err)
	memSame(t, memIota(1024, 1124), memRead(t, part))
	require.NoError(t, part.Free())

	// Free never frees the foreign memory: the owner frees it afterwards.
	require.NoError(t, b.Free())
	assert.Zero(t, b.Ptr())
	assert.ErrorIs(t, memory.CopyToDevice(b, memIota(n, 0)), memory.ErrClosed)
	require.NoError(t, b.Free())
	assert.Equal(t, float32(100), memRawRead(t, ctx, ptr, 1)[0], "still valid for its owner")
	require.NoError(t, memRawFree(ctx, ptr), "the owner's cuMemFree succeeds after our Free")
}

func testMemBorrowChecks(t *testing.T, drv *driver.Driver) {
	ctx, _ := memSetup(t, drv)
	const size = 2 << 20
	ptr := memRawAlloc(t, ctx, size)
	defer func() { require.NoError(t, memRawFree(ctx, ptr)) }()

	_, err := memory.Borrow[float32](ctx, 0, 1, nil)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.ErrorContains(t, err, "NULL")
	_, err = memory.Borrow[float32](ctx, ptr+2, 1, nil)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.ErrorContains(t, err, "aligned")
	_, err = memory.Borrow[float32](ctx, ptr, 0, nil)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = memory.Borrow[string](ctx, ptr, 1, nil)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = memory.Borrow[float32](nil, ptr, 1, nil)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)

	// The range must lie inside one allocation.
	_, err = memory.Borrow[byte](ctx, ptr+size/2, size, nil)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.ErrorContains(t, err, "allocation")
	b, err := memory.Borrow[byte](ctx, ptr+size/2, size/2, nil)
	require.NoError(t, err, "up to the end exactly")
	require.NoError(t, b.Free())

	// Host memory is not device memory: pinned memory the driver knows,
	// and Go memory it does not.
	h, err := memory.AllocHost[float32](ctx, 16)
	require.NoError(t, err)
	_, err = memory.Borrow[float32](ctx, memHostAddr(h.Slice()), 16, nil)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.ErrorContains(t, err, "host memory")
	require.NoError(t, h.Free())
	goMem := make([]float32, 16)
	_, err = memory.Borrow[float32](ctx, memHostAddr(goMem), 16, nil)
	assert.Error(t, err)
	assert.ErrorContains(t, err, "memory.Borrow[float32]")

	// Memory that was freed is unknown to the driver.
	gone := memRawAlloc(t, ctx, 4096)
	require.NoError(t, memRawFree(ctx, gone))
	_, err = memory.Borrow[float32](ctx, gone, 16, nil)
	assert.Error(t, err)

	// Memory of another context is ErrWrongContext.
	other, err := ctx.Device().NewContext(0)
	require.NoError(t, err)
	defer func() { require.NoError(t, other.Release()) }()
	theirs := memRawAlloc(t, other, 4096)
	_, err = memory.Borrow[float32](ctx, theirs, 16, nil)
	assert.ErrorIs(t, err, memory.ErrWrongContext)
	assert.ErrorContains(t, err, "context")
	ok, err := memory.Borrow[float32](other, theirs, 16, nil)
	require.NoError(t, err, "borrowed in its own context")
	require.NoError(t, ok.Free())
	require.NoError(t, memRawFree(other, theirs))

	// A released context.
	c2, err := ctx.Device().PrimaryContext()
	require.NoError(t, err)
	require.NoError(t, c2.Release())
	_, err = memory.Borrow[float32](c2, ptr, 16, nil)
	assert.ErrorIs(t, err, memory.ErrClosed)
}

func testMemBorrowPool(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	const n = 1 << 16
	api := drv.API()
	// Stream-ordered pool memory, allocated raw by "another library".
	ptr, err := api.MemAllocAsync(4*n, s.Handle())
	require.NoError(t, err)
	require.NoError(t, s.Synchronize())

	b, err := memory.Borrow[float32](ctx, ptr, n, nil)
	require.NoError(t, err, "pool memory may report no context: the device decides")
	require.NoError(t, memory.CopyToDeviceAsync(s, b, memIota(n, 2)))
	require.NoError(t, s.Synchronize())
	memSame(t, memIota(n, 2), memRawRead(t, ctx, ptr, n))
	require.NoError(t, b.Free())
	require.NoError(t, api.MemFreeAsync(ptr, s.Handle()), "still the owner's to free")
	require.NoError(t, s.Synchronize())

	// Our own stream-ordered buffer, borrowed through its pointer.
	own, err := memory.AllocAsync[float32](s, n)
	require.NoError(t, err)
	require.NoError(t, s.Synchronize())
	view, err := memory.Borrow[float32](ctx, own.Ptr(), n, own)
	require.NoError(t, err)
	require.NoError(t, view.Free())
	require.NoError(t, own.Free())
	require.NoError(t, s.Synchronize())
}

func testMemTwoDevices(t *testing.T, drv *driver.Driver) {
	count, err := drv.DeviceCount()
	require.NoError(t, err)
	if count < 2 {
		t.Skipf("needs two devices, have %d", count)
	}
	ctx0, s0 := memSetup(t, drv)
	dev1, err := drv.Device(1)
	require.NoError(t, err)
	ctx1, err := dev1.PrimaryContext()
	require.NoError(t, err)
	defer func() { require.NoError(t, ctx1.Release()) }()
	s1, err := stream.New(ctx1)
	require.NoError(t, err)
	defer func() { require.NoError(t, s1.Close()) }()

	const n = 4096
	a := memAlloc[float32](t, ctx0, n)
	b, err := memory.Alloc[float32](ctx1, n)
	require.NoError(t, err)
	defer func() { require.NoError(t, b.Free()) }()

	require.NoError(t, memory.CopyToDevice(a, memIota(n, 1)))
	require.NoError(t, memory.CopyDtoD(b, a))
	memSame(t, memIota(n, 1), memRead(t, b))
	require.NoError(t, memory.Fill(s1, b, float32(5)))
	require.NoError(t, memory.CopyDtoDAsync(s1, a, b), "peer copy on the destination's device")
	require.NoError(t, s1.Synchronize())
	memSame(t, memFilled(n, float32(5)), memRead(t, a))
	require.NoError(t, memory.CopyDtoDAsync(s0, b, a), "peer copy on the source's device")
	require.NoError(t, s0.Synchronize())

	// A stream of another device reaches neither side of a host copy.
	err = memory.CopyToDeviceAsync(s0, b, memIota(n, 0))
	assert.ErrorIs(t, err, memory.ErrWrongContext)
	assert.ErrorIs(t, memory.Fill(s0, b, float32(1)), memory.ErrWrongContext)
	memSame(t, memFilled(n, float32(5)), memRead(t, b))

	// Device 1's memory is not device 0's to borrow.
	_, err = memory.Borrow[float32](ctx0, b.Ptr(), n, nil)
	assert.ErrorIs(t, err, memory.ErrWrongContext)
	assert.ErrorContains(t, err, "device 1")

	c, err := memory.AllocAsync[float32](s1, n)
	require.NoError(t, err)
	assert.ErrorIs(t, c.FreeAsync(s0), memory.ErrWrongContext)
	require.NoError(t, c.FreeAsync(s1))
	require.NoError(t, s1.Synchronize())
}
