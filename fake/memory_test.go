package fake

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

func TestAllocationsArePoisonedAndSeparated(t *testing.T) {
	b := bound(t)
	p, err := b.MemAlloc(1000)
	require.NoError(t, err)
	q, err := b.MemAlloc(1000)
	require.NoError(t, err)
	assert.Zero(t, p%512)
	assert.Zero(t, q%512)
	for _, v := range readDevice(t, b, p, 1000) {
		require.Equal(t, byte(0xA5), v, "fresh memory is poisoned, not zeroed")
	}
	// One past the end lands in no allocation.
	var x byte
	assert.ErrorIs(t, b.MemcpyDtoH(unsafe.Pointer(&x), p+1000, 1), driver.ErrInvalidValue)
	_, err = b.PointerGetAttribute(backend.PointerAttrRangeStart, p+1000)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	base, size, err := b.MemGetAddressRange(p + 100)
	require.NoError(t, err)
	assert.Equal(t, []uintptr{p, 1000}, []uintptr{base, size})
	_, _, err = b.MemGetAddressRange(p + 1000)
	assert.ErrorIs(t, err, driver.ErrNotFound)
	require.NoError(t, b.MemFree(p))
	require.NoError(t, b.MemFree(q))
}

func TestOutOfBoundsCopiesChangeNothing(t *testing.T) {
	b := bound(t)
	p, err := b.MemAlloc(16)
	require.NoError(t, err)
	defer b.MemFree(p)
	require.NoError(t, b.MemsetD8(p, 1, 16))
	src := make([]byte, 32)
	assert.ErrorIs(t, b.MemcpyHtoD(p, unsafe.Pointer(&src[0]), 32), driver.ErrInvalidValue)
	assert.ErrorIs(t, b.MemsetD8(p+8, 0, 9), driver.ErrInvalidValue)
	assert.ErrorIs(t, b.MemcpyDtoD(p, p+8, 16), driver.ErrInvalidValue)
	assert.ErrorIs(t, b.MemsetD32Async(p+12, 0, 2, 0), driver.ErrInvalidValue)
	assert.ErrorIs(t, b.MemsetD32(p+2, 0, 1), driver.ErrInvalidValue, "misaligned")
	assert.ErrorIs(t, b.MemsetD16(p+1, 0, 1), driver.ErrInvalidValue, "misaligned")
	require.NoError(t, b.CtxSynchronize())
	for _, v := range readDevice(t, b, p, 16) {
		require.Equal(t, byte(1), v)
	}
	require.NoError(t, b.MemsetD16(p+2, 0x0302, 2))
	assert.Equal(t, []byte{1, 1, 2, 3, 2, 3, 1}, readDevice(t, b, p, 7))
}

func TestAllocErrors(t *testing.T) {
	b := bound(t, WithDevice(DeviceSpec{TotalMem: 4096}))
	_, err := b.MemAlloc(0)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = b.MemAlloc(4097)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory)
	p, err := b.MemAlloc(4096)
	require.NoError(t, err)
	free, total, err := b.MemGetInfo()
	require.NoError(t, err)
	assert.Equal(t, []uint64{0, 4096}, []uint64{free, total})
	_, err = b.MemAlloc(1)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory)
	assert.ErrorIs(t, b.MemFree(p+8), driver.ErrInvalidValue)
	assert.NoError(t, b.MemFree(0))
	require.NoError(t, b.MemFree(p))
	assert.ErrorIs(t, b.MemFree(p), driver.ErrInvalidValue, "double free")
	free, _, err = b.MemGetInfo()
	require.NoError(t, err)
	assert.Equal(t, uint64(4096), free)
}

