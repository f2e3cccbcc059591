//go:build linux && (amd64 || arm64)

package fake

import (
	"os"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/vmm"
)

const g = vmm.Granularity

func devProp(h backend.MemHandleType) backend.MemAllocationProp {
	return backend.MemAllocationProp{Type: backend.MemAllocationTypePinned, RequestedHandleTypes: h,
		Location: backend.MemLocation{Type: backend.MemLocationDevice}}
}

var rw0 = []backend.MemAccessDesc{{Location: backend.MemLocation{Type: backend.MemLocationDevice}, Flags: backend.MemAccessReadWrite}}

// mapNoAccess reserves size bytes, creates as much memory and maps it, without
// access; all undone when the test ends, in order.
func mapNoAccess(t *testing.T, b *fakeBackend, size uintptr, h backend.MemHandleType) (ptr, handle uintptr) {
	t.Helper()
	ptr, err := b.MemAddressReserve(size, 0, 0, 0)
	require.NoError(t, err)
	handle, err = b.MemCreate(size, devProp(h), 0)
	require.NoError(t, err)
	require.NoError(t, b.MemMap(ptr, size, 0, handle, 0))
	t.Cleanup(func() {
		assert.NoError(t, b.MemUnmap(ptr, size))
		assert.NoError(t, b.MemRelease(handle))
		assert.NoError(t, b.MemAddressFree(ptr, size))
	})
	return ptr, handle
}

func TestVMMNoAccessFaults(t *testing.T) {
	b := bound(t, Kernel("oob", func(t Thread, p Ptr) { Store(t, p, t.X(), int32(1)) }))
	// No cleanup: the kernel's fault poisons this backend for good.
	va, err := b.MemAddressReserve(g, 0, 0, 0)
	require.NoError(t, err)
	h, err := b.MemCreate(g, devProp(0), 0)
	require.NoError(t, err)
	require.NoError(t, b.MemMap(va, g, 0, h, 0))
	ptr := va

	_, data, ok := deviceMemory{b}.Lookup(uint64(ptr))
	assert.True(t, ok, "the interpreter finds the mapping")
	assert.Nil(t, data, "but no bytes: every access faults")
	buf := []byte{1, 2, 3, 4}
	assert.ErrorIs(t, b.MemcpyHtoD(ptr, unsafe.Pointer(&buf[0]), 4), driver.ErrInvalidValue, "a copy fails")
	f, err := b.MemGetAccess(backend.MemLocation{Type: backend.MemLocationDevice}, ptr)
	require.NoError(t, err)
	assert.Equal(t, backend.MemAccessNone, f, "no access before cuMemSetAccess")

	require.NoError(t, b.MemSetAccess(ptr, g, rw0))
	_, data, _ = deviceMemory{b}.Lookup(uint64(ptr))
	assert.Len(t, data, g)
	require.NoError(t, b.MemcpyHtoD(ptr, unsafe.Pointer(&buf[0]), 4))
	f, err = b.MemGetAccess(backend.MemLocation{Type: backend.MemLocationDevice}, ptr)
	require.NoError(t, err)
	assert.Equal(t, backend.MemAccessReadWrite, f)

	// Taken away again, a kernel that touches it faults as on the GPU.
	require.NoError(t, b.MemSetAccess(ptr, g, []backend.MemAccessDesc{{Location: rw0[0].Location, Flags: backend.MemAccessNone}}))
	m := load(t, b, `extern "C" __global__ void oob(int* p) {}`)
	oob, err := b.ModuleGetFunction(m, "oob")
	require.NoError(t, err)
	s, err := b.StreamCreateWithPriority(0, 0)
	require.NoError(t, err)
	require.NoError(t, b.LaunchKernel(oob, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0, s, args(unsafe.Pointer(&va))))
	assert.ErrorIs(t, b.StreamSynchronize(s), driver.ErrIllegalAddress)
	assert.ErrorIs(t, b.MemUnmap(ptr, g), driver.ErrIllegalAddress, "nothing works after a sticky fault")
}

