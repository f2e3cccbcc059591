package memory_test

import (
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// countingAPI is the fake backend with a record of the calls this package
// can make for a buffer: context binding, synchronisation, allocation,
// freeing, copies, memsets and the pointer checks.
type countingAPI struct {
	fake.Backend
	mu    sync.Mutex
	calls []string
}

func (c *countingAPI) add(name string) {
	c.mu.Lock()
	c.calls = append(c.calls, name)
	c.mu.Unlock()
}

// take returns the calls recorded since the last take.
func (c *countingAPI) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	calls := c.calls
	c.calls = nil
	return calls
}

func (c *countingAPI) CtxGetCurrent() (uintptr, error) {
	c.add("cuCtxGetCurrent")
	return c.Backend.CtxGetCurrent()
}
func (c *countingAPI) CtxPushCurrent(ctx uintptr) error {
	c.add("cuCtxPushCurrent")
	return c.Backend.CtxPushCurrent(ctx)
}
func (c *countingAPI) CtxPopCurrent() (uintptr, error) {
	c.add("cuCtxPopCurrent")
	return c.Backend.CtxPopCurrent()
}
func (c *countingAPI) CtxSynchronize() error {
	c.add("cuCtxSynchronize")
	return c.Backend.CtxSynchronize()
}
func (c *countingAPI) StreamSynchronize(s uintptr) error {
	c.add("cuStreamSynchronize")
	return c.Backend.StreamSynchronize(s)
}
func (c *countingAPI) MemAlloc(size uintptr) (uintptr, error) {
	c.add("cuMemAlloc")
	return c.Backend.MemAlloc(size)
}
func (c *countingAPI) MemFree(ptr uintptr) error {
	c.add("cuMemFree")
	return c.Backend.MemFree(ptr)
}
func (c *countingAPI) MemAllocAsync(size, s uintptr) (uintptr, error) {
	c.add("cuMemAllocAsync")
	return c.Backend.MemAllocAsync(size, s)
}
func (c *countingAPI) MemFreeAsync(ptr, s uintptr) error {
	c.add("cuMemFreeAsync")
	return c.Backend.MemFreeAsync(ptr, s)
}
func (c *countingAPI) MemHostAlloc(size uintptr, flags uint32) (unsafe.Pointer, error) {
	c.add("cuMemHostAlloc")
	return c.Backend.MemHostAlloc(size, flags)
}
func (c *countingAPI) MemFreeHost(p unsafe.Pointer) error {
	c.add("cuMemFreeHost")
	return c.Backend.MemFreeHost(p)
}
func (c *countingAPI) MemcpyHtoD(dst uintptr, src unsafe.Pointer, n uintptr) error {
	c.add("cuMemcpyHtoD")
	return c.Backend.MemcpyHtoD(dst, src, n)
}
func (c *countingAPI) MemcpyDtoH(dst unsafe.Pointer, src, n uintptr) error {
	c.add("cuMemcpyDtoH")
	return c.Backend.MemcpyDtoH(dst, src, n)
}
func (c *countingAPI) MemcpyDtoD(dst, src, n uintptr) error {
	c.add("cuMemcpyDtoD")
	return c.Backend.MemcpyDtoD(dst, src, n)
}
func (c *countingAPI) MemcpyPeer(dst, dstCtx, src, srcCtx, n uintptr) error {
	c.add("cuMemcpyPeer")
	return c.Backend.MemcpyPeer(dst, dstCtx, src, srcCtx, n)
}
func (c *countingAPI) MemcpyHtoDAsync(dst uintptr, src unsafe.Pointer, n, s uintptr) error {
	c.add("cuMemcpyHtoDAsync")
	return c.Backend.MemcpyHtoDAsync(dst, src, n, s)
}
func (c *countingAPI) MemcpyDtoHAsync(dst unsafe.Pointer, src, n, s uintptr) error {
	c.add("cuMemcpyDtoHAsync")
	return c.Backend.MemcpyDtoHAsync(dst, src, n, s)
}
func (c *countingAPI) MemcpyDtoDAsync(dst, src, n, s uintptr) error {
	c.add("cuMemcpyDtoDAsync")
	return c.Backend.MemcpyDtoDAsync(dst, src, n, s)
}
func (c *countingAPI) MemcpyPeerAsync(dst, dstCtx, src, srcCtx, n, s uintptr) error {
	c.add("cuMemcpyPeerAsync")
	return c.Backend.MemcpyPeerAsync(dst, dstCtx, src, srcCtx, n, s)
}
func (c *countingAPI) MemsetD8Async(dst uintptr, v uint8, n, s uintptr) error {
	c.add("cuMemsetD8Async")
	return c.Backend.MemsetD8Async(dst, v, n, s)
}
func (c *countingAPI) MemsetD16Async(dst uintptr, v uint16, n, s uintptr) error {
	c.add("cuMemsetD16Async")
	return c.Backend.MemsetD16Async(dst, v, n, s)
}
func (c *countingAPI) MemsetD32Async(dst uintptr, v uint32, n, s uintptr) error {
	c.add("cuMemsetD32Async")
	return c.Backend.MemsetD32Async(dst, v, n, s)
}
func (c *countingAPI) PointerGetAttribute(attr backend.PointerAttribute, ptr uintptr) (uint64, error) {
	c.add("cuPointerGetAttribute")
	return c.Backend.PointerGetAttribute(attr, ptr)
}
func (c *countingAPI) MemGetAddressRange(ptr uintptr) (uintptr, uintptr, error) {
	c.add("cuMemGetAddressRange")
	return c.Backend.MemGetAddressRange(ptr)
}
func (c *countingAPI) IPCGetMemHandle(ptr uintptr) (driver.IPCHandle, error) {
	c.add("cuIpcGetMemHandle")
	return c.Backend.IPCGetMemHandle(ptr)
}

