package drivertest

import (
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

func testMemAlloc(t *testing.T, drv *driver.Driver) {
	ctx, _ := memSetup(t, drv)
	b, err := memory.Alloc[float32](ctx, 1000)
	require.NoError(t, err)
	assert.NotZero(t, b.Ptr())
	assert.Equal(t, 1000, b.Len())
	assert.Equal(t, 4000, b.Size())
	assert.True(t, b.Owned())
	assert.False(t, b.StreamOrdered())
	assert.False(t, b.IsView())
	assert.Same(t, ctx, b.Context())

	// The driver sees device memory of this context and device, at least
	// as large as asked.
	api := drv.API()
	mt, err := api.PointerGetAttribute(driver.PointerAttrMemoryType, b.Ptr())
	require.NoError(t, err)
	assert.Equal(t, uint64(driver.MemoryTypeDevice), mt)
	owner, err := api.PointerGetAttribute(driver.PointerAttrContext, b.Ptr())
	require.NoError(t, err)
	assert.Equal(t, uint64(ctx.Handle()), owner)
	bd, err := ctx.Bind()
	require.NoError(t, err)
	base, size, err := api.MemGetAddressRange(b.Ptr())
	bd.Unbind()
	require.NoError(t, err)
	assert.Equal(t, b.Ptr(), base)
	assert.GreaterOrEqual(t, size, uintptr(4000))

	// A struct element type of fixed size works like any other.
	type pair struct {
		A int32
		B float32
	}
	p := memAlloc[pair](t, ctx, 3)
	assert.Equal(t, 24, p.Size())
	want := []pair{{1, 1.5}, {2, 2.5}, {3, 3.5}}
	require.NoError(t, memory.CopyToDevice(p, want))
	assert.Equal(t, want, memRead(t, p))

	require.NoError(t, b.Free())
	assert.Zero(t, b.Ptr())
}

func testMemAllocErrors(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	for _, n := range []int{0, -1, math.MinInt} {
		_, err := memory.Alloc[float32](ctx, n)
		assert.ErrorIs(t, err, driver.ErrInvalidValue, "n=%d", n)
		assert.ErrorContains(t, err, "memory.Alloc[float32]")
		_, err = memory.AllocAsync[float32](s, n)
		assert.ErrorIs(t, err, driver.ErrInvalidValue, "async n=%d", n)
		_, err = memory.AllocHost[float32](ctx, n)
		assert.ErrorIs(t, err, driver.ErrInvalidValue, "host n=%d", n)
	}
	_, err := memory.Alloc[float64](ctx, math.MaxInt/4)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.ErrorContains(t, err, "overflow")

	// Types that cannot live in device memory are refused before any call.
	type withPtr struct {
		A int
		P *int
	}
	type nested struct{ X [2]withPtr }
	assertRefused := func(err error, what string) {
		t.Helper()
		assert.ErrorIs(t, err, driver.ErrInvalidValue, what)
		assert.ErrorContains(t, err, "element type", what)
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
	assert.ErrorContains(t, err, "field P")
	_, err = memory.Alloc[struct{}](ctx, 1)
	assertRefused(err, "zero size")
	_, err = memory.Alloc[[0]float32](ctx, 1)
	assertRefused(err, "zero-length array")
	_, err = memory.AllocAsync[*int](s, 1)
	assertRefused(err, "async pointer")
	_, err = memory.AllocHost[string](ctx, 1)
	assertRefused(err, "host string")

	_, err = memory.Alloc[float32](nil, 1)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = memory.AllocAsync[float32](nil, 1)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)

	// More memory than any device has: the driver's out-of-memory error,
	// wrapped.
	_, err = memory.Alloc[byte](ctx, 1<<52)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory)
	assert.ErrorContains(t, err, "cuMemAlloc")

	// A released context, a closed stream.
	dev := ctx.Device()
	c2, err := dev.PrimaryContext()
	require.NoError(t, err)
	require.NoError(t, c2.Release())
	_, err = memory.Alloc[float32](c2, 1)
	assert.ErrorIs(t, err, driver.ErrClosed)
	s2, err := stream.New(ctx)
	require.NoError(t, err)
	require.NoError(t, s2.Close())
	_, err = memory.AllocAsync[float32](s2, 1)
	assert.ErrorIs(t, err, driver.ErrClosed)
}