func TestStreamOrderedMemory(t *testing.T) {
	b := bound(t)
	s, err := b.StreamCreateWithPriority(0, 0)
	require.NoError(t, err)
	defer b.StreamDestroy(s)
	p, err := b.MemAllocAsync(256, s)
	require.NoError(t, err)
	ctx, err := b.PointerGetAttribute(backend.PointerAttrContext, p)
	require.NoError(t, err)
	assert.Zero(t, ctx, "pool memory has no context")
	pool, err := b.PointerGetAttribute(backend.PointerAttrMempool, p)
	require.NoError(t, err)
	assert.NotZero(t, pool)
	require.NoError(t, b.MemsetD8Async(p, 9, 256, s))
	require.NoError(t, b.MemFreeAsync(p, s))
	assert.ErrorIs(t, b.MemFreeAsync(p, s), driver.ErrInvalidValue, "already being freed")
	_, err = b.PointerGetAttribute(backend.PointerAttrRangeSize, p)
	require.NoError(t, err, "still allocated until the stream reaches the free")
	require.NoError(t, b.StreamSynchronize(s))
	_, err = b.PointerGetAttribute(backend.PointerAttrRangeSize, p)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	z, err := b.MemAllocAsync(0, s)
	require.NoError(t, err, "a zero-byte stream-ordered allocation succeeds")
	assert.Zero(t, z)
}

func TestAsyncHostCopiesPageableVsPinned(t *testing.T) {
	b := bound(t)
	s, err := b.StreamCreateWithPriority(0, 0)
	require.NoError(t, err)
	defer b.StreamDestroy(s)
	p, err := b.MemAlloc(8)
	require.NoError(t, err)
	defer b.MemFree(p)

	pageable := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	require.NoError(t, b.MemcpyHtoDAsync(p, unsafe.Pointer(&pageable[0]), 8, s))
	pageable[0] = 99 // after enqueue: the staged copy keeps the old byte
	require.NoError(t, b.StreamSynchronize(s))
	assert.Equal(t, byte(1), readDevice(t, b, p, 1)[0])

	hp, err := b.MemHostAlloc(8, 0)
	require.NoError(t, err)
	pinned := unsafe.Slice((*byte)(hp), 8)
	pinned[0] = 1
	require.NoError(t, b.MemcpyHtoDAsync(p, hp, 8, s))
	pinned[0] = 42 // pinned memory is read when the copy runs
	require.NoError(t, b.StreamSynchronize(s))
	assert.Equal(t, byte(42), readDevice(t, b, p, 1)[0])

	typ, err := b.PointerGetAttribute(backend.PointerAttrMemoryType, uintptr(hp))
	require.NoError(t, err)
	assert.Equal(t, uint64(backend.MemoryTypeHost), typ)
	hptr, err := b.PointerGetAttribute(backend.PointerAttrHostPointer, uintptr(hp)+4)
	require.NoError(t, err)
	assert.Equal(t, uint64(uintptr(hp)+4), hptr)
	typ, err = b.PointerGetAttribute(backend.PointerAttrMemoryType, p)
	require.NoError(t, err)
	assert.Equal(t, uint64(backend.MemoryTypeDevice), typ)
	_, err = b.PointerGetAttribute(backend.PointerAttrMemoryType, uintptr(unsafe.Pointer(&pageable[0])))
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "plain Go memory is unknown to the driver")
	assert.ErrorIs(t, b.MemFreeHost(unsafe.Add(hp, 1)), driver.ErrInvalidValue)
	require.NoError(t, b.MemFreeHost(hp))
	runtime.KeepAlive(pageable)
}

func TestPeerCopiesAcrossDevices(t *testing.T) {
	b := newBackend(Devices(2))
	require.NoError(t, b.Init(0))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, err := b.CtxCreate(0, 0)
	require.NoError(t, err)
	defer b.CtxDestroy(c0)
	p0, err := b.MemAlloc(4)
	require.NoError(t, err)
	require.NoError(t, b.MemsetD32(p0, 0xdeadbeef, 1))
	c1, err := b.CtxCreate(0, 1)
	require.NoError(t, err)
	defer b.CtxDestroy(c1)
	p1, err := b.MemAlloc(4)
	require.NoError(t, err)
	dev, err := b.PointerGetAttribute(backend.PointerAttrDeviceOrdinal, p1)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), dev)
	require.NoError(t, b.MemcpyPeer(p1, c1, p0, c0, 4))
	var v uint32
	require.NoError(t, b.MemcpyDtoH(unsafe.Pointer(&v), p1, 4))
	assert.Equal(t, uint32(0xdeadbeef), v)
	require.NoError(t, b.CtxEnablePeerAccess(c0, 0))
	assert.ErrorIs(t, b.CtxEnablePeerAccess(c0, 0), driver.ErrPeerAccessAlreadyEnabled)
}