var _ backend.API = (*countingAPI)(nil)

// TestEmptyMakesNoDriverCalls: empty buffers are made and closed, and
// copies and fills of zero elements succeed or fail their checks, without a
// single driver call, on ordinary and special streams alike.
func TestEmptyMakesNoDriverCalls(t *testing.T) {
	api := &countingAPI{Backend: fake.NewBackend()}
	drv, err := driver.New(api)
	require.NoError(t, err)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	legacy, err := stream.Legacy(ctx)
	require.NoError(t, err)
	full, err := memory.Alloc[float32](ctx, 8)
	require.NoError(t, err)
	api.take()

	e, err := memory.Alloc[float32](ctx, 0)
	require.NoError(t, err)
	a, err := memory.AllocAsync[float32](s, 0)
	require.NoError(t, err)
	al, err := memory.AllocAsync[float32](legacy, 0)
	require.NoError(t, err)
	h, err := memory.AllocHost[float32](ctx, 0)
	require.NoError(t, err)
	end, err := full.Slice(8, 8)
	require.NoError(t, err)
	head, err := full.Slice(0, 0)
	require.NoError(t, err)
	eb, err := e.Bytes()
	require.NoError(t, err)
	assert.Empty(t, api.take(), "making empty buffers and views")

	for _, b := range []*memory.Buffer[float32]{e, a, al, end, head} {
		for _, q := range []*stream.Stream{s, legacy} {
			require.NoError(t, memory.CopyToDevice(b, nil))
			require.NoError(t, memory.CopyToHost(h.Slice(), b))
			require.NoError(t, memory.CopyToDeviceAsync(q, b, h.Slice()))
			require.NoError(t, memory.CopyToHostAsync(q, nil, b))
			require.NoError(t, memory.CopyDtoD(full, b))
			require.NoError(t, memory.CopyDtoD(b, e))
			require.NoError(t, memory.CopyDtoDAsync(q, full, b))
			require.NoError(t, memory.Fill(q, b, 1))
		}
	}
	require.NoError(t, memory.CopyToDevice(full, nil), "an empty source into a full buffer")
	require.NoError(t, memory.Fill(s, eb, 0xff))
	assert.Empty(t, api.take(), "copies and fills of zero elements")

	closed, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	require.NoError(t, closed.Close())
	api.take()
	assert.ErrorIs(t, memory.Fill(closed, e, 0), driver.ErrClosed)
	assert.ErrorIs(t, memory.CopyToHostAsync(closed, nil, end), driver.ErrClosed)
	assert.ErrorIs(t, memory.CopyDtoDAsync(nil, e, e), driver.ErrInvalidValue)
	assert.ErrorIs(t, a.FreeAsync(closed), driver.ErrClosed)
	assert.Empty(t, api.take(), "refused copies of zero elements")

	require.NoError(t, a.FreeAsync(s))
	for _, c := range []interface{ Close() error }{e, al, h, end, head, eb} {
		require.NoError(t, c.Close())
	}
	assert.Empty(t, api.take(), "closing empty buffers and views")
	assert.ErrorIs(t, memory.CopyToDevice(e, nil), driver.ErrClosed)
	assert.ErrorIs(t, memory.Fill(s, a, 0), driver.ErrClosed)
	assert.Nil(t, h.Slice())
	assert.Empty(t, api.take(), "using closed empty buffers")

	require.NoError(t, full.Close())
	calls := api.take()
	assert.Contains(t, calls, "cuMemFree", "the counting backend sees the driver calls: %s", strings.Join(calls, ", "))
	require.NoError(t, legacy.Close())
	require.NoError(t, s.Close())
	var left []string
	for _, l := range api.Leaks() {
		if l.Kind != backend.LeakPrimaryContext {
			left = append(left, l.String())
		}
	}
	assert.Empty(t, left)
	require.NoError(t, ctx.Close())
	assert.Empty(t, api.Leaks())
}