func testMemFree(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	b, err := memory.Alloc[int32](ctx, 16)
	require.NoError(t, err)
	v := b.Slice(0, 8)
	err = v.Err()
	require.NoError(t, err)
	require.NoError(t, b.Free())
	require.NoError(t, b.Free(), "a second Free is a no-op")
	assert.Zero(t, b.Ptr())
	assert.Zero(t, v.Ptr(), "a view of freed memory has no pointer")
	assert.Equal(t, 16, b.Len())

	host := make([]int32, 16)
	assert.ErrorIs(t, memory.CopyToDevice(b, host), memory.ErrClosed)
	assert.ErrorIs(t, memory.CopyToHost(host, b), memory.ErrClosed)
	assert.ErrorIs(t, memory.CopyToDeviceAsync(s, b, host), memory.ErrClosed)
	assert.ErrorIs(t, memory.CopyToHostAsync(s, host, b), memory.ErrClosed)
	assert.ErrorIs(t, memory.Fill(s, b, 1), memory.ErrClosed)
	assert.ErrorIs(t, memory.CopyToDevice(v, host[:8]), memory.ErrClosed)
	err = b.Slice(0, 1).Err()
	assert.ErrorIs(t, err, memory.ErrClosed)
	err = b.Bytes().Err()
	assert.ErrorIs(t, err, memory.ErrClosed)
	_, err = b.IPCHandle()
	assert.ErrorIs(t, err, memory.ErrClosed)
	require.NoError(t, v.Free(), "Free of a view of freed memory is a no-op")

	other := memAlloc[int32](t, ctx, 16)
	assert.ErrorIs(t, memory.CopyDtoD(other, b), memory.ErrClosed)
	assert.ErrorIs(t, memory.CopyDtoDAsync(s, b, other), memory.ErrClosed)

	// FreeAsync is for stream-ordered memory only, and changes nothing
	// when refused.
	c := memAlloc[int32](t, ctx, 4)
	assert.ErrorIs(t, c.FreeAsync(s), driver.ErrInvalidValue)
	require.NoError(t, memory.CopyToDevice(c, []int32{1, 2, 3, 4}))
	assert.Equal(t, []int32{1, 2, 3, 4}, memRead(t, c))

	// Nil and zero buffers are errors, never panics.
	var nilBuf *memory.Buffer[int32]
	assert.NoError(t, nilBuf.Free())
	assert.Zero(t, nilBuf.Ptr())
	assert.ErrorIs(t, memory.CopyToDevice(nilBuf, host), driver.ErrInvalidValue)
	assert.ErrorIs(t, memory.CopyToDevice(&memory.Buffer[int32]{}, host), driver.ErrInvalidValue)
	assert.ErrorIs(t, memory.Fill(s, nilBuf, 0), driver.ErrInvalidValue)
}