func TestVMMAliasAndSpans(t *testing.T) {
	b := bound(t)
	// Two allocations of a granule each, mapped at p1 in one order and at
	// p2 in the other (a mapping is of a whole allocation).
	hA, err := b.MemCreate(g, devProp(0), 0)
	require.NoError(t, err)
	defer b.MemRelease(hA)
	hB, err := b.MemCreate(g, devProp(0), 0)
	require.NoError(t, err)
	defer b.MemRelease(hB)
	p1, err := b.MemAddressReserve(2*g, 0, 0, 0)
	require.NoError(t, err)
	defer b.MemAddressFree(p1, 2*g)
	p2, err := b.MemAddressReserve(2*g, 0, 0, 0)
	require.NoError(t, err)
	defer b.MemAddressFree(p2, 2*g)
	big, err := b.MemCreate(2*g, devProp(0), 0)
	require.NoError(t, err)
	defer b.MemRelease(big)
	assert.ErrorIs(t, b.MemMap(p2, g, g, big, 0), driver.ErrNotSupported, "a mapping from an offset into the allocation")
	assert.ErrorIs(t, b.MemMap(p2, g, 0, big, 0), driver.ErrNotSupported, "a mapping of part of the allocation")
	require.NoError(t, b.MemMap(p1, g, 0, hA, 0))
	require.NoError(t, b.MemMap(p1+g, g, 0, hB, 0))
	defer b.MemUnmap(p1, g)
	defer b.MemUnmap(p1+g, g)
	require.NoError(t, b.MemMap(p2, g, 0, hB, 0))
	require.NoError(t, b.MemMap(p2+g, g, 0, hA, 0))
	defer b.MemUnmap(p2, g)
	defer b.MemUnmap(p2+g, g)
	require.NoError(t, b.MemSetAccess(p1, 2*g, rw0))
	require.NoError(t, b.MemSetAccess(p2, 2*g, rw0), "one call over two whole mappings")

	in := make([]byte, 2*g)
	for i := range in {
		in[i] = byte(i / 4096)
	}
	require.NoError(t, b.MemcpyHtoD(p1, unsafe.Pointer(&in[0]), 2*g), "a copy across two mappings of one range")
	out := make([]byte, 2*g)
	require.NoError(t, b.MemcpyDtoH(unsafe.Pointer(&out[0]), p2, 2*g))
	assert.Equal(t, in[g:], out[:g], "p2's first granule is p1's second")
	assert.Equal(t, in[:g], out[g:])

	require.NoError(t, b.MemsetD8(p2+g-2, 0x77, 4), "a memset across the boundary")
	require.NoError(t, b.MemcpyDtoH(unsafe.Pointer(&out[0]), p1, 2*g))
	assert.Equal(t, []byte{0x77, 0x77}, out[0:2], "seen through the other mapping")
	require.NoError(t, b.MemcpyDtoH(unsafe.Pointer(&out[0]), p2, 2*g))
	assert.Equal(t, []byte{0x77, 0x77, 0x77, 0x77}, out[g-2:g+2], "both sides of the boundary")

	base, size, err := b.MemGetAddressRange(p2 + g + 5)
	require.NoError(t, err)
	assert.Equal(t, []uintptr{p2 + g, g}, []uintptr{base, size}, "the range of one mapping")
	ctx, err := b.PointerGetAttribute(backend.PointerAttrContext, p1)
	require.NoError(t, err)
	assert.Zero(t, ctx, "mappings belong to no context")
	flags, err := b.PointerGetAttribute(16, p1) // CU_POINTER_ATTRIBUTE_ACCESS_FLAGS
	require.NoError(t, err)
	assert.Equal(t, uint64(backend.MemAccessReadWrite), flags)
	types, err := b.PointerGetAttribute(14, p1) // CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES
	require.NoError(t, err)
	assert.Zero(t, types, "made with no shareable handle type")
	_, err = b.IPCGetMemHandle(p1)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "no legacy IPC of VMM memory")
	assert.ErrorIs(t, b.MemFree(p1), driver.ErrInvalidValue, "mapped memory is not cuMemFree's")
}