// TestEmptyHostBuffer: an empty HostBuffer's Slice is empty but not nil
// until Close, and it holds its context like any other (see hold_test.go).
func TestEmptyHostBuffer(t *testing.T) {
	drv, ctx := ownedCtx(t)
	api := fake.Of(drv).Backend()
	h := ctx.Handle()
	hb, err := memory.AllocHost[int16](ctx, 0)
	require.NoError(t, err)
	assert.NotNil(t, hb.Slice())
	assert.Empty(t, hb.Slice())
	assert.Zero(t, hb.Size())
	require.NoError(t, ctx.Close())
	assert.True(t, ctxAlive(t, api, h), "the empty buffer holds its context")
	require.NoError(t, hb.Close())
	assert.False(t, ctxAlive(t, api, h), "destroyed with the last Close")
	assert.Nil(t, hb.Slice())
	require.NoError(t, hb.Close(), "a second Close is a no-op")

	var zero memory.HostBuffer[int16]
	assert.Nil(t, zero.Slice(), "a zero HostBuffer is no memory")
	assert.ErrorIs(t, zero.Close(), driver.ErrInvalidValue, "a zero HostBuffer is refused, as every zero value is")
}

// TestSliceErrors: bad bounds are an error that says the bounds and the
// length, and no view; a freed buffer is driver.ErrClosed; a nil one is
// ErrInvalidValue.
func TestSliceErrors(t *testing.T) {
	_, ctx, _ := setup(t)
	b, err := memory.Alloc[uint8](ctx, 5)
	require.NoError(t, err)
	v, err := b.Slice(1, 7)
	assert.Nil(t, v)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.ErrorContains(t, err, "memory.Buffer.Slice: [1:7]")
	assert.ErrorContains(t, err, "len 5")
	for _, r := range [][2]int{{0, 0}, {5, 5}, {2, 2}, {0, 5}} {
		v, err := b.Slice(r[0], r[1])
		require.NoError(t, err)
		assert.Equal(t, r[1]-r[0], v.Len())
	}
	var nb *memory.Buffer[uint8]
	v, err = nb.Slice(0, 0)
	assert.Nil(t, v)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	bv, err := nb.Bytes()
	assert.Nil(t, bv)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	require.NoError(t, b.Close())
	v, err = b.Slice(0, 0)
	assert.Nil(t, v)
	assert.ErrorIs(t, err, driver.ErrClosed)
}