func testMemViews(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	b := memAlloc[float32](t, ctx, 10)
	require.NoError(t, memory.CopyToDevice(b, make([]float32, 10)))

	v := b.Slice(2, 5)
	err := v.Err()
	require.NoError(t, err)
	assert.Equal(t, 3, v.Len())
	assert.Equal(t, 12, v.Size())
	assert.Equal(t, b.Ptr()+8, v.Ptr())
	assert.False(t, v.Owned())
	assert.True(t, v.IsView())
	assert.Same(t, ctx, v.Context())
	require.NoError(t, memory.CopyToDevice(v, []float32{7, 8, 9}))
	assert.Equal(t, []float32{0, 0, 7, 8, 9, 0, 0, 0, 0, 0}, memRead(t, b))

	vv := v.Slice(1, 3)
	err = vv.Err()
	require.NoError(t, err)
	assert.Equal(t, []float32{8, 9}, memRead(t, vv))
	require.NoError(t, memory.Fill(s, vv, float32(1)))
	require.NoError(t, s.Synchronize())
	assert.Equal(t, []float32{0, 0, 7, 1, 1, 0, 0, 0, 0, 0}, memRead(t, b))

	for _, r := range [][2]int{{-1, 2}, {0, 11}, {3, 3}, {5, 2}} {
		bad := b.Slice(r[0], r[1])
		assert.ErrorIs(t, bad.Err(), driver.ErrInvalidValue, "Slice(%d, %d)", r[0], r[1])
		// A bad view carries its error to every use, and is never memory.
		assert.Zero(t, bad.Ptr())
		assert.Zero(t, bad.Len())
		assert.ErrorIs(t, memory.CopyToDevice(bad, []float32{1}), driver.ErrInvalidValue)
		assert.ErrorIs(t, memory.Fill(s, bad, float32(1)), driver.ErrInvalidValue)
		assert.NoError(t, bad.Free(), "freeing a bad view does nothing")
	}
	err = v.Slice(0, 4).Err()
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "a view's bounds are its own")

	// Freeing a view detaches it only.
	require.NoError(t, v.Free())
	assert.Zero(t, v.Ptr())
	assert.ErrorIs(t, memory.CopyToDevice(v, []float32{1, 2, 3}), memory.ErrClosed)
	assert.NotZero(t, b.Ptr())
	assert.NotZero(t, vv.Ptr(), "views of the memory stay usable")
	assert.Equal(t, []float32{0, 0, 7, 1, 1, 0, 0, 0, 0, 0}, memRead(t, b))

	// Bytes views copy between element types explicitly.
	u := memAlloc[uint32](t, ctx, 10)
	bb := b.Bytes()
	err = bb.Err()
	require.NoError(t, err)
	assert.Equal(t, 40, bb.Len())
	ub := u.Bytes()
	err = ub.Err()
	require.NoError(t, err)
	require.NoError(t, memory.CopyDtoD(ub, bb))
	got := memRead(t, u)
	assert.Equal(t, uint32(0x40e00000), got[2], "7.0f as bits")
	assert.Equal(t, uint32(0x3f800000), got[3], "1.0f as bits")
}

func testMemAllocAsync(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	b, err := memory.AllocAsync[float32](s, 256)
	require.NoError(t, err)
	assert.True(t, b.Owned())
	assert.True(t, b.StreamOrdered())
	assert.Same(t, ctx, b.Context())
	assert.NotZero(t, b.Ptr())
	require.NoError(t, memory.Fill(s, b, float32(2.5)))
	out := make([]float32, 256)
	require.NoError(t, memory.CopyToHostAsync(s, out, b))
	require.NoError(t, b.FreeAsync(s))
	require.NoError(t, s.Synchronize())
	memSame(t, memFilled(256, float32(2.5)), out)
	assert.Zero(t, b.Ptr())
	require.NoError(t, b.FreeAsync(s), "second FreeAsync is a no-op")
	require.NoError(t, b.Free(), "Free after FreeAsync is a no-op")

	// Free frees in stream order on the allocation stream.
	c, err := memory.AllocAsync[int32](s, 64)
	require.NoError(t, err)
	require.NoError(t, memory.Fill(s, c, int32(-1)))
	require.NoError(t, c.Free())
	require.NoError(t, s.Synchronize())
	assert.ErrorIs(t, memory.Fill(s, c, int32(0)), memory.ErrClosed)

	// Freed on another stream, after it waits for the allocation stream.
	s2, err := stream.New(ctx, stream.WithFlags(stream.NonBlocking))
	require.NoError(t, err)
	d, err := memory.AllocAsync[int32](s, 64)
	require.NoError(t, err)
	require.NoError(t, memory.Fill(s, d, int32(3)))
	require.NoError(t, s2.WaitStream(s))
	require.NoError(t, d.FreeAsync(s2))
	require.NoError(t, s2.Synchronize())

	// When the allocation stream is closed, Free synchronizes the context
	// and frees the memory all the same.
	e, err := memory.AllocAsync[int32](s2, 64)
	require.NoError(t, err)
	require.NoError(t, memory.Fill(s2, e, int32(4)))
	require.NoError(t, s2.Synchronize())
	require.NoError(t, s2.Close())
	assert.ErrorIs(t, e.FreeAsync(s2), memory.ErrClosed, "a closed stream cannot free")
	assert.NotZero(t, e.Ptr(), "a refused FreeAsync changes nothing")
	memSame(t, memFilled(64, int32(4)), memRead(t, e))
	require.NoError(t, e.Free())
	assert.Zero(t, e.Ptr())

	// Views and foreign buffers cannot be freed in stream order.
	f, err := memory.AllocAsync[int32](s, 8)
	require.NoError(t, err)
	fv := f.Slice(0, 4)
	err = fv.Err()
	require.NoError(t, err)
	assert.ErrorIs(t, fv.FreeAsync(s), driver.ErrInvalidValue)
	require.NoError(t, s.Synchronize())
	br, err := memory.Borrow[int32](ctx, f.Ptr(), 8, nil)
	require.NoError(t, err)
	assert.ErrorIs(t, br.FreeAsync(s), driver.ErrInvalidValue)
	require.NoError(t, br.Free())
	require.NoError(t, f.FreeAsync(s))
	require.NoError(t, s.Synchronize())
}