func TestVMMRefusals(t *testing.T) {
	b := bound(t)
	_, err := b.MemAddressReserve(g+1, 0, 0, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = b.MemAddressReserve(g, 3, 0, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "an alignment that is no power of two")
	_, err = b.MemCreate(g/2, devProp(0), 0)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	bad := devProp(0)
	bad.Location.ID = 7
	_, err = b.MemCreate(g, bad, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidDevice)
	_, err = b.MemCreate(g, devProp(backend.MemHandleWin32), 0)
	assert.ErrorIs(t, err, driver.ErrNotSupported)
	_, err = b.MemCreate(16<<30, devProp(0), 0)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory, "more than the device has")

	ptr, h := mapNoAccess(t, b, 2*g, 0)
	assert.ErrorIs(t, b.MemMap(ptr, 2*g, 0, h, 0), driver.ErrInvalidValue, "a double map")
	assert.ErrorIs(t, b.MemUnmap(ptr, g), driver.ErrInvalidValue, "part of a mapping")
	assert.ErrorIs(t, b.MemAddressFree(ptr, 2*g), driver.ErrInvalidValue, "a range with a mapping")
	assert.ErrorIs(t, b.MemRelease(h+1), driver.ErrInvalidValue)
	assert.ErrorIs(t, b.MemSetAccess(ptr, g, rw0), driver.ErrInvalidValue, "part of a mapping")
	_, err = b.MemExportToShareableHandle(h, backend.MemHandlePOSIXFileDescriptor, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "not created shareable")

	free, _, err := b.MemGetInfo()
	require.NoError(t, err)
	h2, err := b.MemCreate(g, devProp(0), 0)
	require.NoError(t, err)
	after, _, err := b.MemGetInfo()
	require.NoError(t, err)
	assert.Equal(t, free-g, after, "cuMemCreate takes device memory")
	require.NoError(t, b.MemRelease(h2))
	after, _, err = b.MemGetInfo()
	require.NoError(t, err)
	assert.Equal(t, free, after, "and its release gives it back")
}

func TestVMMLeaks(t *testing.T) {
	b := bound(t)
	ptr, err := b.MemAddressReserve(g, 0, 0, 0)
	require.NoError(t, err)
	h, err := b.MemCreate(g, devProp(0), 0)
	require.NoError(t, err)
	require.NoError(t, b.MemMap(ptr, g, 0, h, 0))
	var kinds []backend.LeakKind
	for _, l := range b.Leaks() {
		if l.Kind != backend.LeakPrimaryContext {
			kinds = append(kinds, l.Kind)
			assert.NotEmpty(t, l.Detail, l.String())
		}
	}
	assert.Equal(t, []backend.LeakKind{backend.LeakAddressRange, backend.LeakMapping, backend.LeakPhysicalMemory}, kinds)
	require.NoError(t, b.MemRelease(h))
	require.NoError(t, b.MemUnmap(ptr, g))
	require.NoError(t, b.MemAddressFree(ptr, g))
	for _, l := range b.Leaks() {
		assert.Equal(t, backend.LeakPrimaryContext, l.Kind, "nothing else left: %s", l)
	}
}