func TestIPCBetweenBackends(t *testing.T) {
	exporter := bound(t)
	p, err := exporter.MemAlloc(64)
	require.NoError(t, err)
	require.NoError(t, exporter.MemsetD8(p, 7, 64))
	h, err := exporter.IPCGetMemHandle(p)
	require.NoError(t, err)
	_, err = exporter.IPCOpenMemHandle(h, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidContext, "opening in the exporting process")

	importer := newBackend()
	require.NoError(t, importer.Init(0))
	ctx, err := importer.CtxCreate(0, 0)
	require.NoError(t, err)
	defer func() { require.NoError(t, importer.CtxDestroy(ctx)) }()
	q, err := importer.IPCOpenMemHandle(h, backend.IPCMemLazyEnablePeerAccess)
	require.NoError(t, err)
	assert.Equal(t, byte(7), readDevice(t, importer, q, 1)[0], "the mapping shows the exporter's bytes")
	require.NoError(t, importer.MemsetD8(q, 8, 1))
	assert.Equal(t, byte(8), readDevice(t, exporter, p, 1)[0], "and writes go to the same storage")
	leaks := importer.Leaks()
	require.Len(t, leaks, 2)
	assert.Equal(t, backend.LeakIPCMapping, leaks[1].Kind, "an open mapping is listed until closed")
	assert.ErrorIs(t, importer.MemFree(q), driver.ErrInvalidValue, "a mapping is never the opener's to free")
	require.NoError(t, importer.IPCCloseMemHandle(q))
	assert.Len(t, importer.Leaks(), 1)
	assert.ErrorIs(t, importer.IPCCloseMemHandle(q), driver.ErrInvalidValue)

	ev, err := exporter.EventCreate(backend.EventInterprocess | backend.EventDisableTiming)
	require.NoError(t, err)
	eh, err := exporter.IPCGetEventHandle(ev)
	require.NoError(t, err)
	iev, err := importer.IPCOpenEventHandle(eh)
	require.NoError(t, err)
	require.NoError(t, exporter.EventRecord(ev, 0))
	assert.ErrorIs(t, importer.EventQuery(iev), driver.ErrNotReady)
	require.NoError(t, importer.EventSynchronize(iev))
	assert.NoError(t, exporter.EventQuery(ev))
	// A record in the importer is seen by the exporter.
	ran := false
	require.NoError(t, importer.LaunchHostFunc(0, func() { ran = true }))
	require.NoError(t, importer.EventRecord(iev, 0))
	assert.ErrorIs(t, exporter.EventQuery(ev), driver.ErrNotReady)
	require.NoError(t, exporter.EventSynchronize(ev))
	assert.True(t, ran, "the exporter's wait ran the importer's stream")
	_, err = importer.EventElapsedTime(iev, iev)
	assert.ErrorIs(t, err, driver.ErrInvalidHandle, "IPC events do not time")
	require.NoError(t, importer.EventDestroy(iev))
	require.NoError(t, exporter.EventDestroy(ev))
	timed, err := exporter.EventCreate(0)
	require.NoError(t, err)
	_, err = exporter.IPCGetEventHandle(timed)
	assert.ErrorIs(t, err, driver.ErrInvalidHandle)
	require.NoError(t, exporter.EventDestroy(timed))

	require.NoError(t, exporter.MemFree(p))
	_, err = importer.IPCOpenMemHandle(h, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "the allocation is gone")
}