func testMemHost(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	h, err := memory.AllocHost[float32](ctx, 100)
	require.NoError(t, err)
	assert.Equal(t, 100, h.Len())
	assert.Equal(t, 400, h.Size())
	assert.Same(t, ctx, h.Context())
	hs := h.Slice()
	require.Len(t, hs, 100)
	copy(hs, memIota(100, 1))

	// The driver knows it as host memory.
	mt, err := drv.API().PointerGetAttribute(driver.PointerAttrMemoryType, memHostAddr(hs))
	require.NoError(t, err)
	assert.Equal(t, uint64(driver.MemoryTypeHost), mt)

	d := memAlloc[float32](t, ctx, 100)
	require.NoError(t, memory.CopyToDeviceAsync(s, d, hs))
	require.NoError(t, s.Synchronize())
	back, err := memory.AllocHost[float32](ctx, 100)
	require.NoError(t, err)
	require.NoError(t, memory.CopyToHostAsync(s, back.Slice(), d))
	require.NoError(t, s.Synchronize())
	memSame(t, memIota(100, 1), back.Slice())

	require.NoError(t, h.Free())
	assert.Nil(t, h.Slice())
	require.NoError(t, h.Free(), "a second Free is a no-op")
	require.NoError(t, back.Free())
}

func testMemIPCExport(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	b := memAlloc[float32](t, ctx, 1024)
	h, err := b.IPCHandle()
	require.NoError(t, err)
	assert.NotEqual(t, driver.IPCHandle{}, h)

	v := b.Slice(0, 512)
	err = v.Err()
	require.NoError(t, err)
	_, err = v.IPCHandle()
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "views cannot be exported")

	a, err := memory.AllocAsync[float32](s, 1024)
	require.NoError(t, err)
	_, err = a.IPCHandle()
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "stream-ordered memory cannot be exported")
	require.NoError(t, a.FreeAsync(s))
	require.NoError(t, s.Synchronize())

	br, err := memory.Borrow[float32](ctx, b.Ptr(), 1024, nil)
	require.NoError(t, err)
	_, err = br.IPCHandle()
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "borrowed memory cannot be exported")
	require.NoError(t, br.Free())

	_, err = memory.OpenIPC[float32](ctx, driver.IPCHandle{}, 1)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "the zero handle")
	_, err = memory.OpenIPC[float32](ctx, h, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "n=0")
	_, err = memory.OpenIPC[string](ctx, h, 1)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "bad element type")
}

// memHostAddr is the address of a host slice's first element, as the driver
// sees it.
func memHostAddr[T any](s []T) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(s))) }