// TestVMMShareAcrossBackends passes an exported descriptor over a Unix
// socket (SCM_RIGHTS), as between two processes, to another fake backend
// (which stands for another process), which maps the same memory.
func TestVMMShareAcrossBackends(t *testing.T) {
	b := bound(t)
	free, _, err := b.MemGetInfo()
	require.NoError(t, err)
	ptr, h := func() (uintptr, uintptr) {
		ptr, err := b.MemAddressReserve(g, 0, 0, 0)
		require.NoError(t, err)
		h, err := b.MemCreate(g, devProp(backend.MemHandlePOSIXFileDescriptor), 0)
		require.NoError(t, err)
		require.NoError(t, b.MemMap(ptr, g, 0, h, 0))
		require.NoError(t, b.MemSetAccess(ptr, g, rw0))
		return ptr, h
	}()
	require.NoError(t, b.MemsetD32(ptr, 0xfeedf00d, g/4))
	fd, err := b.MemExportToShareableHandle(h, backend.MemHandlePOSIXFileDescriptor, 0)
	require.NoError(t, err)

	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	require.NoError(t, err)
	defer syscall.Close(pair[0])
	defer syscall.Close(pair[1])
	require.NoError(t, syscall.Sendmsg(pair[0], []byte{0}, syscall.UnixRights(fd), nil, 0))
	require.NoError(t, syscall.Close(fd), "the sender's descriptor can go once sent")
	oob := make([]byte, syscall.CmsgSpace(4))
	_, oobn, _, _, err := syscall.Recvmsg(pair[1], make([]byte, 1), oob, 0)
	require.NoError(t, err)
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	require.NoError(t, err)
	fds, err := syscall.ParseUnixRights(&msgs[0])
	require.NoError(t, err)
	got := os.NewFile(uintptr(fds[0]), "received")
	defer got.Close()

	// The other "process".
	b2 := newBackend()
	require.NoError(t, b2.Init(0))
	h2, err := b2.MemImportFromShareableHandle(int(got.Fd()), backend.MemHandlePOSIXFileDescriptor)
	require.NoError(t, err)
	ptr2, err := b2.MemAddressReserve(g, 0, 0, 0)
	require.NoError(t, err)
	require.NoError(t, b2.MemMap(ptr2, g, 0, h2, 0))
	require.NoError(t, b2.MemSetAccess(ptr2, g, rw0))
	c2, err := b2.DevicePrimaryCtxRetain(0)
	require.NoError(t, err)
	require.NoError(t, b2.CtxPushCurrent(c2))
	defer func() { b2.CtxPopCurrent(); b2.DevicePrimaryCtxRelease(0) }()
	var v uint32
	require.NoError(t, b2.MemcpyDtoH(unsafe.Pointer(&v), ptr2+g-4, 4))
	assert.Equal(t, uint32(0xfeedf00d), v, "the importer sees the exporter's bytes")

	// The exporter lets go of everything; the importer's mapping holds the memory.
	require.NoError(t, b.MemUnmap(ptr, g))
	require.NoError(t, b.MemRelease(h))
	require.NoError(t, b.MemAddressFree(ptr, g))
	require.NoError(t, b2.MemcpyDtoH(unsafe.Pointer(&v), ptr2, 4))
	assert.Equal(t, uint32(0xfeedf00d), v)
	mid, _, err := b.MemGetInfo()
	require.NoError(t, err)
	assert.Equal(t, free-g, mid, "still the exporter's device's memory")
	require.NoError(t, b2.MemRelease(h2))
	require.NoError(t, b2.MemUnmap(ptr2, g))
	require.NoError(t, b2.MemAddressFree(ptr2, g))
	after, _, err := b.MemGetInfo()
	require.NoError(t, err)
	assert.Equal(t, free, after, "freed once the last holder went")
	// The descriptor still holds the memory's file: it imports again, as
	// memory of no device's account (as from another process).
	h3, err := b2.MemImportFromShareableHandle(int(got.Fd()), backend.MemHandlePOSIXFileDescriptor)
	require.NoError(t, err)
	require.NoError(t, b2.MemRelease(h3))
	after, _, err = b.MemGetInfo()
	require.NoError(t, err)
	assert.Equal(t, free, after)

	junk, err := os.CreateTemp(t.TempDir(), "junk")
	require.NoError(t, err)
	defer junk.Close()
	_, err = b2.MemImportFromShareableHandle(int(junk.Fd()), backend.MemHandlePOSIXFileDescriptor)
	assert.ErrorIs(t, err, driver.ErrUnknown, "a file that is no CUDA memory: UNKNOWN, as driver 580 answers")
	_, err = b2.MemImportFromShareableHandle(-1, backend.MemHandlePOSIXFileDescriptor)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = b2.MemImportFromShareableHandle(int(got.Fd()), backend.MemHandleFabric)
	assert.ErrorIs(t, err, driver.ErrNotSupported)
}
